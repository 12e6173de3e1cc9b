/**
 * A second pair of eyes (issue #21 §2): which confirmed operations need another person's approval
 * before anything is written, what a click on Approve or Reject may do, and which grant the requester
 * must still hold when it runs. Pure decisions; the Slack app keeps the requests (in the store) and runs
 * the approved operation as the requester's, reading UISP again first. The CLI is run by whoever holds the UISP token and asks no approval.
 */
import { z } from 'zod';
import type { AccessAction } from './access.js';
import type { ActivationRequest } from './activation/types.js';

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
  | { kind: 'payment'; amount: number }
  /** Remove duplicate (./duplicates.ts): a late service is Active, a late client goes with everything under it. */
  | { kind: 'remove-duplicate'; record: 'client' | 'service' | 'site'; duplicateId: number | string };

/** Why an approval is needed: each reason names what will change. */
export type ApprovalReason =
  /** `late`: a late duplicate's removal (an Active service, or a whole client), not an activation's delete. */
  | { kind: 'delete-service'; serviceIds: number[]; late?: { record: 'service' | 'client'; id: number } }
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
    case 'remove-duplicate': {
      // A late site goes only empty and unlinked: nothing of a client's goes with it.
      if (!required.has('delete-service') || subject.record === 'site') return [];
      const id = Number(subject.duplicateId);
      return [{ kind: 'delete-service', serviceIds: subject.record === 'service' ? [id] : [], late: { record: subject.record, id } }];
    }
  }
}

/** What a Retry of a failed run may do: run (as approved by `approvedBy`, when it needed approval), or ask for approval again. */
export type RetryVerdict = { kind: 'run'; approvedBy: string | undefined } | { kind: 'ask-again'; why: 'expired' | 'not-approved' | 'other-operation' };

/** An activation as a Retry would run it: the button's request, who started it, what it may delete and move. */
export interface RetriedActivation {
  request: ActivationRequest;
  startedBy: string;
  deletes: readonly number[] | 'any';
  moveFrom: string | undefined;
}

/** The approval a Retry names, as its verified row says: its decision, and the operation the approver was shown. */
export interface NamedApproval {
  decision: Decision | undefined;
  by: string;
  expiresAt: number;
  requester: string;
  /** The approved activation; undefined when the approval was for another kind of operation. */
  activation: { request: ActivationRequest; deletes: readonly number[]; moveFrom: string | undefined } | undefined;
}

const ACTIVATION_FIELDS = ['device', 'firstName', 'lastName', 'clientId', 'email', 'phone'] as const satisfies readonly (keyof ActivationRequest)[];

/**
 * Whether the Retry is the approved operation itself (issue #37 §3): an activation of the same request
 * (device, client, names), started by the requester, deleting only services the approver saw confirmed and
 * moving the device only off the site they saw. Anything else is another operation, approved by nobody.
 */
export function withinApproval(retry: RetriedActivation, approved: NamedApproval): boolean {
  const { activation } = approved;
  if (!activation || retry.startedBy !== approved.requester) return false;
  if (ACTIVATION_FIELDS.some((field) => retry.request[field] !== activation.request[field])) return false;
  if (retry.deletes === 'any' || retry.deletes.some((id) => !activation.deletes.includes(id))) return false;
  return retry.moveFrom === undefined || retry.moveFrom === activation.moveFrom;
}

/**
 * A Retry of a run that needs approval (`reasons`, as the approval rule reads what the Retry would do)
 * runs only under an approval that stands for it: approved, for this very operation, and not past its
 * expiry. Otherwise nothing runs: an expired approval is asked for again; a Retry that names none (or one
 * not approved, or approved for something else) was never approved for this, and the person is sent back to the form.
 */
export function judgeRetry(reasons: readonly ApprovalReason[], retry: RetriedActivation, approval: NamedApproval | undefined, at: number): RetryVerdict {
  if (!reasons.length) return { kind: 'run', approvedBy: undefined };
  if (approval?.decision !== 'approved') return { kind: 'ask-again', why: 'not-approved' };
  if (!withinApproval(retry, approval)) return { kind: 'ask-again', why: 'other-operation' };
  if (at >= approval.expiresAt) return { kind: 'ask-again', why: 'expired' };
  return { kind: 'run', approvedBy: approval.by };
}

/**
 * The grant the requester needs for this operation, checked again when the approved request runs: an
 * approval vouches for the change, not for who asked; someone who lost the grant since asking gets nothing run.
 */
export function grantNeeded(subject: { kind: 'activation' | 'sheet' } | { kind: 'suspension'; action: 'suspend' | 'unsuspend' } | { kind: 'payment' } | { kind: 'remove-duplicate' }): AccessAction {
  switch (subject.kind) {
    case 'activation':
    case 'sheet':
    case 'remove-duplicate':
      return 'activate';
    case 'suspension':
      return subject.action;
    case 'payment':
      return 'record-payment';
  }
}

export const ApprovalReasonSchema: z.ZodType<ApprovalReason> = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('delete-service'), serviceIds: z.array(z.number().int()), late: z.object({ record: z.enum(['service', 'client']), id: z.number().int() }).optional() }),
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
