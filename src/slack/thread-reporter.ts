/**
 * The one way an operation reaches Slack: a parent message, threaded replies in order, the parent
 * updated, then the audit entry, and the agent told privately when Slack refused any of it. Features
 * say what happened (which message, which audit entry); this decides how and when it is posted.
 *
 * Nothing waits for Slack: `start` queues the parent and returns at once, and the replies and updates
 * are queued behind it, per thread, posted in order off the critical path, so a slow Slack never holds
 * UISP work back. While Slack is slow, parent updates waiting in the queue are coalesced (only the
 * newest is sent); replies are never dropped, and the last update and the audit entry are always
 * delivered. When Slack refuses the parent, nothing of the thread can be posted: the operation goes on,
 * its audit entry is recorded without a thread link, and the agent is told privately what it did. The
 * queue counts as work in flight, so the tests' `idle()` and the SIGTERM drain wait for it. An operation
 * that says what its thread should say if it is left unfinished (`ifStopped`) is recorded in the store
 * from its parent's post to its finish (./in-flight.ts): a process that stops hard meanwhile leaves it
 * for the next one to report.
 */
import type { webApi } from '@slack/bolt';
import type { Logger } from 'pino';
import type { SlackMessage } from '../views/kit.js';
import type { SlackAuditEntry, SlackAuditor } from './audit.js';
import { errorSummary } from './errors.js';
import type { Origin } from './metadata.js';
import { tellAgent } from './notify.js';
import type { WorkTracker } from './work.js';
import type { InFlightOperation, InFlightOperations } from './in-flight.js';
import type { StopNotice } from './stop-notices.js';

export interface ReporterDeps {
  client: webApi.WebClient;
  audit: SlackAuditor;
  /** Counts each thread's queue while it has posts to deliver. */
  work: WorkTracker;
  /** Where operations with `ifStopped` are recorded while they run. */
  inFlight?: InFlightOperations | undefined;
}

export interface OperationStart {
  /** Where the operation runs and the agent acting (told privately when Slack refuses). */
  origin: Origin;
  /** The parent message; queued first, unless `parentTs` names an existing one (a retry continues its thread). */
  parent: SlackMessage;
  parentTs?: string | undefined;
  logger: Logger;
  /** What the thread is told if this process stops before `finish` (a kind and ids: ./stop-notices.ts). */
  ifStopped?: StopNotice | undefined;
}

export interface OperationEnd {
  /** Recorded once the thread has been delivered, linked to it (when the parent exists). */
  audit?: Omit<SlackAuditEntry, 'thread'> | undefined;
  /**
   * What the agent is told privately when Slack refused any post; given the Slack errors and whether
   * the thread exists (when the parent was refused, nothing of the thread was posted).
   */
  whenSlackRefused?: ((problems: readonly string[], threadPosted: boolean) => SlackMessage) | undefined;
}

export interface ThreadReporter {
  /** Queues the parent and returns at once: the operation goes on while Slack answers. */
  start(operation: OperationStart): ThreadReport;
  /** Where operations are recorded while they run (for one shown in a thread of its own making, an approval's). */
  inFlight: InFlightOperations | undefined;
}

export function createThreadReporter(deps: ReporterDeps): ThreadReporter {
  return { start: (operation) => new ThreadReport(deps, operation), inFlight: deps.inFlight };
}

type Post = { kind: 'parent' | 'reply' | 'update' | 'live'; message: SlackMessage };

const WHAT_FAILED: Record<Post['kind'], string> = {
  parent: 'could not post the parent message',
  reply: 'could not post a threaded reply',
  update: 'could not update the parent message',
  live: 'could not post or update the live reply',
};

export class ThreadReport {
  private ts: string | undefined;
  /** The live reply, once posted (see `live`). */
  private liveTs: string | undefined;
  private readonly queue: Post[] = [];
  private delivering: Promise<void> | undefined;
  private parentRefused = false;
  private readonly refusals: string[] = [];
  private readonly channel: string;
  private readonly origin: Origin;
  private readonly logger: Logger;
  private readonly ifStopped: StopNotice | undefined;
  /** The operation's record in the store, once its thread exists. */
  private inFlight: Promise<InFlightOperation> | undefined;

  constructor(
    private readonly deps: ReporterDeps,
    { origin, logger, parent, parentTs, ifStopped }: OperationStart,
  ) {
    this.origin = origin;
    this.channel = origin.channelId;
    this.logger = logger;
    this.ts = parentTs;
    this.ifStopped = ifStopped;
    if (!parentTs) this.enqueue({ kind: 'parent', message: parent });
    else this.recordInFlight();
  }

  /** The parent message, once Slack has posted it (see `posted`). */
  get thread(): { channel: string; ts: string } | undefined {
    return this.ts ? { channel: this.channel, ts: this.ts } : undefined;
  }

  /** Waits for the parent (and whatever is queued before now): the thread, or undefined when Slack refused the parent. */
  async posted(): Promise<{ channel: string; ts: string } | undefined> {
    await this.delivered();
    return this.thread;
  }

  /** The Slack errors met so far (distinct), for the feature's own words. */
  get problems(): readonly string[] {
    return [...new Set(this.refusals)];
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

  /**
   * The thread's one live reply (an install sheet's rows): posted the first time, updated in place after;
   * like the parent's updates, a version still waiting when a newer one comes is skipped.
   */
  live(message: SlackMessage): void {
    const waiting = this.queue.findIndex((post) => post.kind === 'live');
    if (waiting !== -1) this.queue.splice(waiting, 1);
    this.enqueue({ kind: 'live', message });
  }

  /** Tells the agent privately (ephemeral, response_url, then DM), whatever happened to the thread. */
  tellAgent(message: SlackMessage): Promise<boolean> {
    return tellAgent(this.deps.client, this.origin, message, this.logger);
  }

  /**
   * Waits until every queued post is delivered (or refused), records the audit entry linked to the
   * thread (unlinked when the parent was refused), and tells the agent privately when Slack refused anything.
   */
  async finish({ audit, whenSlackRefused }: OperationEnd = {}): Promise<void> {
    await this.delivered();
    // The audit entry first: the operation stays in flight until its record is in the store, so a process
    // stopped in between leaves the thread to be told (Retry reads UISP), never a record lost.
    if (audit) await this.deps.audit.record({ ...audit, thread: this.thread });
    await (await this.inFlight)?.end();
    if (this.refusals.length && whenSlackRefused) await this.tellAgent(whenSlackRefused(this.problems, this.thread !== undefined));
  }

  private enqueue(post: Post): void {
    // Without a parent nothing of the thread can be posted (the refusal is noted already).
    if (this.parentRefused) return;
    this.queue.push(post);
    this.delivering ??= this.deps.work.run(() => this.deliver());
  }

  private async delivered(): Promise<void> {
    while (this.delivering) await this.delivering;
  }

  /**
   * One post at a time, in order: the parent first, then the replies in the order Slack shows them.
   * Posts queued behind a refused parent are dropped with it.
   */
  private async deliver(): Promise<void> {
    try {
      for (let post = this.queue.shift(); post; post = this.queue.shift()) {
        if (this.parentRefused) continue;
        try {
          await this.send(post);
        } catch (error) {
          if (post.kind === 'parent') this.parentRefused = true;
          this.refused(error, WHAT_FAILED[post.kind]);
        }
      }
    } finally {
      // In the same turn as the empty-queue check: a post enqueued from now on starts a new delivery.
      this.delivering = undefined;
    }
  }

  private async send({ kind, message }: Post): Promise<void> {
    const { chat } = this.deps.client;
    if (kind === 'parent') {
      this.ts = (await chat.postMessage({ channel: this.channel, ...message, unfurl_links: false })).ts;
      // Before the first reply: a thread that shows a step is one the store knows is in flight.
      this.recordInFlight();
      await this.inFlight;
    }
    else if (kind === 'reply') await chat.postMessage({ channel: this.channel, thread_ts: this.ts, ...message, unfurl_links: false });
    else if (kind === 'live' && this.liveTs) await chat.update({ channel: this.channel, ts: this.liveTs, ...message });
    else if (kind === 'live') this.liveTs = (await chat.postMessage({ channel: this.channel, thread_ts: this.ts, ...message, unfurl_links: false })).ts;
    else await chat.update({ channel: this.channel, ts: this.ts!, ...message });
  }

  /** Records the operation once its thread exists (`finish` ends the record). */
  private recordInFlight(): void {
    if (this.ifStopped && this.deps.inFlight && this.ts) this.inFlight = this.deps.inFlight.begin({ channel: this.channel, ts: this.ts }, this.ifStopped);
  }

  private refused(error: unknown, what: string): void {
    const summary = errorSummary(error);
    this.logger.error({ err: summary }, what);
    this.refusals.push(summary.slackError ?? summary.message);
  }
}
