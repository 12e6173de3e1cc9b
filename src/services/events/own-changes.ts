/**
 * SubOps' own recent writes to the CRM, as the webhook events they cause: (entity, id, change type).
 * The UISP HTTP core reports every request to this observer, so every write is noted whatever asked
 * for it (Slack, the CLI command of this process), with no change to the services that write. A webhook
 * about a change found here is SubOps' own, already reported where it was made, and is not posted again.
 *
 * Writes still in flight are waited for before answering: UISP may send the webhook before our
 * POST's answer (with the new record's id) has been read. Memory only, per process, for `ttlMs`.
 */
import type { UispExchange, UispExchangeOutcome, UispObserver } from '../uisp/exchange.js';

export interface ChangeRef {
  /** The CRM's webhook entity name: client, service, payment. */
  entity: string;
  id: number;
  /** The CRM's webhook change type: insert, edit, delete, archive, suspend, unsuspend, end. */
  changeType: string;
}

const CRM_PREFIX = '/crm/api/v1.0';

/** The change a successful CRM write makes, in webhook terms; undefined for anything else. */
export function changeOfWrite(method: string, path: string, body: unknown): ChangeRef | undefined {
  if (!path.startsWith(`${CRM_PREFIX}/`)) return undefined;
  const segments = path.slice(CRM_PREFIX.length + 1).split('/');
  const createdId = typeof (body as { id?: unknown } | null)?.id === 'number' ? (body as { id: number }).id : undefined;
  const [first, second, third, fourth] = segments;
  const id = (value: string | undefined) => (value && /^\d+$/.test(value) ? Number(value) : undefined);
  const ref = (entity: string, changeId: number | undefined, changeType: string) => (changeId === undefined ? undefined : { entity, id: changeId, changeType });

  if (first === 'clients' && second === 'services') {
    const serviceId = id(third);
    if (fourth === undefined) return method === 'DELETE' ? ref('service', serviceId, 'delete') : method === 'PATCH' ? ref('service', serviceId, 'edit') : undefined;
    const actions: Record<string, string> = { suspend: 'suspend', 'cancel-suspend': 'unsuspend', end: 'end' };
    return method === 'PATCH' && actions[fourth] ? ref('service', serviceId, actions[fourth]) : undefined;
  }
  if (first === 'clients') {
    if (second === undefined) return method === 'POST' ? ref('client', createdId, 'insert') : undefined;
    if (third === 'services') return method === 'POST' ? ref('service', createdId, 'insert') : undefined;
    if (third === 'archive') return method === 'PATCH' ? ref('client', id(second), 'archive') : undefined;
    if (third === undefined && method === 'PATCH') return ref('client', id(second), 'edit');
    return undefined;
  }
  if (first === 'payments' && second === undefined && method === 'POST') return ref('payment', createdId, 'insert');
  return undefined;
}

/** A service SubOps created Active is "activated" in UISP's words too. */
const SAME_CHANGE: Record<string, string[]> = { activate: ['insert'] };

export interface OwnChangesOptions {
  ttlMs?: number;
  now?: () => number;
}

export class OwnChanges implements UispObserver {
  private readonly made = new Map<string, number>();
  private readonly inFlight = new Set<Promise<void>>();
  private readonly ttlMs: number;
  private readonly now: () => number;

  constructor({ ttlMs = 15 * 60_000, now = Date.now }: OwnChangesOptions = {}) {
    this.ttlMs = ttlMs;
    this.now = now;
  }

  request(exchange: UispExchange): (outcome: UispExchangeOutcome) => void {
    if (exchange.system !== 'crm' || exchange.method === 'GET') return () => undefined;
    let settle!: () => void;
    const done = new Promise<void>((resolve) => (settle = resolve));
    this.inFlight.add(done);
    return (outcome) => {
      // No answer (timeout, reset) or a 5xx may still have applied: a webhook about it is ours too.
      const mayHaveApplied = outcome.status === '2xx' || outcome.status === 'none' || outcome.status.startsWith('5');
      const change = mayHaveApplied ? changeOfWrite(exchange.method, exchange.path, outcome.body) : undefined;
      if (change) this.note(change);
      this.inFlight.delete(done);
      settle();
    };
  }

  /** Records a change SubOps made. */
  note(change: ChangeRef): void {
    this.forgetExpired();
    const key = keyOf(change);
    // Re-inserted at the end, so the map stays in time order.
    this.made.delete(key);
    this.made.set(key, this.now());
  }

  /** True when SubOps itself made this change recently; waits for SubOps' writes in flight first. */
  async madeBySubOps(change: ChangeRef): Promise<boolean> {
    await Promise.all(this.inFlight);
    this.forgetExpired();
    return [change.changeType, ...(SAME_CHANGE[change.changeType] ?? [])].some((changeType) => this.made.has(keyOf({ ...change, changeType })));
  }

  private forgetExpired(): void {
    const oldest = this.now() - this.ttlMs;
    for (const [key, at] of this.made) {
      if (at > oldest) break;
      this.made.delete(key);
    }
  }
}

const keyOf = (change: ChangeRef) => `${change.entity}:${change.id}:${change.changeType}`;

/**
 * Another way to know a change is SubOps' own: its audit record, written by another SubOps process (a
 * CLI run, another bot replica) where this one can read it (the Slack side reads the audit channel).
 */
export type RecordedElsewhere = (change: ChangeRef) => Promise<boolean>;

/**
 * How far apart an audit record and the change it explains may be: the record is written just after
 * SubOps' write (the CLI at once; the Slack app once the operation's thread is delivered), and the
 * webhook about it is processed seconds after the write. A record further from the change is about
 * another change of the same record.
 */
export const OWN_CHANGE_WINDOW_MS = 5 * 60_000;

/**
 * The result of each action's record when its write changed the CRM (src/services/audit-records.ts).
 * Anything else changed nothing a webhook reports: already-activated, already-suspended, not-suspended,
 * already-recorded, refused, failed.
 */
const CHANGED: Record<string, string> = { activate: 'activated', suspend: 'suspended', unsuspend: 'unsuspended', payment: 'recorded' };

/** An audit record's facts, flat, as its message metadata carries them (src/views/audit.ts). */
export type AuditFacts = { action?: unknown; result?: unknown; ok?: unknown; [target: string]: unknown };

/**
 * True when this audit record explains the change: a write that happened (ok, and a result that
 * changed something) of the same action on the same record, written within OWN_CHANGE_WINDOW_MS of the
 * change. Times in ms since the epoch: `recordedAt` the audit message's ts, `changedAt` the change's.
 */
export function auditRecordMakes(record: AuditFacts, change: ChangeRef, { recordedAt, changedAt }: { recordedAt: number; changedAt: number }): boolean {
  if (record.ok !== true || typeof record.action !== 'string' || record.result !== CHANGED[record.action]) return false;
  if (!(Math.abs(recordedAt - changedAt) <= OWN_CHANGE_WINDOW_MS)) return false;
  const is = (action: string, target: string) => record.action === action && Number(record[target]) === change.id;
  switch (`${change.entity}:${change.changeType}`) {
    case 'service:suspend':
      return is('suspend', 'serviceId');
    case 'service:unsuspend':
      return is('unsuspend', 'serviceId');
    case 'service:insert':
    case 'service:activate':
      return is('activate', 'serviceId');
    case 'client:insert':
      return is('activate', 'clientId');
    case 'payment:insert':
      return is('payment', 'paymentId');
    default:
      return false;
  }
}
