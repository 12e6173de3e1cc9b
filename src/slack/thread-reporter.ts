/**
 * The one way an operation reaches Slack: a parent message, threaded replies in order, the parent
 * updated, then the audit entry, and the agent told privately when Slack refused any of it. Features
 * say what happened (which message, which audit entry); this decides how and when it is posted.
 *
 * Only the parent is posted before the operation goes on (nothing is written in UISP before its thread
 * exists). Everything after it is queued per thread and posted in order off the critical path: `reply`
 * and `update` return at once, so a slow Slack never holds UISP work back. While Slack is slow, parent
 * updates waiting in the queue are coalesced (only the newest is sent); replies are never dropped, and
 * the last update and the audit entry are always delivered. The queue counts as work in flight, so the
 * tests' `idle()` and the SIGTERM drain wait for it.
 */
import type { webApi } from '@slack/bolt';
import type { Logger } from 'pino';
import type { SlackMessage } from '../views/kit.js';
import type { SlackAuditEntry, SlackAuditor } from './audit.js';
import { errorSummary } from './errors.js';
import type { Origin } from './metadata.js';
import { tellAgent } from './notify.js';
import type { WorkTracker } from './work.js';

export interface ReporterDeps {
  client: webApi.WebClient;
  audit: SlackAuditor;
  /** Counts each thread's queue while it has posts to deliver. */
  work: WorkTracker;
}

export interface OperationStart {
  /** Where the operation runs and the agent acting (told privately when Slack refuses). */
  origin: Origin;
  /** The parent message; posted now, unless `parentTs` names an existing one (a retry continues its thread). */
  parent: SlackMessage;
  parentTs?: string | undefined;
  logger: Logger;
}

export interface OperationEnd {
  /** Recorded once the thread has been delivered, linked to it (when the parent exists). */
  audit?: Omit<SlackAuditEntry, 'thread'> | undefined;
  /** What the agent is told privately when Slack refused any post; given the Slack errors. */
  whenSlackRefused?: ((problems: readonly string[]) => SlackMessage) | undefined;
}

export interface ThreadReporter {
  start(operation: OperationStart): Promise<ThreadReport>;
}

export function createThreadReporter(deps: ReporterDeps): ThreadReporter {
  return {
    async start(operation) {
      const report = new ThreadReport(deps, operation);
      await report.open(operation);
      return report;
    },
  };
}

type Post = { kind: 'reply'; message: SlackMessage } | { kind: 'update'; message: SlackMessage };

export class ThreadReport {
  private ts: string | undefined;
  private readonly queue: Post[] = [];
  private delivering: Promise<void> | undefined;
  private readonly refusals: string[] = [];
  private readonly channel: string;
  private readonly origin: Origin;
  private readonly logger: Logger;

  constructor(
    private readonly deps: ReporterDeps,
    { origin, logger }: OperationStart,
  ) {
    this.origin = origin;
    this.channel = origin.channelId;
    this.logger = logger;
  }

  /** The parent message, once it exists. */
  get thread(): { channel: string; ts: string } | undefined {
    return this.ts ? { channel: this.channel, ts: this.ts } : undefined;
  }

  /** The Slack errors met so far (distinct), for the feature's own words. */
  get problems(): readonly string[] {
    return [...new Set(this.refusals)];
  }

  /** @internal Posts the parent (or adopts an existing one). */
  async open({ parent, parentTs }: OperationStart): Promise<void> {
    if (parentTs) {
      this.ts = parentTs;
      return;
    }
    try {
      this.ts = (await this.deps.client.chat.postMessage({ channel: this.channel, ...parent, unfurl_links: false })).ts;
    } catch (error) {
      this.refused(error, 'could not post the parent message');
    }
  }

  /** A threaded reply, after everything queued before it. */
  reply(message: SlackMessage): void {
    this.enqueue({ kind: 'reply', message });
  }

  /** The parent's new content; an update still waiting when a newer one comes is skipped. */
  update(message: SlackMessage): void {
    const waiting = this.queue.findIndex((post) => post.kind === 'update');
    if (waiting !== -1) this.queue.splice(waiting, 1);
    this.enqueue({ kind: 'update', message });
  }

  /** Tells the agent privately (ephemeral, response_url, then DM), whatever happened to the thread. */
  tellAgent(message: SlackMessage): Promise<boolean> {
    return tellAgent(this.deps.client, this.origin, message, this.logger);
  }

  /**
   * Waits until every queued post is delivered (or refused), records the audit entry linked to the
   * thread, and tells the agent privately when Slack refused anything.
   */
  async finish({ audit, whenSlackRefused }: OperationEnd = {}): Promise<void> {
    await this.delivered();
    if (audit) await this.deps.audit.record({ ...audit, thread: this.thread });
    if (this.refusals.length && whenSlackRefused) await this.tellAgent(whenSlackRefused(this.problems));
  }

  private enqueue(post: Post): void {
    if (!this.ts) return;
    this.queue.push(post);
    this.delivering ??= this.deps.work.run(() => this.deliver());
  }

  private async delivered(): Promise<void> {
    while (this.delivering) await this.delivering;
  }

  /** One post at a time, in order: Slack shows replies in the order they were posted. */
  private async deliver(): Promise<void> {
    try {
      for (let post = this.queue.shift(); post; post = this.queue.shift()) {
        try {
          if (post.kind === 'reply') await this.deps.client.chat.postMessage({ channel: this.channel, thread_ts: this.ts, ...post.message, unfurl_links: false });
          else await this.deps.client.chat.update({ channel: this.channel, ts: this.ts!, ...post.message });
        } catch (error) {
          this.refused(error, post.kind === 'reply' ? 'could not post a threaded reply' : 'could not update the parent message');
        }
      }
    } finally {
      // In the same turn as the empty-queue check: a post enqueued from now on starts a new delivery.
      this.delivering = undefined;
    }
  }

  private refused(error: unknown, what: string): void {
    const summary = errorSummary(error);
    this.logger.error({ err: summary }, what);
    this.refusals.push(summary.slackError ?? summary.message);
  }
}
