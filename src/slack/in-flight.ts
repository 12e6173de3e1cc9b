/**
 * Work in flight survives a hard stop (issue #28 §4): an operation whose thread is in Slack is recorded in
 * the store while it runs, with what its thread is told if it is left unfinished: a notice, a kind and ids
 * (./stop-notices.ts), checked by the process that records it (./operation-check.ts). Its process renews
 * the lease every `renewMs` and deletes the row when the operation ends. A process that stops hard leaves
 * the row behind; when its lease has run out, the next process to sweep (at start, then every `renewMs`)
 * rebuilds the message from SubOps' own views and posts it in the row's thread, so no thread is left
 * mid-way in silence.
 *
 * The store is storage, not authority (issue #37 §4): a row is posted only when it parses and its check
 * verifies, so its thread and its notice are the ones SubOps recorded for that operation. Any other row is
 * set aside (removed, logged, counted), never posted, and the rows behind it are still told in that sweep.
 */
import { randomUUID } from 'node:crypto';
import type { webApi } from '@slack/bolt';
import type { Logger } from 'pino';
import { z } from 'zod';
import type { OperationLog, OperationRow, RunIntent } from '../store/index.js';
import { errorSummary } from './errors.js';
import type { OperationCheck } from './operation-check.js';
import { SlackIdSchema, stopMessage, StopNoticeSchema, type StopNotice } from './stop-notices.js';

export interface InFlightOptions {
  operations: OperationLog;
  client: webApi.WebClient;
  logger: Logger;
  /** SubOps' check on the rows it records, keyed from the bot's secret. */
  check: OperationCheck;
  /** Told of each row set aside (the metrics count them). */
  onSetAside?: () => void;
  /** How long a process may go silent before its operations count as abandoned. Default 2 minutes. */
  leaseMs?: number;
  now?: () => number;
}

/** An operation recorded as in flight: end it when it is done (or has said why not). */
export interface InFlightOperation {
  end(): Promise<void>;
}

/** Operations taken over in one batch at most. */
const SWEEP_LIMIT = 50;

/** A row as SubOps records it: its thread, and in `ifStopped` the notice with its check. */
const RecordedSchema = z.object({
  id: z.string().min(1).max(64),
  channel: SlackIdSchema,
  threadTs: z.string().regex(/^\d{1,12}\.\d{1,9}$/),
  startedAt: z.number().int(),
  ifStopped: z.object({ notice: StopNoticeSchema, check: z.string().max(100) }),
});

type Validated = { ok: true; notice: StopNotice } | { ok: false; problem: string };

export class InFlightOperations {
  private readonly leaseMs: number;
  private readonly log: Logger;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly options: InFlightOptions) {
    this.leaseMs = options.leaseMs ?? 120_000;
    this.log = options.logger.child({ flow: 'in-flight' });
  }

  /** Records the operation shown in this thread; a store that does not answer leaves it unrecorded (logged), never stops it. */
  async begin(thread: { channel: string; ts: string }, ifStopped: StopNotice): Promise<InFlightOperation> {
    const intent = this.intent(thread, ifStopped);
    try {
      await this.options.operations.begin(intent.operation, intent.leaseMs);
    } catch (error) {
      this.log.warn({ err: errorSummary(error), thread }, 'could not record an operation in flight in the store: if this process stops hard, its thread will not say so');
      return { end: async () => undefined };
    }
    return this.recorded(intent);
  }

  /** The record of an operation about to start, checked now, for the store to keep (with the decision that starts it, for an approval). */
  intent(thread: { channel: string; ts: string }, notice: StopNotice): RunIntent {
    const place = { id: randomUUID(), channel: thread.channel, threadTs: thread.ts, startedAt: (this.options.now ?? Date.now)() };
    return { operation: { ...place, ifStopped: { notice, check: this.options.check.make({ ...place, notice }) } }, leaseMs: this.leaseMs };
  }

  /** An operation the store recorded (by `begin`, or with its approval): end it when it is done. */
  recorded({ operation: { id } }: RunIntent): InFlightOperation {
    return {
      end: async () => {
        await this.options.operations.end(id).catch((error: unknown) => this.log.warn({ err: errorSummary(error), id }, 'could not mark an operation as ended in the store'));
      },
    };
  }

  /** Posts the stop message in the thread of each operation a stopped process left; how many it posted. */
  async sweep(): Promise<number> {
    let told = 0;
    for (;;) {
      const abandoned = await this.options.operations.takeAbandoned(this.leaseMs, SWEEP_LIMIT);
      let setAside = 0;
      for (const operation of abandoned) {
        const validated = this.validate(operation);
        if (!validated.ok) {
          await this.setAside(operation, validated.problem);
          setAside++;
        } else if (await this.tell(operation, validated.notice)) told++;
      }
      // Rows set aside are gone: the ones behind them are taken in this sweep too, however many there were.
      if (abandoned.length < SWEEP_LIMIT || !setAside) break;
    }
    if (told) this.log.warn({ told }, 'operations left unfinished by a SubOps process that stopped: their threads say so now');
    return told;
  }

  /** The row's notice, when the row is one SubOps recorded as it stands: its shape, then its check. */
  private validate(operation: OperationRow): Validated {
    const parsed = RecordedSchema.safeParse(operation);
    if (!parsed.success) return { ok: false, problem: 'it is not an operation as SubOps records one' };
    const { id, channel, threadTs, startedAt, ifStopped } = parsed.data;
    if (!this.options.check.verifies({ id, channel, threadTs, startedAt, notice: ifStopped.notice }, ifStopped.check)) {
      return { ok: false, problem: 'its check does not verify: SubOps did not record it as it stands (or recorded it under another SLACK_SIGNING_SECRET or SLACK_APP_TOKEN)' };
    }
    return { ok: true, notice: ifStopped.notice };
  }

  private async tell(operation: OperationRow, notice: StopNotice): Promise<boolean> {
    try {
      await this.options.client.chat.postMessage({ channel: operation.channel, thread_ts: operation.threadTs, ...stopMessage(notice), unfurl_links: false });
      await this.options.operations.end(operation.id);
      return true;
    } catch (error) {
      this.log.warn({ err: errorSummary(error), channel: operation.channel, thread: operation.threadTs }, 'could not say in its thread that an operation stopped; the next sweep tries again');
      await this.options.operations.giveUp(operation.id).catch(() => undefined);
      return false;
    }
  }

  /** Out of the store, with a line saying which row and why: nothing of it is posted. */
  private async setAside(operation: OperationRow, problem: string): Promise<void> {
    this.log.warn({ id: String(operation.id).slice(0, 64) }, `an operation in flight in the store was set aside, nothing posted: ${problem}`);
    this.options.onSetAside?.();
    await this.options.operations.end(operation.id).catch((error: unknown) => this.log.warn({ err: errorSummary(error) }, 'could not remove an operation set aside from the store; the next sweep sets it aside again'));
  }

  /** Renews this process's leases and sweeps now and every `intervalMs`, as counted work. */
  start(intervalMs: number, work: { run(operation: () => Promise<void>): Promise<void> }): void {
    const tick = () =>
      void work
        .run(async () => {
          await this.options.operations.renew(this.leaseMs);
          await this.sweep();
        })
        .catch((error: unknown) => this.log.warn({ err: errorSummary(error) }, 'could not renew or sweep the operations in flight; trying again later'));
    this.timer = setInterval(tick, intervalMs);
    this.timer.unref();
    tick();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }
}
