/**
 * What to tell an agent about a failure: the message, the form field it belongs to (if any) and what
 * was or was not changed in UISP. Messages of our error classes are written to be shown; anything else
 * is logged and summarised, so stack traces and internals never reach Slack.
 */
import type { ActivationField } from '../services/activation/request.js';
import { errorSentence } from '../render/activation.js';
import { leaseLostSentence } from '../render/lease.js';
import { ActivationFailure } from '../services/activation/workflow.js';
import { InputError, LeaseLostError } from '../services/errors.js';
import { changeNotice, UispError } from '../services/uisp/errors.js';

export interface Failure {
  message: string;
  /** The form field (block id) the problem belongs to. */
  field?: string;
  changed: string;
  /** False for errors of no known kind, which the caller should log with their stack. */
  expected: boolean;
}

const NOTHING = 'Nothing was changed.';

/** The activation form field a refusal belongs to; the rest (suspended service, settings) is shown above the form. */
const ACTIVATION_FIELDS: Partial<Record<ActivationFailure['code'], ActivationField>> = {
  'device-not-found': 'device',
  'device-ambiguous': 'device',
  'device-infrastructure': 'device',
  'device-role-unknown': 'device',
  'client-not-found': 'clientId',
  'client-name-mismatch': 'clientId',
  'client-archived': 'clientId',
  'client-ambiguous': 'clientId',
};

export function activationFieldOf(code: ActivationFailure['code']): ActivationField | undefined {
  return ACTIVATION_FIELDS[code];
}

export function describeFailure(error: unknown): Failure {
  if (error instanceof InputError) return { message: error.message, field: error.field, changed: NOTHING, expected: true };
  if (error instanceof ActivationFailure) {
    const field = ACTIVATION_FIELDS[error.code];
    return { message: errorSentence(error.error), ...(field && { field }), changed: NOTHING, expected: true };
  }
  if (error instanceof UispError) return { message: error.message, changed: changeNotice(error), expected: true };
  if (error instanceof LeaseLostError) return { message: leaseLostSentence(error.reason), changed: 'Nothing more was sent to UISP.', expected: true };
  return { message: 'Something unexpected went wrong; the details are in the SubOps log.', changed: 'Check UISP before retrying: the change may or may not have been applied.', expected: false };
}

/** Slack Web API errors carry `data.error` (e.g. missing_scope); keep logs to that, never the request. */
export function errorSummary(error: unknown): { message: string; code?: string; slackError?: string } {
  if (!(error instanceof Error)) return { message: String(error) };
  const coded = error as Error & { code?: string; data?: { error?: string } };
  return { message: coded.message, ...(coded.code && { code: coded.code }), ...(coded.data?.error && { slackError: coded.data.error }) };
}
