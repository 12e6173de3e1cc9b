/**
 * Validation of an activation request, shared by the CLI flags and the Slack modal so both reject the
 * same input with the same per-field messages before anything is sent to UISP.
 */
import { z } from 'zod';
import type { ActivationRequest } from './types.js';

export type ActivationField = 'device' | 'firstName' | 'lastName' | 'clientId' | 'email' | 'phone';

const optionalText = z
  .string()
  .trim()
  .optional()
  .transform((v) => (v ? v : undefined));

const schema = z.object({
  device: z.string().trim().min(1, 'Enter the device IP, MAC address or name.').max(100, 'At most 100 characters.'),
  firstName: z
    .string()
    .trim()
    .min(1, 'Enter the first name.')
    .max(60, 'At most 60 characters.')
    .regex(/^[\p{L}][\p{L}\p{M} '’.-]*$/u, 'Use letters, spaces, hyphens and apostrophes only.'),
  lastName: z
    .string()
    .trim()
    .min(1, 'Enter the last name.')
    .max(60, 'At most 60 characters.')
    .regex(/^[\p{L}][\p{L}\p{M} '’.-]*$/u, 'Use letters, spaces, hyphens and apostrophes only.'),
  clientId: z
    .union([z.number(), z.string().trim()])
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v === '') return undefined;
      const id = Number(v);
      if (!Number.isInteger(id) || id <= 0) {
        ctx.addIssue({ code: 'custom', message: 'A CRM client id is a positive whole number.' });
        return z.NEVER;
      }
      return id;
    }),
  email: optionalText.pipe(z.email('Enter a valid email address.').optional()),
  phone: optionalText.pipe(
    z
      .string()
      .regex(/^\+?[0-9][0-9 ().-]{5,24}$/, 'Enter a phone number of digits, optionally with +, spaces, dots, dashes or brackets.')
      .optional(),
  ),
});

const LABELS: Record<ActivationField, string> = {
  device: 'device IP, MAC address or name',
  firstName: 'first name',
  lastName: 'last name',
  clientId: 'CRM client id',
  email: 'email address',
  phone: 'phone number',
};

export type ActivationValidation = { ok: true; request: ActivationRequest } | { ok: false; errors: Partial<Record<ActivationField, string>> };

export function validateActivationRequest(input: Partial<Record<ActivationField, unknown>>): ActivationValidation {
  const parsed = schema.safeParse(input);
  if (parsed.success) {
    const { clientId, email, phone, ...rest } = parsed.data;
    return { ok: true, request: { ...rest, ...(clientId !== undefined && { clientId }), ...(email && { email }), ...(phone && { phone }) } };
  }
  const errors: Partial<Record<ActivationField, string>> = {};
  for (const issue of parsed.error.issues) {
    const field = issue.path[0] as ActivationField;
    errors[field] ??= issue.code === 'invalid_type' ? `Enter the ${LABELS[field]}.` : issue.message;
  }
  return { ok: false, errors };
}
