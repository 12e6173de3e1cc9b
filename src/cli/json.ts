/**
 * What `--json` prints: SubOps' own objects, never raw UISP records, with the same field names in every
 * command. docs/cli.md ("JSON output") documents each shape; change both together. Every field is always
 * present (null when unknown), so scripts can rely on the keys; on the embedded simulator every object
 * has `"simulated": true` besides (`jsonLine`).
 */
import { simulatorRequested } from '../config.js';
import type { CliIo } from './io.js';
import type { ActivationEvent, ActivationOutcome, ClientRef, DeviceRef, LateDuplicate, ServiceRef, StepName, StepStatus } from '../services/activation/types.js';
import { candidateLines, errorSentence, lateDuplicateSentence, resultLists, resultSentence, stepSentence } from '../render/activation.js';
import type { ActivationPrefill, CardGap, ClientLookup, ClientMatch, DeviceLine, DeviceLookup } from '../services/lookups/index.js';
import type { SuspensionAction, SuspensionOutcome, SuspensionRefusal } from '../services/suspensions.js';
import type { RemovalOutcome, RemovalRefusal, RemovalRequest } from '../services/duplicates.js';
import { clientDisplayName } from '../services/uisp/crm-client.js';
import type { Client, Payment, PaymentMethod, Service, SuspensionReason } from '../services/uisp/schemas.js';
import { displayNote, type CurrencyTotal } from '../services/payments.js';
import { isQuiet, type Digest } from '../services/digest/build.js';
import type { AffectedCustomer, OutageInProgress, OutageNote } from '../services/outages.js';
import type { RowCheck, RowEvent, RowOutcome, SheetRowProblem, SheetTotals } from '../services/sheets/types.js';
import { problemSentence, rowCandidates, rowCheckSentence, rowConfirmation, rowOutcomeSentence } from '../render/sheet.js';

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

/**
 * A late duplicate the run met: several SubOps-made Active services (or NMS sites) of the client. `kept`
 * is the one the activation reported; `others` the late ones. `record: 'client'`: `kept` is the client
 * itself (the one activations use) and `others` its SubOps-made namesakes with no service, which the
 * lookup leaves out (left by a run that failed midway, or made late); their sites come as `'site'` others.
 * Named only: nothing removes them but a person (the audit notice's Remove duplicate, or
 * `subops duplicates remove`).
 */
export interface LateDuplicateJson {
  record: 'client' | 'service' | 'site';
  client: ClientJson;
  kept: { id: number | string; name: string | null };
  others: { id: number | string; name: string | null }[];
  message: string;
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
      /** Late duplicates the run met ([] when none). */
      duplicates: LateDuplicateJson[];
      /** Quoted or Obsolete services of other plans (cable TV…) the activation did not touch ([] when none). */
      leftAlone: ServiceJson[];
    };

export interface SuspensionJson {
  type: 'suspension';
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
  type: 'recorded-payment';
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

/** `payments --json`: one payment per line, then the totals per currency of the payments listed. */
export type PaymentLineJson = { type: 'payment' } & PaymentJson;
export interface PaymentTotalsJson {
  type: 'totals';
  /** How many payments the lines above list. */
  count: number;
  /** Per currency, as the text listing's Totals. */
  totals: CurrencyTotal[];
}

export function paymentJson(payment: Payment, methods: PaymentMethod[]): PaymentJson {
  const method = payment.methodId ? { id: payment.methodId, name: methods.find((m) => m.id === payment.methodId)?.name ?? null } : null;
  return { id: payment.id, clientId: payment.clientId ?? null, amount: payment.amount, currency: payment.currencyCode, method, createdDate: payment.createdDate, note: displayNote(payment.note) };
}

const deviceJson = (d: DeviceRef): DeviceJson => ({ id: d.id, name: d.name, ip: d.ip, mac: d.mac, list: d.list, siteId: d.siteId, authorized: d.authorized });

export const lateDuplicateJson = (d: LateDuplicate): LateDuplicateJson => ({
  record: d.record,
  client: clientJson(d.client),
  kept: { id: d.kept.id, name: d.kept.name },
  others: d.others.map((o) => ({ id: o.id, name: o.name })),
  message: lateDuplicateSentence(d),
});

/** The services send facts; the sentences (`message`, `done`, `notDone`, the error's) are the terminal's own. */
export function activationEventJson(event: ActivationEvent, label: StatusLabeller): ActivationEventJson {
  if (event.type === 'step') return { type: 'step', step: event.step, status: event.status, message: stepSentence(event), ids: event.ids };
  return {
    type: 'result',
    outcome: event.outcome,
    message: resultSentence(event),
    device: event.device ? deviceJson(event.device) : null,
    client: event.client ? clientJson(event.client) : null,
    service: event.service ? serviceJson(event.service, label, event.client?.id ?? null) : null,
    site: event.site ? { id: event.site.id, name: event.site.name } satisfies SiteJson : null,
    movedFrom: event.movedFrom ? { site: { id: event.movedFrom.site.id, name: event.movedFrom.site.name }, client: { id: event.movedFrom.client.id, name: event.movedFrom.client.name } } : null,
    crmClientUrl: event.crmClientUrl ?? null,
    ...resultLists(event),
    error: event.outcome === 'failed' ? { code: event.error.code, message: errorSentence(event.error), candidates: candidateLines(event.error) } : null,
    duplicates: (event.duplicates ?? []).map(lateDuplicateJson),
    leftAlone: (event.leftAlone ?? []).map((s) => serviceJson(s, label, event.client?.id ?? null)),
  };
}

export function suspensionJson(outcome: SuspensionOutcome, message: string, label: StatusLabeller, reason?: SuspensionReason): SuspensionJson {
  return {
    type: 'suspension',
    action: outcome.action,
    outcome: outcome.kind,
    refusal: outcome.kind === 'refused' ? outcome.reason : null,
    service: serviceJson(outcome.service, label),
    after: outcome.kind === 'done' && outcome.after ? serviceJson(outcome.after, label) : null,
    reason: reason ? { id: reason.id, name: reason.name } : null,
    message,
  };
}

/** `subops duplicates remove --json`: what came of the removal, as the Slack notice's button reports it. */
export interface RemovalJson {
  type: 'removal';
  /** removed (exit 0); refused: nothing written, `refusal` says why (exit 1, but `gone`: already removed, exit 0); failed: UISP did not remove it (exit 1). */
  outcome: RemovalOutcome['kind'];
  refusal: RemovalRefusal['reason'] | null;
  record: RemovalRequest['record'];
  clientId: number;
  /** The late record and the kept one, as just read (name null when UISP no longer has it). */
  late: { id: number | string; name: string | null };
  kept: { id: number | string; name: string | null };
  message: string;
}

export function removalJson(outcome: RemovalOutcome, message: string): RemovalJson {
  const { request } = outcome;
  return {
    type: 'removal',
    outcome: outcome.kind,
    refusal: outcome.kind === 'refused' ? outcome.refusal.reason : null,
    record: request.record,
    clientId: request.clientId,
    late: { id: request.duplicateId, name: outcome.duplicate?.name ?? null },
    kept: { id: request.keptId, name: outcome.kept?.name ?? null },
    message,
  };
}

// ---------- install sheets (subops activate --sheet) ----------

/** `--sheet --dry-run --json`: one object per row as the check found it. */
export interface SheetCheckJson {
  type: 'sheet-check';
  row: number;
  line: number;
  /** The device as the sheet typed it; null for a row whose fields were refused. */
  device: string | null;
  /** plan: it runs; already-done: nothing to write; error: it will not run (`error` says why). */
  status: 'plan' | 'already-done' | 'error';
  message: string;
  /** What its run needs confirmed (deletes, a move), as the single activation names it; null: nothing. */
  confirm: string | null;
  /** `candidates`: the clients (or devices) an ambiguous row matched, each with its id. */
  error: { code: string; message: string; candidates: string[] } | null;
}

/** After the rows: the totals of the check (`sheet-totals`), or the counts of the run (`sheet-done`). */
export type SheetSummaryJson = ({ type: 'sheet-totals' } & SheetTotals) | { type: 'sheet-done'; counts: Record<RowOutcome, number>; message: string };

/** `--sheet --json`: one object per row once it ends, in the order rows end. */
export interface SheetRowJson {
  type: 'sheet-row';
  row: number;
  line: number;
  device: string | null;
  outcome: RowOutcome;
  /** Runs of the row: more than 1 when UISP throttled it; 0 when the sheet refused it before running it. */
  attempts: number;
  message: string;
  /** The row's activation result, as `subops activate --json` prints it; null for a row the sheet refused. */
  result: Extract<ActivationEventJson, { type: 'result' }> | null;
  /** Why the sheet refused the row (`invalid` fields, `duplicate-device`); null when it ran. */
  problem: { code: SheetRowProblem['code']; message: string } | null;
}

export function sheetCheckJson(row: RowCheck): SheetCheckJson {
  const error = row.kind === 'problem' ? row.problem.code : row.kind === 'refused' ? row.error.code : null;
  return {
    type: 'sheet-check',
    row: row.row,
    line: row.line,
    device: row.request?.device ?? null,
    status: error ? 'error' : row.kind === 'plan' && row.alreadyDone ? 'already-done' : 'plan',
    message: rowCheckSentence(row),
    confirm: rowConfirmation(row) ?? null,
    error: error ? { code: error, message: rowCheckSentence(row), candidates: rowCandidates(row) } : null,
  };
}

export function sheetRowJson(event: RowEvent, label: StatusLabeller): SheetRowJson {
  const result = event.result ? activationEventJson(event.result, label) : null;
  return {
    type: 'sheet-row',
    row: event.row,
    line: event.line,
    device: event.request?.device ?? null,
    outcome: event.outcome,
    attempts: event.attempts,
    message: rowOutcomeSentence(event),
    result: result?.type === 'result' ? result : null,
    problem: event.problem ? { code: event.problem.code, message: problemSentence(event.problem) } : null,
  };
}

// ---------- lookups (subops client, subops device) ----------

/** A client in a lookup: the client object plus what tells clients apart. */
export interface ClientDetailsJson extends ClientJson {
  archived: boolean;
  address: string | null;
  email: string | null;
  phone: string | null;
  userIdent: string | null;
}

/** A device in a lookup: the device object plus its state as NMS reports it. */
export interface DeviceStateJson extends DeviceJson {
  model: string | null;
  role: string | null;
  /** NMS status (active, disconnected, unauthorized…). */
  status: string | null;
  online: boolean;
  /** dBm, where the device reports one. */
  signal: number | null;
  uptimeSeconds: number | null;
  lastSeen: string | null;
}

export interface ActivationPrefillJson {
  firstName: string | null;
  lastName: string | null;
  clientId: number | null;
  device: string | null;
}

export type ClientLookupJson =
  | {
      type: 'client';
      client: ClientDetailsJson;
      crmUrl: string;
      account: { balance: number | null; outstanding: number | null; currency: string | null };
      services: (ServiceJson & { plan: string | null; suspensionReason: string | null; price: number | null; currency: string | null; periodMonths: number | null; action: SuspensionAction | null })[];
      lastPayment: PaymentJson | null;
      sites: (SiteJson & { linkedBy: 'crm' | 'marker'; devices: DeviceStateJson[] })[];
      outages: OutageNote[];
      gaps: { part: CardGap; problem: string }[];
      activate: ActivationPrefillJson | null;
    }
  | { type: 'matches'; query: string; clients: ClientDetailsJson[] }
  | { type: 'none'; query: string };

export type DeviceLookupJson =
  | {
      type: 'device';
      device: DeviceStateJson;
      site: (SiteJson & { type: string | null }) | null;
      client: (ClientJson & { archived: boolean }) | { id: number; name: null; archived: boolean } | null;
      outages: OutageNote[];
      gaps: { part: CardGap; problem: string }[];
      activate: ActivationPrefillJson | null;
    }
  | { type: 'matches'; query: string; devices: DeviceStateJson[] }
  | { type: 'none'; query: string };

const clientDetailsJson = (c: ClientMatch): ClientDetailsJson => ({ id: c.id, name: c.name, archived: c.archived, address: c.address, email: c.email, phone: c.phone, userIdent: c.userIdent });

const prefillJson = (p: ActivationPrefill | null): ActivationPrefillJson | null =>
  p && { firstName: p.firstName ?? null, lastName: p.lastName ?? null, clientId: p.clientId ?? null, device: p.device ?? null };

export function deviceStateJson(d: DeviceLine): DeviceStateJson {
  return {
    ...deviceJson({ id: d.id, name: d.name, ip: d.ip, mac: d.mac, list: d.list, siteId: d.siteId, authorized: d.authorized, role: d.role }),
    model: d.model,
    role: d.role,
    status: d.status,
    online: d.online,
    signal: d.signal,
    uptimeSeconds: d.uptimeSeconds,
    lastSeen: d.lastSeen,
  };
}

export function clientLookupJson(lookup: ClientLookup, methods: PaymentMethod[]): ClientLookupJson {
  if (lookup.kind === 'matches') return { type: 'matches', query: lookup.query, clients: lookup.matches.map(clientDetailsJson) };
  if (lookup.kind === 'none') return { type: 'none', query: lookup.query };
  const { card } = lookup;
  return {
    type: 'client',
    client: clientDetailsJson(card.client),
    crmUrl: card.crmUrl,
    account: card.account,
    services: card.services.map((s) => ({
      id: s.id,
      clientId: card.client.id,
      name: s.name,
      status: s.status,
      statusLabel: s.statusLabel,
      plan: s.plan,
      suspensionReason: s.suspensionReason,
      price: s.price,
      currency: s.currency,
      periodMonths: s.periodMonths,
      action: s.action,
    })),
    lastPayment: card.lastPayment && paymentJson(card.lastPayment, methods),
    sites: card.sites.map((s) => ({ id: s.id, name: s.name, linkedBy: s.linkedBy, devices: s.devices.map(deviceStateJson) })),
    outages: card.outages,
    gaps: card.gaps,
    activate: prefillJson(card.activate),
  };
}

export function deviceLookupJson(lookup: DeviceLookup): DeviceLookupJson {
  if (lookup.kind === 'matches') return { type: 'matches', query: lookup.query, devices: lookup.matches.map(deviceStateJson) };
  if (lookup.kind === 'none') return { type: 'none', query: lookup.query };
  const { card } = lookup;
  return { type: 'device', device: deviceStateJson(card.device), site: card.site, client: card.client, outages: card.outages, gaps: card.gaps, activate: prefillJson(card.activate) };
}

// ---------- digest ----------

/** `digest --json`: the day's digest as the services build it, and whether it is a quiet day. */
export type DigestJson = { type: 'digest' } & Digest & { quiet: boolean };

export function digestJson(digest: Digest): DigestJson {
  return { type: 'digest', ...digest, quiet: isQuiet(digest) };
}

// ---------- outages ----------

/** `subops outages --json`: one per outage in progress, with every customer it affects. */
export type OutageJson = { type: 'outage' } & Omit<OutageInProgress, 'affected'> & { affectedCount: number; affected: AffectedCustomer[] };

export const outageJson = ({ affected, ...outage }: OutageInProgress): OutageJson => ({ type: 'outage', ...outage, affectedCount: affected.length, affected });

// ---------- errors (every command) ----------

/** One thing wrong: the flag, argument or setting it is about (null when none), and what is wrong. */
export interface ProblemJson {
  field: string | null;
  message: string;
}

/**
 * What `--json` prints when a command stops without its own object: bad input or configuration (exit
 * 2), a confirmation not given (exit 1), a failure (exit 1). `field` and `message` are the first
 * problem's; `problems` lists every one (several flags can be wrong at once).
 */
export interface ErrorJson {
  type: 'error';
  field: string | null;
  message: string;
  problems: ProblemJson[];
}

export function errorJson(problems: [ProblemJson, ...ProblemJson[]]): ErrorJson {
  const [first] = problems;
  return { type: 'error', field: first.field, message: first.message, problems };
}

// ---------- every object ----------

/**
 * One object as a line of output. While the embedded simulator stands in for UISP (--simulator,
 * SUBOPS_SIMULATOR=1), every object says so with `"simulated": true`, whatever else it is: a script can
 * never take a simulated answer for UISP's.
 */
export function jsonLine(io: Pick<CliIo, 'env'>, value: object): string {
  return JSON.stringify(simulatorRequested(io.env) ? { ...value, simulated: true } : value);
}
