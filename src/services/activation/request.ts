/**
 * Validation of an activation request, shared by the CLI flags and the Slack modal so both reject the
 * same input with the same per-field messages (the input grammar's) before anything is sent to UISP.
 */
import { optional, readEmail, readFields, readId, readLine, readPersonName, readPhone, TEXT_LIMITS } from '../input/grammar.js';
import type { ActivationRequest } from './types.js';

export type ActivationField = 'device' | 'firstName' | 'lastName' | 'clientId' | 'email' | 'phone';

export type ActivationValidation = { ok: true; request: ActivationRequest } | { ok: false; errors: Partial<Record<ActivationField, string>> };

/** Form fields and flags arrive as text; an id may arrive as a number. Anything else counts as not given. */
const asText = (value: unknown): string | undefined => (typeof value === 'string' ? value : typeof value === 'number' ? String(value) : undefined);

export function validateActivationRequest(input: Partial<Record<ActivationField, unknown>>): ActivationValidation {
  const read = readFields({
    device: readLine()(asText(input.device), 'Device IP, MAC address or name'),
    firstName: readPersonName(asText(input.firstName), 'First name'),
    lastName: readPersonName(asText(input.lastName), 'Last name'),
    clientId: optional(readId)(asText(input.clientId), 'CRM client id'),
    email: optional(readEmail)(asText(input.email), 'Email address'),
    phone: optional(readPhone)(asText(input.phone), 'Phone number'),
  });
  if (!read.ok) return { ok: false, errors: read.problems };
  const { clientId, email, phone, ...rest } = read.values;
  // The NMS site of a new client is named "First Last", and the NMS takes site names of at most 100 characters.
  if ([...`${rest.firstName} ${rest.lastName}`].length > TEXT_LIMITS.siteName) {
    return { ok: false, errors: { lastName: `First and last name together must be at most ${TEXT_LIMITS.siteName - 1} characters (the NMS site name limit).` } };
  }
  return { ok: true, request: { ...rest, ...(clientId !== undefined && { clientId }), ...(email && { email }), ...(phone && { phone }) } };
}
