/**
 * No audit record lost when Slack does not answer: the audit channel's sink posts a record at once when
 * nothing is waiting, and otherwise (or when the post fails: Slack down, rate limited, the bot not in the
 * channel) keeps it in the store's outbox. The outbox is posted in order, oldest first, by one process at
 * a time (a claim held while it drains), whenever a record joins it, every `retryMs`, and at start (what a
 * CLI process or a stopped replica left). A record is taken out only once Slack has it.
 */
import type { Logger } from 'pino';
import type { AuditRecord, AuditSink } from '../services/audit.js';
import type { AuditOutbox, ClaimLedger } from '../store/index.js';
import { errorSummary } from './errors.js';

export interface OutboxSinkOptions {
  /** Posts one record to the audit channel; throws when Slack does not take it. */
  post: (record: AuditRecord) => Promise<void>;
  outbox: AuditOutbox;
  claims: ClaimLedger;
  logger: Logger;
  /** Counts a drain started by a write as work in flight (the SIGTERM drain, tests' idle()). */
  work: { run(operation: () => Promise<void>): Promise<void> };
  now?: () => number;
}

export interface OutboxSink extends AuditSink {
  /** Posts what waits, in order, until none does or Slack fails again; how many it posted. */
  drain(): Promise<number>;
  /** How many records wait (for /healthz and the metric). */
  waiting(): Promise<number>;
}

/** Held while one process drains the outbox; a process that died draining leaves it after this. */
const DRAIN_HOLD_MS = 60_000;

export function outboxSink({ post, outbox, claims, logger, work, now = Date.now }: OutboxSinkOptions): OutboxSink {
  const log = logger.child({ flow: 'audit-outbox' });
  const keep = async (record: AuditRecord, why: string) => {
    await outbox.add(record, now());
    log.warn({ action: record.action, why }, 'an audit record was kept in the store: it is posted to the audit channel, in order, when Slack takes it');
  };

  const sink: OutboxSink = {
    name: 'slack',
    async write(record) {
      // Behind what already waits, so the channel shows the records in the order they were made.
      if ((await outbox.count().catch(() => 0)) > 0) {
        await keep(record, 'earlier records are waiting');
        void work.run(async () => void (await sink.drain())).catch(() => undefined);
        return;
      }
      try {
        await post(record);
      } catch (error) {
        // A store that cannot keep it either: the Auditor logs the failure (the log line has the record).
        await keep(record, errorSummary(error).slackError ?? errorSummary(error).message);
      }
    },
    async drain() {
      const turn = await claims.claim('audit-outbox:drain', { holdMs: DRAIN_HOLD_MS });
      if (!turn.won) return 0;
      let posted = 0;
      try {
        for (;;) {
          const [next] = await outbox.oldest(1);
          if (!next) break;
          try {
            await post(next.record as AuditRecord);
          } catch (error) {
            log.warn({ err: errorSummary(error), waiting: await outbox.count() }, 'Slack still does not take the audit records that wait; trying again later');
            break;
          }
          await outbox.remove(next.seq);
          posted++;
        }
      } finally {
        await turn.claim.release();
      }
      if (posted) log.info({ posted }, 'posted audit records that were waiting');
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
