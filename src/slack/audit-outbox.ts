/**
 * No audit record lost when Slack does not answer or the process stops: the audit channel's sink writes
 * each record to the store's outbox first, then posts what waits, in order, oldest first, by one process
 * at a time (a claim held, and renewed, while it drains: a slow Slack never hands the outbox to a second
 * drainer that would post the same record). It drains whenever a record joins, every `retryMs`, and at
 * start (what a CLI process, a stopped replica or a killed process left). A record is taken out only
 * once Slack has it; a process killed between the post and that leaves it to be posted again.
 */
import type { Logger } from 'pino';
import type { AuditRecord, AuditSink } from '../services/audit.js';
import type { AuditOutbox, ClaimLedger } from '../store/index.js';
import { keepRenewed, timerRenewals } from '../services/shared-locks.js';
import { errorSummary } from './errors.js';

export interface OutboxSinkOptions {
  /** Posts one record to the audit channel; throws when Slack does not take it. */
  post: (record: AuditRecord) => Promise<void>;
  outbox: AuditOutbox;
  claims: ClaimLedger;
  logger: Logger;
  now?: () => number;
  /** Renews the drain's claim while it drains (default a timer; tests tick their own). */
  renewals?: (everyMs: number, renew: () => Promise<void>) => () => void;
}

export interface OutboxSink extends AuditSink {
  /** Posts what waits, in order, until none does or Slack fails again; how many it posted. */
  drain(): Promise<number>;
  /** How many records wait (for /healthz and the metric). */
  waiting(): Promise<number>;
}

/** Held while one process drains the outbox; a process that died draining leaves it after this. */
const DRAIN_HOLD_MS = 60_000;

export function outboxSink({ post, outbox, claims, logger, now = Date.now, renewals = timerRenewals }: OutboxSinkOptions): OutboxSink {
  const log = logger.child({ flow: 'audit-outbox' });

  const sink: OutboxSink = {
    name: 'slack',
    async write(record) {
      // In the store before it is posted, behind what already waits: the channel shows the records in the
      // order they were made, and a process stopped meanwhile leaves it to the next drain.
      try {
        await outbox.add(record, now());
      } catch (error) {
        // A store that cannot keep it: posted at once (a failure the Auditor logs, with the record).
        log.warn({ err: errorSummary(error), action: record.action }, 'the store did not keep an audit record; it is posted without it');
        await post(record);
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
          try {
            await post(next.record as AuditRecord);
          } catch (error) {
            log.warn({ err: errorSummary(error), waiting: await outbox.count() }, 'an audit record was kept in the store: it is posted to the audit channel, in order, when Slack takes it');
            break;
          }
          await outbox.remove(next.seq);
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
