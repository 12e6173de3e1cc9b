/**
 * No audit record lost when Slack does not answer or the process stops: the audit channel's sink writes
 * each record to the store's outbox first, then posts what waits, in order, oldest first, by one process
 * at a time (a claim held, and renewed, while it drains: a slow Slack never hands the outbox to a second
 * drainer that would post the same record). It drains whenever a record joins, every `retryMs`, and at
 * start (what a CLI process, a stopped replica or a killed process left). A record is taken out only
 * once Slack has it; a process killed between the post and that leaves it to be posted again.
 *
 * The store is storage, not authority: whoever holds DATABASE_URL, or can write the embedded store's
 * files, can add or rewrite rows. So a record counts as the bot's own (`MadeHere`) only when the bot made
 * it: remembered in this process's memory with where it waits and exactly what it stored, or carrying the
 * voucher the bot's process that made it added (an HMAC keyed from the bot's secret over exactly that
 * record, its id and when it was made: another replica's records, or those a restarted bot left, stay
 * its own; a rewritten one does not). Any other row — the CLI's, one inserted or rewritten — is read back
 * as data: checked against the audit record's schema (src/services/audit-schema.ts) and posted as what it
 * is. A row that is not a record is set aside (taken out with a log line and counted), never holding up
 * those after it.
 */
import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type { Logger } from 'pino';
import type { AuditRecord, AuditSink } from '../services/audit.js';
import { canonicalJson } from './keyed-mac.js';
import type { Facts, RecordSeal } from './record-seal.js';
import { storedAuditRecord } from '../services/audit-schema.js';
import type { AuditOutbox, ClaimLedger, WaitingRecord } from '../store/index.js';
import { keepRenewed, timerRenewals } from '../services/shared-locks.js';
import { errorSummary } from './errors.js';

/** This process made the record: when, and the id its message carries (one record, one message identity). */
export interface MadeHere {
  at: number;
  id: string;
}

export interface OutboxSinkOptions {
  /**
   * Posts one record to the audit channel; throws when Slack does not take it. `made` when this process
   * made the record and the store holds it unchanged; undefined for any other row (data read back).
   */
  post: (record: AuditRecord, made: MadeHere | undefined) => Promise<void>;
  outbox: AuditOutbox;
  claims: ClaimLedger;
  logger: Logger;
  now?: () => number;
  /** Renews the drain's claim while it drains (default a timer; tests tick their own). */
  renewals?: (everyMs: number, renew: () => Promise<void>) => () => void;
  /** Told of each row set aside (the metric). */
  onSetAside?: () => void;
  /** The bot's seal: each record it stores carries a voucher, so any of its processes posts it as the bot's. */
  seal?: RecordSeal | undefined;
}

export interface OutboxSink extends AuditSink {
  /** Posts what waits, in order, until none does or Slack fails again; how many it posted. */
  drain(): Promise<number>;
  /** How many records wait (for /healthz and the metric). */
  waiting(): Promise<number>;
}

/** Held while one process drains the outbox; a process that died draining leaves it after this. */
const DRAIN_HOLD_MS = 60_000;

/** Records of this process remembered while they wait; past this many the oldest is posted as data (Slack down for long). */
const REMEMBERED = 10_000;

/** How much of a row set aside its log line keeps. */
const SET_ASIDE_LOGGED_CHARS = 2_000;

/** The value as JSON gives it back (no undefined fields, plain objects): what any engine hands back for it. */
const asStored = (value: unknown): unknown => JSON.parse(JSON.stringify(value) ?? 'null');

const VOUCHER_FIELD = 'voucher';
const VOUCHER_EVENT = 'subops.audit_outbox.v1';

/** The bot's voucher on a record it stores, made when it made the record: over exactly that record, its id and when. */
function vouchFor(seal: RecordSeal, record: AuditRecord, made: MadeHere): Record<string, unknown> {
  // The record itself is not kept twice: the voucher holds the id, the time and the MAC.
  const { record: _signed, ...voucher } = seal.seal(VOUCHER_EVENT, { record: canonicalJson(asStored(record)), record_id: made.id }, made.at);
  return { ...record, [VOUCHER_FIELD]: voucher };
}

/** The record a row holds and when and as what the bot made it, when its voucher verifies; undefined otherwise. */
function vouched(seal: RecordSeal | undefined, row: unknown): { record: AuditRecord; made: MadeHere } | undefined {
  if (!seal || !row || typeof row !== 'object' || !(VOUCHER_FIELD in row)) return undefined;
  const { [VOUCHER_FIELD]: voucher, ...record } = row as Record<string, unknown>;
  if (!voucher || typeof voucher !== 'object') return undefined;
  const { record_id: id, ...stamp } = voucher as Facts;
  if (typeof id !== 'string') return undefined;
  const at = seal.verify(VOUCHER_EVENT, { ...stamp, record: canonicalJson(record), record_id: id });
  return at === undefined ? undefined : { record: record as unknown as AuditRecord, made: { at, id } };
}

/** The records this process added to the outbox, by where they wait, with exactly what it stored. */
class RecordsMadeHere {
  private readonly waiting = new Map<number, { record: AuditRecord; stored: unknown; made: MadeHere }>();
  private readonly adding = new Set<Promise<unknown>>();

  /** Adds the record to the outbox and remembers it. */
  async add(outbox: AuditOutbox, record: AuditRecord, made: MadeHere, seal: RecordSeal | undefined): Promise<void> {
    const adding = outbox.add(seal ? vouchFor(seal, record, made) : record, made.at).then((seq) => {
      this.waiting.set(seq, { record, stored: asStored(record), made });
      if (this.waiting.size > REMEMBERED) this.waiting.delete(this.waiting.keys().next().value!);
    });
    this.adding.add(adding);
    try {
      await adding;
    } finally {
      this.adding.delete(adding);
    }
  }

  /** The record this process made, when the row is one of them and the store holds it unchanged. */
  async find(row: WaitingRecord): Promise<{ record: AuditRecord; made: MadeHere } | undefined> {
    // A row this process is still adding: known once its add returns.
    if (!this.waiting.has(row.seq)) await Promise.allSettled([...this.adding]);
    const mine = this.waiting.get(row.seq);
    if (!mine || !row.record || typeof row.record !== 'object') return undefined;
    const { [VOUCHER_FIELD]: _voucher, ...stored } = row.record as Record<string, unknown>;
    return isDeepStrictEqual(asStored(stored), mine.stored) ? mine : undefined;
  }

  forget(seq: number): void {
    this.waiting.delete(seq);
  }
}

export function outboxSink({ post, outbox, claims, logger, now = Date.now, renewals = timerRenewals, onSetAside, seal }: OutboxSinkOptions): OutboxSink {
  const log = logger.child({ flow: 'audit-outbox' });
  const madeHere = new RecordsMadeHere();

  /** The row's record, or undefined once it is set aside. */
  const readBack = async (row: WaitingRecord): Promise<AuditRecord | undefined> => {
    const stored = storedAuditRecord(row.record);
    if ('record' in stored) return stored.record;
    log.warn({ seq: row.seq, problems: stored.problems, row: String(JSON.stringify(row.record)).slice(0, SET_ASIDE_LOGGED_CHARS) }, 'a row of the audit outbox is not an audit record: set aside (taken out, not posted); the row is in this line');
    await outbox.remove(row.seq);
    madeHere.forget(row.seq);
    onSetAside?.();
    return undefined;
  };

  const sink: OutboxSink = {
    name: 'slack',
    async write(record) {
      const made = { at: now(), id: randomUUID() };
      // In the store before it is posted, behind what already waits: the channel shows the records in the
      // order they were made, and a process stopped meanwhile leaves it to the next drain.
      try {
        await madeHere.add(outbox, record, made, seal);
      } catch (error) {
        // A store that cannot keep it: posted at once (a failure the Auditor logs, with the record).
        log.warn({ err: errorSummary(error), action: record.action }, 'the store did not keep an audit record; it is posted without it');
        await post(record, made);
        return;
      }
      await sink.drain();
    },
    async drain() {
      const turn = await claims.claim('audit-outbox:drain', { holdMs: DRAIN_HOLD_MS });
      if (!turn.won) return 0;
      const renewing = keepRenewed(turn.claim, DRAIN_HOLD_MS, renewals);
      let posted = 0;
      let emptied = false;
      try {
        for (;;) {
          const [next] = await outbox.oldest(1);
          if (!next) {
            emptied = true;
            break;
          }
          // Still this process's turn right before each post: one that lost it stops, and posts nothing twice.
          if (!(await turn.claim.held())) {
            log.warn('another SubOps process took over the audit records that wait; this one stops posting them');
            break;
          }
          const mine = (await madeHere.find(next)) ?? vouched(seal, next.record);
          const record = mine?.record ?? (await readBack(next));
          if (!record) continue;
          try {
            await post(record, mine?.made);
          } catch (error) {
            log.warn({ err: errorSummary(error), waiting: await outbox.count() }, 'an audit record was kept in the store: it is posted to the audit channel, in order, when Slack takes it');
            break;
          }
          await outbox.remove(next.seq);
          madeHere.forget(next.seq);
          posted++;
        }
      } finally {
        renewing.stop();
        await turn.claim.release();
      }
      if (posted) log.info({ posted }, 'posted audit records that were waiting');
      // A record added after the last look, whose writer found the turn still held here, is not left for the next timer.
      if (emptied && (await outbox.count()) > 0) return posted + (await sink.drain());
      return posted;
    },
    waiting: () => outbox.count(),
  };
  return sink;
}

/** Drains the outbox now (what a CLI process or a stopped replica left) and every `intervalMs`, as counted work. */
export function startOutboxDrain(sink: OutboxSink, work: { run(operation: () => Promise<void>): Promise<void> }, logger: Logger, intervalMs: number): { stop(): void } {
  const run = () =>
    void work
      .run(async () => {
        await sink.drain();
      })
      .catch((error: unknown) => logger.warn({ err: errorSummary(error) }, 'could not post the audit records waiting in the store; trying again later'));
  const timer = setInterval(run, intervalMs);
  timer.unref();
  run();
  return { stop: () => clearInterval(timer) };
}
