/**
 * Which CRM changes SubOps reports, decided from the CRM's own record of a webhook event and the
 * entity read back from the CRM (never from the webhook body). Pure functions; no Slack knowledge.
 */
import type { ServiceStatusTable } from '../activation/service-status.js';
import type { Client, Payment, Service, WebhookEvent } from '../uisp/schemas.js';

export type ServiceChangeKind = 'service-suspended' | 'service-unsuspended' | 'service-activated' | 'service-ended';
export type ClientChangeKind = 'client-created' | 'client-archived';

/** A change made in UISP, with what the CRM says now. */
export type UispChange =
  | { kind: ServiceChangeKind; service: Service; client: Client | null }
  | { kind: 'payment-added'; payment: Payment; client: Client | null; /** The client's services that are suspended now: a payment may be the moment to lift them. */ suspendedServices: Service[] }
  | { kind: ClientChangeKind; client: Client };

export type ChangeKind = UispChange['kind'];

/** entity → change type → what SubOps reports. A service `insert` is reported only when it is Active (an activation). */
const REPORTED: Record<string, Record<string, ChangeKind>> = {
  service: { suspend: 'service-suspended', unsuspend: 'service-unsuspended', activate: 'service-activated', insert: 'service-activated', end: 'service-ended' },
  payment: { insert: 'payment-added' },
  client: { insert: 'client-created', archive: 'client-archived' },
};

/** The change this event is about, if SubOps reports that kind of change; undefined otherwise (ignored). */
export function reportedKind(event: Pick<WebhookEvent, 'entity' | 'changeType' | 'entityId'>): ChangeKind | undefined {
  if (event.entityId === null) return undefined;
  return REPORTED[event.entity]?.[event.changeType];
}

/** A new service that is not Active (a quote, a deferred one) is no activation: nothing to report. */
export function isReportable(change: UispChange, event: Pick<WebhookEvent, 'changeType'>, statuses: ServiceStatusTable): boolean {
  if (change.kind === 'service-activated' && event.changeType === 'insert') return change.service.status === statuses.active;
  return true;
}

/**
 * A service added, edited or activated (UISP's service.add, service.edit, service.activate): the moment to
 * look for late duplicates of its client (a create UISP applied after its run gave up arrives this way).
 */
export function touchesClientServices(event: Pick<WebhookEvent, 'entity' | 'changeType' | 'entityId'>): boolean {
  return event.entity === 'service' && event.entityId !== null && ['insert', 'edit', 'activate'].includes(event.changeType);
}
