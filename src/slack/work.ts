/**
 * The Slack app's work in flight: every delivery (command, submission, button, event) counts from the
 * moment it reaches the app until its listener has finished, including what runs after the ack (an
 * activation posting its last update). The same counter answers two questions:
 * - "is the app settled?" — tests, the playground and the demo wait on `idle()` instead of a quiet period;
 * - "may the process stop?" — on SIGTERM, `drain()` turns new work away politely and waits for the rest.
 */
import type { AnyMiddlewareArgs, Middleware } from '@slack/bolt';
import type { Logger } from 'pino';
import { restartingMessage, restartingModal } from '../views/process.js';

export class WorkTracker {
  private running = 0;
  private accepting = true;
  private waiters: (() => void)[] = [];

  /** Operations running now. */
  get inFlight(): number {
    return this.running;
  }

  /** False once a drain has started: new deliveries are turned away. */
  get acceptingWork(): boolean {
    return this.accepting;
  }

  async run<T>(operation: () => Promise<T>): Promise<T> {
    this.running += 1;
    try {
      return await operation();
    } finally {
      this.running -= 1;
      if (this.running === 0) for (const wake of this.waiters.splice(0)) wake();
    }
  }

  /** Resolves when nothing is running (at once if nothing is). */
  idle(): Promise<void> {
    return this.running === 0 ? Promise.resolve() : new Promise((resolve) => this.waiters.push(resolve));
  }

  /**
   * Stops accepting work and waits for what is running, for at most `graceMs`.
   * Resolves true when everything finished, false when the grace period ran out first.
   */
  async drain(graceMs: number): Promise<boolean> {
    this.accepting = false;
    let timer: NodeJS.Timeout | undefined;
    const graceOver = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), graceMs);
    });
    try {
      return await Promise.race([this.idle().then(() => true as const), graceOver]);
    } finally {
      clearTimeout(timer);
    }
  }
}

type Ack = (response?: unknown) => Promise<void>;
type Respond = (message: unknown) => Promise<unknown>;
interface DeliveryBody {
  type?: string;
  command?: string;
  response_url?: string;
}

/**
 * Global middleware, registered before every other one: counts each delivery as work, and while the
 * process drains answers new ones with "restarting, try again in a minute" without running anything.
 */
export function trackWork(work: WorkTracker, logger: Logger): Middleware<AnyMiddlewareArgs> {
  return async (args) => {
    if (work.acceptingWork) {
      await work.run(args.next);
      return;
    }
    const body = args.body as DeliveryBody;
    logger.info({ kind: body.type ?? 'slash_command', command: body.command }, 'turned away a request: SubOps is shutting down');
    const ack = 'ack' in args ? (args.ack as Ack) : undefined;
    if (body.type === 'view_submission') {
      // Pushed on top, so the agent's form and values are still there to submit again.
      await ack?.({ response_action: 'push', view: restartingModal() });
    } else if (body.type === 'block_actions') {
      await ack?.();
      if ('respond' in args && body.response_url) {
        await (args.respond as Respond)({ response_type: 'ephemeral', replace_original: false, ...restartingMessage() }).catch((error: unknown) => {
          logger.warn({ err: error instanceof Error ? error.message : String(error) }, 'could not tell the agent SubOps is restarting');
        });
      }
    } else if (body.command) {
      await ack?.({ response_type: 'ephemeral', ...restartingMessage() });
    } else {
      await ack?.();
    }
  };
}
