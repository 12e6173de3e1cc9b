/**
 * A second pair of eyes (issue #21 §2): which confirmed operations need another person's approval
 * before anything is written, what a click on Approve or Reject may do, and which grant the requester
 * must still hold when it runs. Pure decisions; the Slack app keeps the requests (in the store) and runs
 * the approved operation as the requester's, reading UISP again first. The CLI is run by whoever holds the UISP token and asks no approval.
 */
import { z } from 'zod';
import type { AccessAction } from './access.js';

export const APPROVAL_KINDS = ['delete-service', 'move-device', 'large-payment', 'suspension'] as const;
export type ApprovalKind = (typeof APPROVAL_KINDS)[number];

export interface ApprovalSettings {
  /** The kinds of change that need approval; empty: none (the behaviour before approvals existed). */
  required: ReadonlySet<ApprovalKind>;
  /** `large-payment`: a payment above this amount (in the payment's own currency). */
  paymentAbove: number | undefined;
  /** How long a request waits for a decision; after it, nothing is written. */
  expiresAfterMs: number;
}

export const DEFAULT_APPROVAL_EXPIRY_MS = 4 * 3_600_000;

/** A confirmed operation as the approval rule sees it. */
export type ApprovalSubject =
  | { kind: 'activation'; deletes: readonly number[] | 'any'; moveFromSite: string | undefined }
  | { kind: 'suspension'; action: 'suspend' | 'unsuspend' }
  | { kind: 'payment'; amount: number };

/** Why an approval is needed: each reason names what will change. */
export type ApprovalReason =
  | { kind: 'delete-service'; serviceIds: number[] }
  | { kind: 'move-device'; fromSite: string }
  | { kind: 'large-payment'; amount: number; above: number }
  | { kind: 'suspension' };

/** The reasons this operation needs approval; none: it runs at once, as before. */
export function approvalReasons(settings: ApprovalSettings, subject: ApprovalSubject): ApprovalReason[] {
  const { required } = settings;
  switch (subject.kind) {
    case 'activation':
      return [
        // 'any' (the CLI's --yes; a Retry value may carry it) deletes whatever the run finds: approval is needed whatever it is.
        ...(required.has('delete-service') && subject.deletes.length ? [{ kind: 'delete-service' as const, serviceIds: subject.deletes === 'any' ? [] : [...subject.deletes] }] : []),
        ...(required.has('move-device') && subject.moveFromSite ? [{ kind: 'move-device' as const, fromSite: subject.moveFromSite }] : []),
      ];
    case 'suspension':
      return required.has('suspension') && subject.action === 'suspend' ? [{ kind: 'suspension' }] : [];
    case 'payment':
      return required.has('large-payment') && settings.paymentAbove !== undefined && subject.amount > settings.paymentAbove
        ? [{ kind: 'large-payment', amount: subject.amount, above: settings.paymentAbove }]
        : [];
  }
}

/** What a Retry of a failed run may do: run (as approved by `approvedBy`, when it needed approval), or ask for approval again. */
export type RetryVerdict = { kind: 'run'; approvedBy: string | undefined } | { kind: 'ask-again'; why: 'expired' | 'not-approved' };

/**
 * A Retry of a run that needs approval (`reasons`, as the approval rule reads what the Retry would do)
 * runs only under an approval that stands: approved, and not past its expiry. Otherwise nothing runs:
 * an expired approval is asked for again; a Retry that names none (or one not approved) was never
 * approved for this, and the person is sent back to the form.
 */
export function judgeRetry(reasons: readonly ApprovalReason[], approval: { decision: Decision | undefined; by: string; expiresAt: number } | undefined, at: number): RetryVerdict {
  if (!reasons.length) return { kind: 'run', approvedBy: undefined };
  if (approval?.decision !== 'approved') return { kind: 'ask-again', why: 'not-approved' };
  if (at >= approval.expiresAt) return { kind: 'ask-again', why: 'expired' };
  return { kind: 'run', approvedBy: approval.by };
}

/**
 * The grant the requester needs for this operation, checked again when the approved request runs: an
 * approval vouches for the change, not for who asked; someone who lost the grant since asking gets nothing run.
 */
export function grantNeeded(subject: { kind: 'activation' } | { kind: 'suspension'; action: 'suspend' | 'unsuspend' } | { kind: 'payment' }): AccessAction {
  switch (subject.kind) {
    case 'activation':
      return 'activate';
    case 'suspension':
      return subject.action;
    case 'payment':
      return 'record-payment';
  }
}

export const ApprovalReasonSchema: z.ZodType<ApprovalReason> = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('delete-service'), serviceIds: z.array(z.number().int()) }),
  z.object({ kind: z.literal('move-device'), fromSite: z.string() }),
  z.object({ kind: z.literal('large-payment'), amount: z.number(), above: z.number() }),
  z.object({ kind: z.literal('suspension') }),
]);

export type Decision = 'approved' | 'rejected' | 'expired';

/** What a click on Approve or Reject may do, given the request and the clock. */
export type ClickVerdict = { kind: 'decide'; decision: Decision } | { kind: 'own-request' };

/**
 * Approve and Reject are for approvers other than the requester; a click after the request expired
 * decides nothing but its expiry, whoever clicked what.
 */
export function judgeClick({ requester, expiresAt }: { requester: string; expiresAt: number }, click: { by: string; approve: boolean; at: number }): ClickVerdict {
  if (click.at >= expiresAt) return { kind: 'decide', decision: 'expired' };
  if (click.by === requester) return { kind: 'own-request' };
  return { kind: 'decide', decision: click.approve ? 'approved' : 'rejected' };
}
