/**
 * How an activation stops: `ActivationFailure` carries the facts (front ends word them,
 * src/render/activation.ts), and every other error becomes one here.
 */
import { LeaseLostError } from '../errors.js';
import { UispError, UispUnavailableError } from '../uisp/errors.js';
import type { ActivationError, ActivationErrorCode, ActivationPlan, StepName, UispFailure } from './types.js';

/** An activation stopped before its end, with the facts (front ends word them: src/render/activation.ts). */
export class ActivationFailure extends Error {
  override readonly name = 'ActivationFailure';
  constructor(
    readonly error: ActivationError,
    /** For a deletion or move that needs confirmation: the plan, so front ends can show what confirming would do. */
    readonly plan?: ActivationPlan,
  ) {
    // For logs only: what people see is worded from `error` by the front ends.
    super(`activation stopped: ${error.code}`);
  }

  get code(): ActivationErrorCode {
    return this.error.code;
  }
}

/** `beforeWrites`: it was thrown while planning, so nothing was written. */
export function asFailure(error: unknown, beforeWrites = false): ActivationFailure {
  if (error instanceof ActivationFailure) return error;
  if (error instanceof LeaseLostError) return new ActivationFailure({ code: 'lease-lost', reason: error.reason });
  return new ActivationFailure(uispFailure(error, beforeWrites));
}

/** A failed request as facts: the UISP client's description of it, and whether the write may have landed. */
function uispFailure(error: unknown, beforeWrites: boolean): UispFailure {
  const detail = error instanceof Error ? error.message : String(error);
  const throttled = throttleOf(error);
  return { code: 'uisp-error', problem: 'request', detail, mayHaveApplied: error instanceof UispError && error.mayHaveApplied, beforeWrites, ...(throttled && { throttled }) };
}

/** UISP said it is rate-limited or overloaded (429 or 503) somewhere down the error's causes, with its Retry-After. */
function throttleOf(error: unknown): { status: number; retryAfterMs: number | null } | undefined {
  for (let cause = error; cause instanceof Error; cause = cause.cause) {
    if (cause instanceof UispUnavailableError && (cause.status === 429 || cause.status === 503)) return { status: cause.status, retryAfterMs: cause.retryAfterMs ?? null };
  }
  return undefined;
}

/** What a failed write step reports. */
export const errorOf = (error: unknown): ActivationError => asFailure(error).error;

/** The step a planning failure belongs to, so front ends label it where the agent looks for it. */
export const FAILED_STEP: Record<ActivationErrorCode, StepName> = {
  'device-not-found': 'discover',
  'device-ambiguous': 'discover',
  'device-infrastructure': 'discover',
  'device-role-unknown': 'discover',
  'device-in-use': 'authorize',
  'delete-unconfirmed': 'service',
  'service-changed': 'service',
  'client-not-found': 'client',
  'client-name-mismatch': 'client',
  'client-archived': 'client',
  'client-ambiguous': 'client',
  'service-suspended': 'service',
  'parent-site-not-found': 'site',
  'service-plan-unknown': 'service',
  'service-status-unknown': 'service',
  'uisp-error': 'discover',
  'lease-lost': 'discover',
};
