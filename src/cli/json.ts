/**
 * What `--json` prints: SubOps' own objects, never raw UISP records, with the same field names in every
 * command. README.md ("JSON output") documents each shape; change both together. Every field is always
 * present (null when unknown), so scripts can rely on the keys.
 */
import type { ActivationEvent, ActivationOutcome, ClientRef, DeviceRef, ServiceRef, StepName, StepStatus } from '../services/activation/types.js';
import type { SuspensionAction, SuspensionOutcome, SuspensionRefusal } from '../services/suspensions.js';
import { clientDisplayName } from '../services/uisp/crm-client.js';
import type { Client, Payment, PaymentMethod, Service, SuspensionReason } from '../services/uisp/schemas.js';

export interface ClientJson {
  id: number;
  name: string;
}

export interface ServiceJson {
  id: number;
  clientId: number | null;
  name: string | null;
  /** The CRM's status number, and its name under the configured SERVICE_STATUS_* table. */
  status: number;
  statusLabel: string;
}

export interface DeviceJson {
  id: string;
  name: string;
  ip: string | null;
  mac: string | null;
  /** The NMS list it was found in. */
  list: 'authorized' | 'discovered';
  siteId: string | null;
  authorized: boolean;
}

export interface SiteJson {
  id: string;
  name: string;
}

export interface ReasonJson {
  id: number;
  name: string;
}

export interface PaymentJson {
  id: number;
  clientId: number | null;
  amount: number;
  currency: string | null;
  method: { id: string; name: string | null } | null;
  /** As the CRM reports it: ISO 8601 with the CRM's offset. */
  createdDate: string;
  note: string | null;
}

export type ActivationEventJson =
  | { type: 'step'; step: StepName; status: StepStatus; message: string; ids: Record<string, string | number> }
  | {
      type: 'result';
      outcome: ActivationOutcome;
      message: string;
      device: DeviceJson | null;
      client: ClientJson | null;
      service: ServiceJson | null;
      site: SiteJson | null;
      /** Set when the run moved the device off another client's endpoint site (confirmed with --yes). */
      movedFrom: { site: SiteJson; client: { id: number | null; name: string | null } } | null;
      crmClientUrl: string | null;
      done: string[];
      notDone: string[];
      error: { code: string; message: string; candidates: string[] } | null;
    };

export interface SuspensionJson {
  action: SuspensionAction;
  /** done: changed; already: nothing to do (exit 0); refused: not allowed in this state (exit 1). */
  outcome: SuspensionOutcome['kind'];
  refusal: SuspensionRefusal | null;
  /** The service as read right before the decision. */
  service: ServiceJson;
  /** As read back after the change; null when nothing changed or the read-back failed. */
  after: ServiceJson | null;
  reason: ReasonJson | null;
  message: string;
}

export interface RecordedPaymentJson {
  payment: PaymentJson;
  client: ClientJson;
  /** True when this operation had been recorded before: nothing was written. */
  alreadyRecorded: boolean;
}

export type StatusLabeller = (status: number) => string;

export const clientJson = (client: Client | ClientRef): ClientJson => ({ id: client.id, name: 'firstName' in client ? clientDisplayName(client) : client.name });

export function serviceJson(service: Service | ServiceRef, label: StatusLabeller, clientId: number | null = null): ServiceJson {
  return { id: service.id, clientId: 'clientId' in service ? service.clientId : clientId, name: service.name, status: service.status, statusLabel: label(service.status) };
}

export function paymentJson(payment: Payment, methods: PaymentMethod[]): PaymentJson {
  const method = payment.methodId ? { id: payment.methodId, name: methods.find((m) => m.id === payment.methodId)?.name ?? null } : null;
  return { id: payment.id, clientId: payment.clientId ?? null, amount: payment.amount, currency: payment.currencyCode, method, createdDate: payment.createdDate, note: payment.note };
}

const deviceJson = (d: DeviceRef): DeviceJson => ({ id: d.id, name: d.name, ip: d.ip, mac: d.mac, list: d.list, siteId: d.siteId, authorized: d.authorized });

export function activationEventJson(event: ActivationEvent, label: StatusLabeller): ActivationEventJson {
  if (event.type === 'step') return { type: 'step', step: event.step, status: event.status, message: event.message, ids: event.ids };
  return {
    type: 'result',
    outcome: event.outcome,
    message: event.message,
    device: event.device ? deviceJson(event.device) : null,
    client: event.client ? clientJson(event.client) : null,
    service: event.service ? serviceJson(event.service, label, event.client?.id ?? null) : null,
    site: event.site ? { id: event.site.id, name: event.site.name } satisfies SiteJson : null,
    movedFrom: event.movedFrom ? { site: { id: event.movedFrom.site.id, name: event.movedFrom.site.name }, client: { id: event.movedFrom.client.id, name: event.movedFrom.client.name } } : null,
    crmClientUrl: event.crmClientUrl ?? null,
    done: event.done,
    notDone: event.notDone,
    error: event.error ? { code: event.error.code, message: event.error.message, candidates: event.error.candidates ?? [] } : null,
  };
}

export function suspensionJson(outcome: SuspensionOutcome, message: string, label: StatusLabeller, reason?: SuspensionReason): SuspensionJson {
  return {
    action: outcome.action,
    outcome: outcome.kind,
    refusal: outcome.kind === 'refused' ? outcome.reason : null,
    service: serviceJson(outcome.service, label),
    after: outcome.kind === 'done' && outcome.after ? serviceJson(outcome.after, label) : null,
    reason: reason ? { id: reason.id, name: reason.name } : null,
    message,
  };
}
