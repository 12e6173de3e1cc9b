/**
 * UISP CRM webhooks, in the background. `receive` answers at once (accepted, duplicate, busy) and
 * queues the event; the queue then, a few at a time:
 * 1. confirms it with GET /webhook-events/{uuid} — the body is never trusted; an unknown uuid is logged
 *    and ignored;
 * 2. skips changes this process made (OwnChanges) and kinds it does not report;
 * 3. reads the entity from the CRM and acts only when what the CRM says now still matches the event: a
 *    payment made within `paymentWindowMs` (default 24 h) and dated at most a day ahead, a suspension
 *    whose service is still suspended, a lift or an activation whose service is active now, an archive
 *    whose client is still archived. Anything else — an old event replayed, or one overtaken by a later change — is logged
 *    and ignored (outcome `stale`): never posted, so never with an action button;
 * 4. skips changes another SubOps process recorded (`recognize`: the Slack side reads the audit trail,
 *    which CLI runs and other replicas write to), checked last so their audit record has had the longest
 *    time to arrive; hands a ChangeNotice to every subscriber.
 * Besides, a confirmed service add, edit or activation not made by this process is handed, with its
 * client, to the `onServiceWrite` listeners (late duplicates are looked for there), once per event.
 * Events wait in one lane per source (the sender's address), served round-robin, each source holding at
 * most `maxWaitingPerSource` of them: a flood from one address cannot push UISP's own events out of the
 * backlog or keep them waiting behind it (./queue.ts).
 * Each uuid is handled once across replicas and restarts (UISP sends an event again when an answer fails,
 * and a load balancer may hand the repeat to another replica): processing starts by claiming
 * `webhook:<uuid>` in the store, and a handled uuid stays claimed for `rememberMs`. A repeat that arrives
 * while the event waits here is answered "duplicate" at once. UISP does not send an event again after our
 * 200, so one whose processing fails on a UISP error is tried again here, with backoff (holding its place
 * in the queue: while UISP is down, nothing else hammers it); after the last attempt its claim is
 * released, so a later delivery of it is still processed.
 */
import type { Logger } from 'pino';
import type { ServiceStatusTable } from '../activation/service-status.js';
import type { CrmClient } from '../uisp/crm-client.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { UispNotFoundError } from '../uisp/errors.js';
import type { Client, WebhookEvent } from '../uisp/schemas.js';
import type { Claim, ClaimLedger } from '../../store/index.js';
import { isReportable, reportedKind, touchesClientServices, type ChangeKind, type UispChange } from './changes.js';
import type { ChangeRef, OwnChanges, RecordedElsewhere } from './own-changes.js';
import { TaskQueue } from './queue.js';

export interface ChangeNotice {
  /** The CRM's record of the event (uuid, entity, entityId, changeType, eventName). */
  event: WebhookEvent;
  change: UispChange;
}

/** What became of one delivery: a label for metrics and logs. */
export type WebhookOutcome = 'notified' | 'own' | 'ignored' | 'stale' | 'duplicate' | 'unverified' | 'failed' | 'refused' | 'limited' | 'busy';

/** The answer to UISP: accepted (processed in the background), a duplicate, invalid, or busy (try again later). */
export type Reception = 'accepted' | 'duplicate' | 'invalid' | 'busy';

export type NoticeListener = (notice: ChangeNotice) => Promise<void> | void;
/** An event SubOps gave up on (UISP did not answer every attempt): its uuid, and its entity when the CRM named it. */
export type FailureListener = (failure: { uuid: string; entity: string }) => Promise<void> | void;

/** A client's service was added, edited or activated outside this process (confirmed with the CRM). */
export interface ServiceWrite {
  clientId: number;
  serviceId: number;
  event: WebhookEvent;
}

export type ServiceWriteListener = (write: ServiceWrite) => Promise<void> | void;

export interface WebhookProcessorOptions {
  crm: CrmClient;
  /** The store's claims: which uuids a SubOps process has handled, or is handling. */
  claims: ClaimLedger;
  ownChanges: OwnChanges;
  statuses: ServiceStatusTable;
  logger: Logger;
  /** Events processed at once (each has at most 2 UISP reads in flight). Default 3. */
  concurrency?: number;
  /** Events waiting beyond that before new ones are answered "busy". Default 10000. */
  maxWaiting?: number;
  /** Events of one source (remote address) waiting beyond that before its new ones are answered "busy". Default `maxWaiting`. */
  maxWaitingPerSource?: number;
  /** A payment is reported only when the CRM dates it within this long before now. Default 24 h. */
  paymentWindowMs?: number;
  /** Counts the background work (the Slack app's WorkTracker), so shutdown and tests can wait for it. */
  track?: (operation: () => Promise<void>) => Promise<void>;
  /** False while the process shuts down: new events are answered "busy". */
  accepting?: () => boolean;
  onOutcome?: (entity: string, outcome: WebhookOutcome) => void;
  /** Attempts at an event whose processing fails on a UISP error. Default 3. */
  attempts?: number;
  /** Wait before the second attempt; doubles each time. Default 5 s. */
  retryBackoffMs?: number;
  /** How long a handled uuid is remembered (in the store). Default 24 h. */
  rememberMs?: number;
  now?: () => number;
}

/**
 * How far ahead of this process's clock a payment may be dated and still count as made just now: the
 * CRM's clock (or the payment's time zone) may be a little ahead; a date beyond that is no fresh payment.
 */
const PAYMENT_CLOCK_SKEW_MS = 24 * 3_600_000;

const hours = (ms: number) => Math.round((ms / 3_600_000) * 100) / 100;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** How long one process may hold an event's claim before another may take it over: its attempts fit well within. */
const HOLD_MS = 10 * 60_000;

export class WebhookProcessor {
  private readonly queue: TaskQueue;
  private readonly listeners: NoticeListener[] = [];
  private readonly serviceListeners: ServiceWriteListener[] = [];
  private readonly failureListeners: FailureListener[] = [];
  private readonly elsewhere: RecordedElsewhere[] = [];
  /** The uuids waiting or being processed here. */
  private readonly queued = new Set<string>();
  private readonly pending = new Set<Promise<void>>();
  private readonly log: Logger;

  constructor(private readonly options: WebhookProcessorOptions) {
    const maxWaiting = options.maxWaiting ?? 10_000;
    this.queue = new TaskQueue(options.concurrency ?? 3, maxWaiting, options.maxWaitingPerSource ?? maxWaiting);
    this.log = options.logger.child({ flow: 'uisp-webhook' });
  }

  subscribe(listener: NoticeListener): void {
    this.listeners.push(listener);
  }

  /** Told of each event given up on; a listener's failure is logged. */
  onFailure(listener: FailureListener): void {
    this.failureListeners.push(listener);
  }

  /** Told of each confirmed service add, edit or activation of a client, once per event; its failures are logged, never retried. */
  onServiceWrite(listener: ServiceWriteListener): void {
    this.serviceListeners.push(listener);
  }

  /** Adds a source of SubOps' own changes made in other processes (a failing source counts as "not found"). */
  recognize(source: RecordedElsewhere): void {
    this.elsewhere.push(source);
  }

  /** Events accepted and not yet processed. */
  get backlog(): number {
    return this.queue.size;
  }

  /** Resolves when every accepted event has been processed. */
  async idle(): Promise<void> {
    while (this.pending.size) await Promise.all(this.pending);
  }

  /**
   * Takes a parsed webhook body; only its uuid is used, and only to ask the CRM about it. `source` (the
   * sender's address) picks the event's lane in the backlog.
   */
  receive(body: unknown, source = 'unknown'): Reception {
    const uuid = (body as { uuid?: unknown } | null)?.uuid;
    if (typeof uuid !== 'string' || !UUID.test(uuid)) {
      this.refuse('the body has no event uuid');
      return 'invalid';
    }
    if (this.options.accepting && !this.options.accepting()) return 'busy';
    if (this.queued.has(uuid)) {
      this.log.info({ uuid }, 'ignored a repeated webhook event');
      this.options.onOutcome?.('unknown', 'duplicate');
      return 'duplicate';
    }
    const task = this.queue.push(() => this.process(uuid), source);
    if (!task) {
      this.log.warn({ uuid, source, backlog: this.queue.size, fromSource: this.queue.waitingIn(source) }, 'webhook backlog full: answered busy, UISP will send the event again');
      this.options.onOutcome?.('unknown', 'busy');
      return 'busy';
    }
    this.queued.add(uuid);
    void task.finally(() => this.queued.delete(uuid));
    const tracked = this.options.track ? this.options.track(() => task) : task;
    this.pending.add(tracked);
    void tracked.finally(() => this.pending.delete(tracked));
    return 'accepted';
  }

  /** A delivery refused before it reached the queue (wrong token, no body): counted and logged. */
  refuse(reason: string): void {
    this.log.warn({ reason }, 'refused a webhook delivery');
    this.options.onOutcome?.('unknown', 'refused');
  }

  /**
   * A delivery turned away because its source sent more than its rate allows (`deliveries` with the token,
   * or `wrong-token` posts, counted apart): counted; logged once per episode (`first`).
   */
  limited(source: string, retryAfterS: number, first: boolean, kind: 'deliveries' | 'wrong-token'): void {
    if (first && kind === 'deliveries') this.log.warn({ source, retryAfterS }, 'webhook deliveries from this address exceed WEBHOOK_RATE_PER_MINUTE: answered 429 until it slows down');
    if (first && kind === 'wrong-token') this.log.warn({ source, retryAfterS }, 'posts with a wrong WEBHOOK_TOKEN from this address exceed WEBHOOK_RATE_PER_MINUTE: answered 429 until it slows down (deliveries with the token are still taken)');
    this.options.onOutcome?.('unknown', 'limited');
  }

  /** Claims the event, then processes it, trying again after a UISP error until the attempts are spent. */
  private async process(uuid: string): Promise<void> {
    let claimed;
    try {
      claimed = await this.options.claims.claim(`webhook:${uuid}`, { holdMs: HOLD_MS });
    } catch (error) {
      // Without the store SubOps cannot tell whether another process posted it: not processed, and said so.
      return this.failed(uuid, 'unknown', error, undefined);
    }
    if (!claimed.won) {
      this.log.info({ uuid, claim: claimed.state }, 'ignored a webhook event another SubOps process (or this one, before a restart) has handled');
      return this.outcome('unknown', 'duplicate');
    }
    const attempts = this.options.attempts ?? 3;
    // The event's entity, once the CRM confirmed it: for the metrics of a failure; whether its service write was handed on.
    const known = { entity: 'unknown', serviceWrite: false };
    for (let attempt = 1; ; attempt++) {
      try {
        await this.processOnce(uuid, known);
        return await claimed.claim.done(this.options.rememberMs ?? 24 * 3_600_000).catch((error: unknown) => {
          this.log.warn({ uuid, err: error instanceof Error ? error.message : String(error) }, 'could not record a handled webhook event in the store; a repeat after its lease may be posted again');
        });
      } catch (error) {
        if (attempt >= attempts) return this.failed(uuid, known.entity, error, claimed.claim);
        const waitMs = (this.options.retryBackoffMs ?? 5_000) * 2 ** (attempt - 1);
        this.log.warn({ uuid, attempt, err: error instanceof Error ? error.message : String(error) }, `could not process a webhook event (UISP did not answer); trying again in ${waitMs} ms`);
        await sleep(waitMs);
      }
    }
  }

  /** Throws on a UISP error other than "not found", for `process` to try again. */
  private async processOnce(uuid: string, known: { entity: string; serviceWrite: boolean }): Promise<void> {
    let event: WebhookEvent;
    try {
      event = await this.options.crm.getWebhookEvent(uuid);
    } catch (error) {
      if (error instanceof UispNotFoundError) {
        this.log.warn({ uuid }, 'the CRM knows no webhook event with this uuid: ignored');
        return this.outcome('unknown', 'unverified');
      }
      throw error;
    }
    known.entity = event.entity;
    const log = this.log.child({ uuid, entity: event.entity, entityId: event.entityId, changeType: event.changeType });
    if (!known.serviceWrite) {
      known.serviceWrite = true;
      await this.serviceWritten(event, log);
    }
    const kind = reportedKind(event);
    if (!kind || event.entityId === null) {
      log.debug('webhook event of a kind SubOps does not report');
      return this.outcome(event.entity, 'ignored');
    }
    if (await this.options.ownChanges.madeBySubOps({ entity: event.entity, id: event.entityId, changeType: event.changeType })) {
      log.debug('webhook event about a change SubOps made itself');
      return this.outcome(event.entity, 'own');
    }
    let change: UispChange | undefined;
    try {
      change = await this.read(kind, event.entityId);
    } catch (error) {
      if (error instanceof UispNotFoundError) {
        log.info('the record of this webhook event is gone from the CRM: ignored');
        return this.outcome(event.entity, 'ignored');
      }
      throw error;
    }
    if (!isReportable(change, event, this.options.statuses)) return this.outcome(event.entity, 'ignored');
    const stale = this.staleness(change);
    if (stale) {
      log.info({ change: change.kind, reason: stale }, 'a webhook event that no longer matches what the CRM says now (old, replayed or overtaken): ignored, nothing posted');
      return this.outcome(event.entity, 'stale');
    }
    if (await this.recordedElsewhere({ entity: event.entity, id: event.entityId, changeType: event.changeType }, log)) {
      log.debug('webhook event about a change another SubOps process made and audited');
      return this.outcome(event.entity, 'own');
    }
    await this.notify({ event, change }, log);
    log.info({ change: change.kind }, 'reported a change made in UISP');
    this.outcome(event.entity, 'notified');
  }

  /** Hands a service add, edit or activation not made by this process, with its client, to the listeners. Never throws. */
  private async serviceWritten(event: WebhookEvent, log: Logger): Promise<void> {
    if (!this.serviceListeners.length || !touchesClientServices(event)) return;
    try {
      if (await this.options.ownChanges.madeBySubOps({ entity: event.entity, id: event.entityId!, changeType: event.changeType })) return;
      const service = await this.options.crm.getService(event.entityId!);
      for (const listener of this.serviceListeners) await listener({ clientId: service.clientId, serviceId: service.id, event });
    } catch (error) {
      if (error instanceof UispNotFoundError) return;
      log.warn({ err: error instanceof Error ? error.message : String(error) }, 'could not hand on a service event to its listeners (not tried again for this event)');
    }
  }

  private async recordedElsewhere(change: ChangeRef, log: Logger): Promise<boolean> {
    for (const source of this.elsewhere) {
      try {
        if (await source(change)) return true;
      } catch (error) {
        log.warn({ err: error instanceof Error ? error.message : String(error) }, 'could not read the audit trail; the change is reported');
      }
    }
    return false;
  }

  /** The entity as the CRM reports it now. */
  private async read(kind: ChangeKind, id: number): Promise<UispChange> {
    const { crm, statuses } = this.options;
    switch (kind) {
      case 'payment-added': {
        const payment = await crm.getPayment(id);
        const clientId = payment.clientId ?? null;
        const [client, services] = clientId === null ? [null, []] : await Promise.all([this.client(clientId), crm.listServices(clientId)]);
        return { kind, payment, client, suspendedServices: services.filter((service) => service.status === statuses.suspended) };
      }
      case 'client-created':
      case 'client-archived':
        return { kind, client: await crm.getClient(id) };
      default: {
        const service = await crm.getService(id);
        return { kind, service, client: await this.client(service.clientId) };
      }
    }
  }

  /**
   * Why the change, as the CRM reports it now, no longer matches its event; undefined when it still does.
   * A replayed payment.add (its uuid is forgotten after `rememberMs`) would otherwise post the payment again
   * with a fresh Unsuspend button for a client suspended since; a suspension lifted before its event is
   * processed is no suspension to report.
   */
  private staleness(change: UispChange): string | undefined {
    const { statuses } = this.options;
    switch (change.kind) {
      case 'payment-added': {
        const windowMs = this.options.paymentWindowMs ?? 24 * 3_600_000;
        const created = Date.parse(change.payment.createdDate);
        if (Number.isNaN(created)) return `the payment's date "${change.payment.createdDate}" cannot be read`;
        const ageMs = (this.options.now ?? Date.now)() - created;
        if (-ageMs > PAYMENT_CLOCK_SKEW_MS) return `the payment is dated ${change.payment.createdDate}, more than ${hours(PAYMENT_CLOCK_SKEW_MS)} h ahead of now`;
        return ageMs > windowMs ? `the payment is dated ${change.payment.createdDate}, more than ${hours(windowMs)} h ago (WEBHOOK_PAYMENT_WINDOW_HOURS)` : undefined;
      }
      case 'service-suspended':
        return change.service.status === statuses.suspended ? undefined : `service #${change.service.id} is not suspended now (status ${change.service.status})`;
      case 'service-unsuspended':
      case 'service-activated':
        return change.service.status === statuses.active ? undefined : `service #${change.service.id} is not active now (status ${change.service.status})`;
      case 'client-archived':
        return change.client.isArchived === false ? `client #${change.client.id} is not archived now` : undefined;
      default:
        return undefined;
    }
  }

  /** A client that is gone does not stop the notice about its service or payment. */
  private async client(id: number): Promise<Client | null> {
    try {
      return await this.options.crm.getClient(id);
    } catch (error) {
      if (error instanceof UispNotFoundError) return null;
      throw error;
    }
  }

  private async notify(notice: ChangeNotice, log: Logger): Promise<void> {
    for (const listener of this.listeners) {
      try {
        await listener(notice);
      } catch (error) {
        log.error({ err: error instanceof Error ? error.message : String(error) }, 'a webhook notice could not be delivered');
      }
    }
  }

  private async failed(uuid: string, entity: string, error: unknown, claim: Claim | undefined): Promise<void> {
    // Released, so a later delivery of this event is processed.
    await claim?.release().catch(() => undefined);
    this.log.error({ uuid, err: error instanceof Error ? error.message : String(error) }, 'could not process a webhook event (UISP did not answer, every attempt); it is processed if UISP sends it again');
    this.outcome(entity, 'failed');
    for (const listener of this.failureListeners) {
      try {
        await listener({ uuid, entity });
      } catch (listenerError) {
        this.log.error({ uuid, err: listenerError instanceof Error ? listenerError.message : String(listenerError) }, 'could not report a failed webhook event');
      }
    }
  }

  private outcome(entity: string, outcome: WebhookOutcome): void {
    this.options.onOutcome?.(entity, outcome);
  }
}
