/**
 * The sentences of a late duplicate's removal (src/services/duplicates.ts): what a click of Remove
 * duplicate did, or why it removed nothing. Plain text; the Slack view escapes it, the audit record
 * carries it as its summary. The notice's own sentence is `lateDuplicateSentence` (./activation.ts).
 */
import type { RecordRef, RemovalOutcome, RemovalRefusal, RemovalRequest } from '../services/duplicates.js';

/** `client #1009 "Ada Lovelace"`, `service #5007 "Standard Monthly"`, `NMS site "Ada Lovelace" (3f6b…)`. */
export function describeRecord(record: RemovalRequest['record'], ref: RecordRef | null, id: number | string): string {
  if (record === 'client' || record === 'service') return `${record} #${id}${ref?.name ? ` "${ref.name}"` : ''}`;
  return ref?.name ? `NMS site "${ref.name}" (${id})` : `NMS site ${id}`;
}

const capitalised = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** Why the late record was not removed; nothing was written. */
export function removalRefusalSentence(outcome: Extract<RemovalOutcome, { kind: 'refused' }>): string {
  const { request, refusal } = outcome;
  const late = describeRecord(request.record, outcome.duplicate, request.duplicateId);
  const kept = describeRecord(request.record, outcome.kept, request.keptId);
  return `${capitalised(reasonText(refusal, request, late, kept))}. Nothing was changed.`;
}

function reasonText(refusal: RemovalRefusal, request: RemovalRequest, late: string, kept: string): string {
  switch (refusal.reason) {
    case 'same-record':
      return `${late} is the one activations keep and report: it is not removed`;
    case 'gone':
      return `${late} is already removed: UISP no longer has it`;
    case 'other-client':
      return `${late} belongs to ${refusal.clientId === null ? 'no known client' : `client #${refusal.clientId}`} now, not to client #${request.clientId}: it is not removed`;
    case 'not-subops':
      return `${late} no longer carries SubOps' note line (Created by SubOps…): someone changed it in UISP, so it is theirs to remove there`;
    case 'kept-gone':
      if (request.record === 'client') return `${kept}, the one activations use, is gone: ${late} may be the customer's record now, so it is kept`;
      return `${kept}, the one the activation reported, is gone: removing ${late} would leave client #${request.clientId} without one, so it is kept`;
    case 'kept-not-active':
      return `${kept}, the one the activation reported, is ${refusal.statusLabel} now, not Active: removing ${late} would leave client #${request.clientId} without an Active service, so it is kept`;
    case 'not-newer':
      return `${late} is older than ${kept}: activations keep the oldest, so it is not the late one`;
    case 'kept':
      return `${late} is the service activations keep (the oldest SubOps made; one a person made never replaces it), so it is not the late one`;
    case 'invoiced':
      if (request.record === 'client') return `${late} has ${refusal.invoiceIds.length === 1 ? 'an invoice' : 'invoices'} (${ids('invoice', refusal.invoiceIds)}): SubOps never removes an invoiced client; settle it in the CRM`;
      return `${late} has been invoiced${refusal.invoiceIds.length ? ` (invoice ${refusal.invoiceIds.map((id) => `#${id}`).join(', ')})` : ''}: SubOps never removes an invoiced service; settle it in the CRM`;
    case 'in-use':
      return `${late} has ${refusal.devices.length === 1 ? 'a device' : `${refusal.devices.length} devices`} on it (${refusal.devices.map((d) => d.name ?? d.id).join(', ')}): it is not removed`;
    case 'linked':
      return `${late} is linked in the CRM to ${refusal.clientId === null ? 'a client' : `client #${refusal.clientId}`}: it is not removed`;
    case 'renamed':
      return `${late} is no longer named as ${kept}: someone renamed it, so it is someone's now and is not removed`;
    case 'has-services':
      return `${late} has ${refusal.serviceIds.length === 1 ? 'a service' : `${refusal.serviceIds.length} services`} (${ids('service', refusal.serviceIds)}): it is not an empty namesake, so it is not removed`;
    case 'has-payments':
      return `${late} has a payment recorded (${ids('payment', refusal.paymentIds)}): SubOps never removes a client with payments; settle it in the CRM`;
  }
}

const ids = (what: string, list: number[]) => `${what} ${list.map((id) => `#${id}`).join(', ')}`;

/** What a click of Remove duplicate (or `subops duplicates remove`) did, in one sentence (the notice's update, the terminal, the audit summary). */
export function removalSentence(outcome: RemovalOutcome): string {
  const { request } = outcome;
  switch (outcome.kind) {
    case 'removed':
      if (request.record === 'client') {
        return `Removed ${describeRecord('client', outcome.duplicate, request.duplicateId)}, an empty namesake of client #${request.clientId}; ${describeRecord('client', outcome.kept, request.keptId)}, the one activations use, stays.`;
      }
      return `Removed ${describeRecord(request.record, outcome.duplicate, request.duplicateId)} of client #${request.clientId}; ${describeRecord(request.record, outcome.kept, request.keptId)}, the one the activation reported, stays.`;
    case 'refused':
      return removalRefusalSentence(outcome);
    case 'failed': {
      const late = describeRecord(request.record, outcome.duplicate, request.duplicateId);
      return outcome.mayHaveApplied
        ? `UISP did not confirm removing ${late} (${outcome.detail}): it may or may not be gone. Try again (Remove duplicate, or subops duplicates remove): it reads UISP first.`
        : `UISP did not remove ${late} (${outcome.detail}); it is still there. Try again (Remove duplicate, or subops duplicates remove).`;
    }
  }
}
