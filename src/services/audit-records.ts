/**
 * One audit entry per kind of write, built from the services' own outcomes, so the Slack app and the
 * CLI record the same fields and the same sentence for the same event.
 */
import type { ActivationRequest, ActivationResult } from './activation/types.js';
import type { AuditEntry } from './audit.js';
import type { RemovalOutcome } from './duplicates.js';
import { formatMoney } from './money.js';
import type { PaymentInput, RecordedPayment } from './payments.js';
import type { SuspensionAction, SuspensionOutcome } from './suspensions.js';

/** What front ends tell people about a failed write: the problem, and what was or was not changed. */
export interface FailureNote {
  message: string;
  changed: string;
}

/** `summary`: the result's sentence, as the front end worded it (services choose no words: src/render/activation.ts). */
export function activationAudit(request: ActivationRequest, result: ActivationResult, summary: string): AuditEntry {
  return {
    action: 'activate',
    targets: {
      device: result.device?.id ?? request.device,
      ...(result.client && { clientId: result.client.id }),
      ...(result.service && { serviceId: result.service.id }),
      ...(result.site && { siteId: result.site.id }),
      ...(result.movedFrom && { movedFromSiteId: result.movedFrom.site.id }),
    },
    result: result.outcome,
    ok: result.outcome !== 'failed',
    summary,
  };
}

const ALREADY: Record<SuspensionAction, string> = { suspend: 'already-suspended', unsuspend: 'not-suspended' };

export function suspensionAudit(outcome: SuspensionOutcome, statusLabel: (status: number) => string): AuditEntry {
  const { action, service } = outcome;
  const targets = { serviceId: service.id, clientId: service.clientId, ...(outcome.kind === 'done' && outcome.suspensionReason && { reasonId: outcome.suspensionReason.id }) };
  const what = `${action} service #${service.id}`;
  switch (outcome.kind) {
    case 'done':
      return {
        action,
        targets,
        result: action === 'suspend' ? 'suspended' : 'unsuspended',
        ok: true,
        summary: `${what}: CRM status now ${outcome.after ? statusLabel(outcome.after.status) : 'unknown (read-back failed)'}`,
      };
    case 'already':
      return { action, targets, result: ALREADY[action], ok: true, summary: `${what}: nothing to do, the CRM reports status ${statusLabel(service.status)}` };
    case 'refused':
      return { action, targets, result: 'refused', ok: false, summary: `${what} refused (${outcome.reason}): the CRM reports status ${statusLabel(outcome.status)}; nothing was changed` };
  }
}

export function suspensionFailureAudit(action: SuspensionAction, targets: AuditEntry['targets'], failure: FailureNote): AuditEntry {
  return { action, targets, result: 'failed', ok: false, summary: `${action} service #${targets.serviceId} failed: ${failure.message} ${failure.changed}` };
}

export function paymentAudit({ payment, client, method, alreadyRecorded }: RecordedPayment): AuditEntry {
  return {
    action: 'payment',
    targets: { paymentId: payment.id, clientId: client.id, ...(method && { methodId: method.id }) },
    result: alreadyRecorded ? 'already-recorded' : 'recorded',
    ok: true,
    summary: `${alreadyRecorded ? 'Already recorded' : 'Recorded'} payment #${payment.id} of ${formatMoney(payment.amount, payment.currencyCode)} for client #${client.id}`,
  };
}

export function paymentFailureAudit(input: PaymentInput, failure: FailureNote): AuditEntry {
  return {
    action: 'payment',
    targets: { clientId: input.clientId },
    result: 'failed',
    ok: false,
    summary: `Recording ${formatMoney(input.amount)} for client #${input.clientId} failed: ${failure.message} ${failure.changed}`,
  };
}

/**
 * A click of Remove duplicate, whatever came of it: removed, already removed (ok: nothing left to do),
 * refused (nothing written) or failed. `summary`: the outcome's sentence, as the front end worded it
 * (src/render/duplicates.ts).
 */
export function duplicateRemovalAudit(outcome: RemovalOutcome, summary: string): AuditEntry {
  const { request } = outcome;
  // A client's kept id is the client itself: the namesake removed is the late one.
  const targets =
    request.record === 'client'
      ? { clientId: request.clientId, lateClientId: request.duplicateId }
      : { clientId: request.clientId, [`${request.record}Id`]: request.duplicateId, [`kept${request.record === 'service' ? 'Service' : 'Site'}Id`]: request.keptId };
  if (outcome.kind === 'removed') return { action: 'remove-duplicate', targets, result: 'removed', ok: true, summary };
  if (outcome.kind === 'failed') return { action: 'remove-duplicate', targets, result: 'failed', ok: false, summary };
  const gone = outcome.refusal.reason === 'gone';
  return { action: 'remove-duplicate', targets, result: gone ? 'already-removed' : `refused:${outcome.refusal.reason}`, ok: gone, summary };
}
