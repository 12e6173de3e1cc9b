/**
 * The daily digest as data: what happened on one calendar day of ISP_TIMEZONE, from UISP (payments, the
 * sites still awaiting the manual CRM link, the outages) and from the audit channel's metadata (activations,
 * suspensions, lifts, late duplicates). Pure: the reader (./read.ts) gathers the inputs, each front end
 * words the result (src/views/digest.ts, the CLI).
 */
import { z } from 'zod';
import type { OutagesOfDay } from '../outages.js';
import type { Payment, PaymentMethod } from '../uisp/schemas.js';

/**
 * One message SubOps wrote to the audit channel, as read back: an audit record (src/views/audit.ts's
 * metadata) or a late-duplicate notice (src/views/duplicates.ts's). The front end reading Slack names
 * the kind; the payload is checked here.
 */
export interface TrailMessage {
  /** Slack's ts: seconds since the epoch, when the message was posted. */
  ts: string;
  kind: 'audit' | 'late-duplicate' | 'uisp-change' | 'webhook-failed';
  payload: Record<string, unknown>;
}

export interface DigestActivity {
  /** Where the operation is shown (its Slack thread), when the record names one SubOps can vouch for. */
  permalink: string | null;
  /** The Slack user id, the CLI user's login, or UISP for a change made in UISP itself (its webhook notice). */
  actor: string;
  actorVia: 'slack' | 'cli' | 'uisp';
  /** The record's one sentence, as its front end worded it. */
  summary: string;
}

export interface DigestActivation extends DigestActivity {
  device: string;
  clientId: number | null;
}

export interface DigestSuspension extends DigestActivity {
  serviceId: number;
  clientId: number | null;
}

export interface CurrencyTotal {
  /** The CRM's currency code; null when the payment names none. */
  currency: string | null;
  count: number;
  total: number;
}

export interface MethodTotal extends CurrencyTotal {
  /** The method's name in the CRM, else its id; null for payments without a method. */
  method: string | null;
}

export interface AwaitingLink {
  siteId: string;
  siteName: string;
  clientId: number;
}

export interface LateDuplicateItem {
  record: string;
  clientId: number;
  keptId: string;
  lateIds: string[];
}

/** What the audit channel tells; null in a digest built without it (the CLI without Slack settings). */
export interface AuditParts {
  activations: { done: DigestActivation[]; failed: DigestActivation[] };
  suspensions: DigestSuspension[];
  lifts: DigestSuspension[];
  /** What SubOps found that a person has to look at. */
  lateDuplicates: LateDuplicateItem[];
  /** UISP webhook events SubOps could not process (UISP did not answer), not processed since. */
  failedWebhooks: FailedWebhook[];
}

export interface FailedWebhook {
  uuid: string;
  /** e.g. service.suspend, payment.add. */
  event: string;
}

export interface Digest {
  /** The calendar day, YYYY-MM-DD in `timeZone`. */
  date: string;
  timeZone: string;
  payments: { count: number; byCurrency: CurrencyTotal[]; byMethod: MethodTotal[] };
  /** Sites SubOps activated that nobody has linked to their CRM client yet (as UISP says now). */
  awaitingLink: AwaitingLink[];
  /** The day's outages (their count, time down and customer-minutes lost); null when the NMS has no GET /outages. */
  outages: OutagesOfDay | null;
  audit: AuditParts | null;
}

export interface DigestInputs {
  date: string;
  timeZone: string;
  /** The day's bounds in `timeZone` (src/services/dates.ts dayBoundsIn). */
  day: { start: Date; end: Date };
  /** Payments of a window covering the day; those outside it are left out here. */
  payments: readonly Payment[];
  methods: readonly PaymentMethod[];
  awaitingLink: readonly AwaitingLink[];
  outages: OutagesOfDay | null;
  /** Messages from the day's start on (later ones tell whether a failed activation was retried); null when not read. */
  trail: readonly TrailMessage[] | null;
}

const id = z.union([z.number(), z.string().regex(/^\d+$/).transform(Number)]);

/** An audit record's metadata, as far as the digest reads it; anything else in it is passed over. */
const AuditPayload = z.looseObject({
  action: z.string(),
  result: z.string(),
  ok: z.boolean(),
  actor: z.string(),
  actor_via: z.enum(['slack', 'cli']),
  summary: z.string().default(''),
  permalink: z.string().optional(),
  thread_channel: z.string().optional(),
  thread_ts: z.string().optional(),
  device: z.union([z.string(), z.number()]).transform(String).optional(),
  clientId: id.optional(),
  serviceId: id.optional(),
});
type AuditPayload = z.output<typeof AuditPayload>;

/** A UISP-change notice's metadata (src/views/uisp-changes.ts): suspensions and lifts made in UISP itself. */
const UispChangePayload = z.looseObject({ change: z.string(), uuid: z.string(), serviceId: id.optional(), clientId: id.optional() });
/** A failed webhook event's notice metadata (src/views/uisp-changes.ts). */
const WebhookFailedPayload = z.looseObject({ uuid: z.string(), event: z.string() });

const LateDuplicatePayload = z.looseObject({ record: z.string(), client_id: id, kept_id: z.union([z.string(), z.number()]).transform(String), late_ids: z.string() });

interface Audited {
  at: number;
  record: AuditPayload;
}

export function buildDigest({ date, timeZone, day, payments, methods, awaitingLink, outages, trail }: DigestInputs): Digest {
  const inDay = (at: number) => at >= day.start.getTime() && at < day.end.getTime();
  const dayPayments = payments.filter((payment) => inDay(Date.parse(payment.createdDate)));
  return {
    date,
    timeZone,
    payments: { count: dayPayments.length, byCurrency: totalsBy(dayPayments, () => null).map(({ method: _method, ...total }) => total), byMethod: totalsBy(dayPayments, methodNamer(methods)) },
    awaitingLink: [...awaitingLink].sort((a, b) => a.siteName.localeCompare(b.siteName)),
    outages,
    audit: trail && auditParts(trail, inDay),
  };
}

/** True when the day has nothing to tell: the digest is one line. */
export function isQuiet(digest: Digest): boolean {
  const audit = digest.audit;
  const nothingAudited = !audit || (!audit.activations.done.length && !audit.activations.failed.length && !audit.suspensions.length && !audit.lifts.length && !audit.lateDuplicates.length && !audit.failedWebhooks.length);
  return digest.payments.count === 0 && digest.awaitingLink.length === 0 && !digest.outages?.count && nothingAudited;
}

function auditParts(trail: readonly TrailMessage[], inDay: (at: number) => boolean): AuditParts {
  const audited: Audited[] = [];
  const lateDuplicates: LateDuplicateItem[] = [];
  const inUisp: { change: string; suspension: DigestSuspension }[] = [];
  const failures: { at: number; failed: FailedWebhook }[] = [];
  const processed: { at: number; uuid: string }[] = [];
  for (const message of [...trail].sort((a, b) => Number(a.ts) - Number(b.ts))) {
    const at = Number(message.ts) * 1000;
    if (message.kind === 'audit') {
      const record = AuditPayload.safeParse(message.payload);
      if (record.success) audited.push({ at, record: record.data });
    } else if (message.kind === 'uisp-change') {
      const notice = UispChangePayload.safeParse(message.payload);
      if (!notice.success) continue;
      processed.push({ at, uuid: notice.data.uuid });
      const { change, serviceId, clientId } = notice.data;
      if (inDay(at) && serviceId !== undefined) inUisp.push({ change, suspension: { permalink: null, actor: 'UISP', actorVia: 'uisp', summary: '', serviceId, clientId: clientId ?? null } });
    } else if (message.kind === 'webhook-failed') {
      const notice = WebhookFailedPayload.safeParse(message.payload);
      if (notice.success && inDay(at)) failures.push({ at, failed: notice.data });
    } else if (inDay(at)) {
      const notice = LateDuplicatePayload.safeParse(message.payload);
      if (notice.success) lateDuplicates.push({ record: notice.data.record, clientId: notice.data.client_id, keptId: notice.data.kept_id, lateIds: notice.data.late_ids.split(',').filter(Boolean) });
    }
  }
  // An event UISP sent again and SubOps then processed needs no one; one failed twice is listed once.
  const failedWebhooks = [...new Map(failures.filter(({ at, failed }) => !processed.some((p) => p.uuid === failed.uuid && p.at > at)).map(({ failed }) => [failed.uuid, failed])).values()];
  const day = audited.filter(({ at }) => inDay(at));
  const activations = day.filter(({ record }) => record.action === 'activate');
  const ofDay = (action: string, result: string) => day.filter(({ record }) => record.action === action && record.result === result).map(({ record }) => suspension(record)).filter((s) => s !== null);
  return {
    activations: {
      done: activations.filter(({ record }) => record.result === 'activated').map(({ record }) => activation(record)),
      failed: activations.filter((failed) => !failed.record.ok && !retriedAfter(failed, audited)).map(({ record }) => activation(record)),
    },
    suspensions: [...ofDay('suspend', 'suspended'), ...inUisp.filter((c) => c.change === 'service-suspended').map((c) => c.suspension)],
    lifts: [...ofDay('unsuspend', 'unsuspended'), ...inUisp.filter((c) => c.change === 'service-unsuspended').map((c) => c.suspension)],
    lateDuplicates,
    failedWebhooks,
  };
}

/**
 * A failed activation is tried again by Retry (which continues its thread) or by a new /activate of the
 * same device: any later activation record of either counts, whatever came of it (a failed retry is
 * listed itself).
 */
function retriedAfter(failed: Audited, audited: readonly Audited[]): boolean {
  const { record } = failed;
  return audited.some(
    (later) =>
      later.at > failed.at &&
      later.record.action === 'activate' &&
      ((record.thread_ts !== undefined && later.record.thread_ts === record.thread_ts && later.record.thread_channel === record.thread_channel) || (record.device !== undefined && later.record.device === record.device)),
  );
}

function activity(record: AuditPayload): DigestActivity {
  return { permalink: record.permalink ?? null, actor: record.actor, actorVia: record.actor_via, summary: record.summary };
}

function activation(record: AuditPayload): DigestActivation {
  return { ...activity(record), device: record.device ?? '?', clientId: record.clientId ?? null };
}

function suspension(record: AuditPayload): DigestSuspension | null {
  return record.serviceId === undefined ? null : { ...activity(record), serviceId: record.serviceId, clientId: record.clientId ?? null };
}

function methodNamer(methods: readonly PaymentMethod[]): (payment: Payment) => string | null {
  const names = new Map(methods.map((method) => [method.id, method.name]));
  return (payment) => (payment.methodId ? (names.get(payment.methodId) ?? payment.methodId) : null);
}

/** Count and total per currency (and per method with `methodOf`), summed in cents, largest count first. */
function totalsBy(payments: readonly Payment[], methodOf: (payment: Payment) => string | null): MethodTotal[] {
  const groups = new Map<string, MethodTotal>();
  for (const payment of payments) {
    const method = methodOf(payment);
    const currency = payment.currencyCode ?? null;
    const key = JSON.stringify([method, currency]);
    const group = groups.get(key) ?? { method, currency, count: 0, total: 0 };
    group.count++;
    group.total = Math.round(group.total * 100 + payment.amount * 100) / 100;
    groups.set(key, group);
  }
  return [...groups.values()].sort((a, b) => b.count - a.count || String(a.method).localeCompare(String(b.method)) || String(a.currency).localeCompare(String(b.currency)));
}
