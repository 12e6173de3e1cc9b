/**
 * Work in flight survives a hard stop (issue #28 §4): an operation whose thread is in Slack is recorded in
 * the store while it runs, with what its thread should say if it is left unfinished (a view: for an
 * activation, that it stopped and a Retry that finishes what is missing). Its process renews the lease
 * every `renewMs` and deletes the row when the operation ends. A process that stops hard leaves the row
 * behind; when its lease has run out, the next process to sweep (at start, then every `renewMs`) posts
 * that message in the thread, so no thread is left mid-way in silence.
 */
import { randomUUID } from 'node:crypto';
import type { webApi } from '@slack/bolt';
import type { Logger } from 'pino';
import type { OperationLog, RunIntent } from '../store/index.js';
import type { SlackMessage } from '../views/kit.js';
import { errorSummary } from './errors.js';

export interface InFlightOptions {
  operations: OperationLog;
  client: webApi.WebClient;
  logger: Logger;
  /** How long a process may go silent before its operations count as abandoned. Default 2 minutes. */
  leaseMs?: number;
  now?: () => number;
}

/** An operation recorded as in flight: end it when it is done (or has said why not). */
export interface InFlightOperation {
  end(): Promise<void>;
}

/** Operations taken over in one sweep at most. */
const SWEEP_LIMIT = 50;

export class InFlightOperations {
  private readonly leaseMs: number;
  private readonly log: Logger;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly options: InFlightOptions) {
    this.leaseMs = options.leaseMs ?? 120_000;
    this.log = options.logger.child({ flow: 'in-flight' });
  }

  /** Records the operation shown in this thread; a store that does not answer leaves it unrecorded (logged), never stops it. */
  async begin(thread: { channel: string; ts: string }, ifStopped: SlackMessage): Promise<InFlightOperation> {
    const intent = this.intent(thread, ifStopped);
    try {
      await this.options.operations.begin(intent.operation, intent.leaseMs);
    } catch (error) {
      this.log.warn({ err: errorSummary(error), thread }, 'could not record an operation in flight in the store: if this process stops hard, its thread will not say so');
      return { end: async () => undefined };
    }
    return this.recorded(intent);
  }

  /** The record of an operation about to start, for the store to keep with the decision that starts it (an approval). */
  intent(thread: { channel: string; ts: string }, ifStopped: SlackMessage): RunIntent {
    return { operation: { id: randomUUID(), channel: thread.channel, threadTs: thread.ts, ifStopped, startedAt: (this.options.now ?? Date.now)() }, leaseMs: this.leaseMs };
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
    const abandoned = await this.options.operations.takeAbandoned(this.leaseMs, SWEEP_LIMIT);
    let told = 0;
    for (const operation of abandoned) {
      try {
        await this.options.client.chat.postMessage({ channel: operation.channel, thread_ts: operation.threadTs, ...(operation.ifStopped as SlackMessage), unfurl_links: false });
        await this.options.operations.end(operation.id);
        told++;
      } catch (error) {
        this.log.warn({ err: errorSummary(error), channel: operation.channel, thread: operation.threadTs }, 'could not say in its thread that an operation stopped; the next sweep tries again');
        await this.options.operations.giveUp(operation.id).catch(() => undefined);
      }
    }
    if (told) this.log.warn({ told }, 'operations left unfinished by a SubOps process that stopped: their threads say so now');
    return told;
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
