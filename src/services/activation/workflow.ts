/**
 * The customer activation workflow (spec §1) as a plain async sequence of step events. It knows
 * nothing of Slack or terminals and chooses no words: events, the result and its failures are facts that
 * front ends word (src/render/activation.ts) as they iterate `run()`.
 *
 * Shape: one round of independent reads (both device lists, the client lookup, the sites) → a plan →
 * the writes, each only if still needed. Every decision is re-derived from UISP's current state, so
 * re-running after any failure converges: no second client, service or site.
 */
import { randomUUID } from 'node:crypto';
import type { ActivationConfig } from '../../config.js';
import type { CrmClient } from '../uisp/crm-client.js';
import { creationStamp, noteHas, UnconfirmedCreateError, type KeyedLock, type WriteRetryPolicy } from '../converge.js';
import { UispError, UispNotFoundError } from '../uisp/errors.js';
import type { NmsClient } from '../uisp/nms-client.js';
import type { Client, Service } from '../uisp/schemas.js';
import { parseDeviceQuery } from './device-match.js';
import { titleCase } from './names.js';
import { clientRef, decideActivation, identifyClient, siteRef, type ActivationReads, type ClientLookup } from './planner.js';
import { dispositionOf, statusLabel } from './service-status.js';
import {
  deleteReplaced,
  ensureActiveService,
  ensureAuthorized,
  ensureClient,
  ensureSite,
  removeDuplicateClients,
  removeOwnSite,
  settleActiveService,
  settleSite,
  runMarker,
  deviceState,
  type DeviceState,
  type SiteOutcome,
  type WriteDeps,
} from './writes.js';
import type {
  ActivationConfirmation,
  ActivationDecision,
  ActivationError,
  ActivationErrorCode,
  ActivationEvent,
  ActivationPlan,
  ActivationRequest,
  ActivationResult,
  ClientRef,
  ConfirmedPlan,
  DoneEntry,
  PendingEntry,
  ServiceRef,
  SiteRef,
  StepEvent,
  StepName,
  StepOutcome,
  UispFailure,
} from './types.js';

export { siteMarker } from './planner.js';

/** An activation stopped before its end, with the facts (front ends word them: src/render/activation.ts). */
export class ActivationFailure extends Error {
  override readonly name = 'ActivationFailure';
  constructor(
    readonly error: ActivationError,
    /** For a deletion or move that needs confirmation: the plan, so front ends can show what confirming would do. */
    readonly plan?: ActivationPlan,
  ) {
    // For logs only: what people see is worded from `error` by the front ends.
    super(`activation stopped: ${error.code}`);
  }

  get code(): ActivationErrorCode {
    return this.error.code;
  }
}

export interface ActivationDeps {
  crm: CrmClient;
  nms: NmsClient;
  settings: ActivationConfig;
  /** e.g. https://uisp.example.net/crm — the client page is `${crmBaseUrl}/client/${id}`. */
  crmBaseUrl: string;
  /** Today's date (YYYY-MM-DD) in the ISP's time zone. */
  today: () => string;
  /** How write steps are retried after transient failures (UISP_WRITE_RETRIES and friends). */
  writeRetry: WriteRetryPolicy;
  /** This process's locks on device and client ids: the CLI and the bot share the services, so share these. */
  locks: KeyedLock;
  /** Creation stamps of new sites (ms, increasing); real time even when `today` is pinned. */
  clock?: () => number;
}

const serviceRefOf = (service: Service, statuses: ActivationConfig['statuses']): ServiceRef => ({
  id: service.id,
  status: service.status,
  statusLabel: statusLabel(service.status, statuses),
  name: service.name,
});

/** A decision with the reads it was made from: the run builds on those reads instead of reading again. */
/** `readAt`: when its reads started (ms since the epoch), so a confirmation of it can tell how old it is. */
export type ReadDecision = ActivationDecision & { reads: ActivationReads; readAt: number };

/**
 * How old a confirmed plan may be and still have its deletes sent with the run's fresh reads instead of
 * after them: an agent confirms within seconds, and a Quoted service someone turned Active in the CRM
 * meanwhile must not be deleted on a stale confirmation. Older plans are read again before any write.
 */
export const CONFIRMED_PLAN_FRESH_MS = 60_000;

/** The plan a run follows, with the reads it was made from. */
interface PlanToRun {
  plan: ActivationPlan;
  reads: ActivationReads;
}

/** A site creation started before the fresh reads, for this client and device. */
interface StartedSite {
  clientId: number;
  deviceId: string;
  siting: Promise<SiteOutcome>;
}

/** What a confirmed plan's run wrote at its start, with its fresh reads. */
interface StartedWrites {
  deleted: ServiceRef[];
  site?: StartedSite;
}

/** Whether the plan creates the site already started (same client, same device). */
const usesSite = (plan: ActivationPlan, site: StartedSite) =>
  plan.site.action === 'create' && plan.client.action === 'reuse' && plan.client.client.id === site.clientId && plan.device.id === site.deviceId;

/** How many times a plan is read again when concurrent writes changed what it read. */
const READ_AGAIN_LIMIT = 3;

/** Keys of the in-process lock: resolved ids, never typed text (the same device typed two ways is one key). */
const lockKeys = (plan: ActivationPlan) => [`device:${plan.device.id}`, ...(plan.client.action === 'reuse' ? [`client:${plan.client.client.id}`] : [])];

export class ActivationService {
  /** Shared by every run; each run adds its own marker (`forRun`). */
  private readonly writes: Omit<WriteDeps, 'run'>;

  constructor(private readonly deps: ActivationDeps) {
    this.writes = { crm: deps.crm, nms: deps.nms, settings: deps.settings, retry: deps.writeRetry, clock: deps.clock ?? creationStamp };
  }

  private forRun(): WriteDeps {
    return { ...this.writes, run: runMarker(randomUUID().slice(0, 8)) };
  }

  /**
   * Reads only: what `run` would do now, as a typed decision (refused, needs confirmation, or a plan),
   * with its reads: a caller that runs it at once passes it to `run` (`decided`), which then reads nothing
   * again; a plan that needs confirmation comes back to `run` as `confirmed` once the agent agreed.
   */
  decide(request: ActivationRequest): Promise<ReadDecision> {
    return this.read(request);
  }

  /** Reads only: the plan `run` would follow. Throws ActivationFailure when the activation is refused. */
  async plan(request: ActivationRequest): Promise<ActivationPlan> {
    const decision = await this.read(request);
    if (decision.kind === 'refused') throw new ActivationFailure(decision.refusal);
    return decision.plan;
  }

  crmClientUrl(clientId: number): string {
    return `${this.deps.crmBaseUrl}/client/${clientId}`;
  }

  /**
   * Yields one event per step as it happens and always ends with exactly one result event; never throws.
   * A refusal, a service deletion (`confirm.deletes`) or a device move (`confirm.moveFrom`) the caller did
   * not confirm, stops it before any write, with the plan in the result (what confirming would do).
   * Runs on the same device or client in this process take turns (a waiting run plans again once the
   * first is done); across processes the writes themselves converge (writes.ts). `decided`: a decision
   * for this request the caller has just read (`decide`), used instead of reading UISP again.
   * `confirmed`: the plan a confirmation showed (read a while ago): its first writes go out at once, with
   * the fresh reads that decide the rest (`startConfirmed`).
   */
  async *run(
    request: ActivationRequest,
    { dryRun = false, confirm = {}, decided, confirmed }: { dryRun?: boolean; confirm?: ActivationConfirmation; decided?: ReadDecision; confirmed?: ConfirmedPlan } = {},
  ): AsyncGenerator<ActivationEvent> {
    const log = new RunLog();
    let plan: ActivationPlan;
    let reads: ActivationReads;
    let release = () => {};
    const writes = this.forRun();
    /** What a confirmed plan wrote with the fresh reads: done, whatever those reads decide. */
    const started: StartedWrites = { deleted: [] };
    try {
      const replan = () => this.readConverging(request, confirm, dryRun);
      ({ plan, reads } = decided
        ? { plan: planToRun(decided, confirm, dryRun), reads: decided.reads }
        : confirmed && !dryRun && Date.now() - confirmed.readAt <= CONFIRMED_PLAN_FRESH_MS
          ? await this.startConfirmed(request, confirm, confirmed, writes, started)
          : await replan());
      if (!dryRun) ({ plan, reads, release } = await this.lock({ plan, reads }, replan));
      plan = withDeletedAtStart(plan, started.deleted, log);
      if (started.site && !usesSite(plan, started.site)) await this.discardSite(writes, started.site, log, plan);
    } catch (error) {
      for (const old of started.deleted) log.did(`delete:${old.id}`, { kind: 'service-deleted', service: old });
      if (started.site) await this.discardSite(writes, started.site, log);
      // After confirmed writes, "nothing was changed" is no longer true: the failed step says so, the result's done list says what was.
      const failure = asFailure(error, log.done.length === 0);
      const failedStep = FAILED_STEP[failure.code];
      yield step({ step: failedStep, status: 'failed', error: failure.error, ...(log.done.length > 0 && { afterWrites: true as const }) });
      yield log.failed(failedStep, failure, failure.plan && { plan: failure.plan });
      return;
    }
    try {
      const device = plan.device;
      yield step({ step: 'discover', status: 'done', device }, { deviceId: device.id });
      if (dryRun) {
        yield* planEvents(plan);
        yield { type: 'result', outcome: 'planned', plan, device, done: [], notDone: [] };
        return;
      }
      const siteStarted = started.site && usesSite(plan, started.site) ? started.site : undefined;
      yield* this.write(request, { plan, reads }, log, { ...writes, deleted: new Set(started.deleted.map((old) => old.id)) }, siteStarted);
    } finally {
      release();
    }
  }

  /**
   * A confirmed plan's run starts here, its first writes in the same wave as the fresh reads: the
   * services the agent confirmed deleting (exactly those, so nothing unconfirmed goes) and the site it
   * creates for an existing client (converging like any site creation: a site made meanwhile is
   * reconciled by its read-back). The plan is then made again from the fresh reads, without what was
   * deleted: an Active service that appeared meanwhile means no create, a new Quoted one is an
   * unconfirmed delete, a device that moved refuses the move it no longer matches. A delete that failed
   * is left to the plan (sent again, or reported). `started` receives what was written, for the report.
   */
  private async startConfirmed(request: ActivationRequest, confirm: ActivationConfirmation, confirmed: ConfirmedPlan, writes: WriteDeps, started: StartedWrites): Promise<PlanToRun> {
    const { statuses } = this.deps.settings;
    const allowed = confirm.deletes ?? [];
    const deletes = confirmed.deletes.filter((s) => (allowed === 'any' || allowed.includes(s.id)) && dispositionOf(s.status, statuses) === 'replace');
    const { clientId, site } = confirmed;
    if (clientId !== undefined && site) {
      const siting = ensureSite(writes, clientId, { action: 'create', name: site.name, parentSiteId: site.parentSiteId }, site.name, site.deviceId, true);
      siting.catch(() => {}); // awaited by the site step, or when the fresh plan does not use it
      started.site = { clientId, deviceId: site.deviceId, siting };
    }
    const [read, ...outcomes] = await Promise.allSettled([this.readAll(request, clientId), ...deletes.map((s) => deleteReplaced(writes, s.id))]);
    const listed = read.status === 'fulfilled' ? read.value.services : [];
    deletes.forEach((shown, i) => {
      if (outcomes[i]!.status === 'rejected') return;
      // As the fresh read listed it when it came back first; else as the agent was shown it.
      const fresh = listed.find((s) => s.id === shown.id);
      started.deleted.push(fresh ? serviceRefOf(fresh, statuses) : { id: shown.id, status: shown.status, statusLabel: statusLabel(shown.status, statuses), name: null });
    });
    // The fresh reads without what this run itself has just written: what it deleted, the site it is creating.
    const fresh = settled(read);
    const reads = { ...fresh, services: listed.filter((s) => !started.deleted.some((old) => old.id === s.id)), sites: fresh.sites.filter((s) => !noteHas(s.description?.note, writes.run)) };
    try {
      return { plan: planToRun(decideActivation(reads), confirm, false), reads };
    } catch (error) {
      // What `readConverging` reads again for (a device between the two lists, SubOps' own duplicate clients).
      if (error instanceof ActivationFailure && (error.code === 'device-not-found' || error.code === 'client-ambiguous')) return this.readConverging(request, confirm, false);
      throw error;
    }
  }

  /**
   * A site started for the confirmed plan that the fresh plan does not use (it reuses another, or was
   * refused): removed again if this run made it, unless the plan (read again after waiting for the lock) reuses it.
   */
  private async discardSite(writes: WriteDeps, { siting }: StartedSite, log: RunLog, plan?: ActivationPlan): Promise<void> {
    const made = await siting.catch(() => undefined);
    if (!made?.created || (plan?.site.action === 'reuse' && plan.site.site.id === made.record.id)) return;
    try {
      await removeOwnSite(writes, made.record); // made and removed: nothing to report
    } catch {
      log.did('site', { kind: 'site-unused', site: siteRef(made.record) });
    }
  }

  /**
   * The plan, read again when another process changed what it read: a device another run authorized
   * while the two device lists were being read is in neither, and a name made ambiguous only by SubOps'
   * own duplicate clients (a lost create that landed late) is tidied up first.
   */
  private async readConverging(request: ActivationRequest, confirm: ActivationConfirmation, dryRun: boolean): Promise<PlanToRun> {
    for (let again = 0; ; again++) {
      try {
        const decision = await this.read(request);
        return { plan: planToRun(decision, confirm, dryRun), reads: decision.reads };
      } catch (error) {
        if (!(error instanceof ActivationFailure) || again >= READ_AGAIN_LIMIT) throw error;
        if (error.code === 'device-not-found' && again === 0) continue;
        if (error.code !== 'client-ambiguous' || request.clientId !== undefined) throw error;
        // Other processes may still be creating (and tidying) their own duplicates: tidy, then look again.
        if (!(await removeDuplicateClients(this.writes, { firstName: titleCase(request.firstName), lastName: titleCase(request.lastName) }))) throw error;
      }
    }
  }

  /** Takes this process's lock on the plan's ids; a run that had to wait plans again from UISP's new state. */
  private async lock(planned: PlanToRun, replan: () => Promise<PlanToRun>): Promise<PlanToRun & { release: () => void }> {
    for (;;) {
      const held = lockKeys(planned.plan);
      const { release, waited } = await this.deps.locks.acquire(held);
      if (!waited) return { ...planned, release };
      try {
        planned = await replan();
      } catch (error) {
        release();
        throw error;
      }
      if (lockKeys(planned.plan).every((key) => held.includes(key))) return { ...planned, release };
      release();
    }
  }

  /** `siteStarted`: the plan's site, already under way for its existing client (a confirmed plan's start). */
  private async *write(request: ActivationRequest, { plan, reads }: PlanToRun, log: RunLog, writes: WriteDeps, siteStarted?: StartedSite): AsyncGenerator<ActivationEvent> {
    const { device } = plan;
    log.expect(plan);

    let client: ClientRef;
    let clientIsNew = false;
    /** The site, started as soon as the new client's creation was answered (it needs only the client's id). */
    let early: { clientId: number; siting: Promise<SiteOutcome> } | undefined = siteStarted;
    if (plan.client.action === 'reuse') {
      client = plan.client.client;
      yield step({ step: 'client', status: 'skipped', kind: 'reused', client }, { clientId: client.id });
    } else {
      const { firstName, lastName } = plan.client;
      const site = plan.site;
      const startSite =
        site.action === 'create'
          ? (created: Client) => {
              if (early) return;
              const siting = ensureSite(writes, created.id, site, clientRef(created).name, device.id, true);
              siting.catch(() => {}); // awaited below, whatever happens to the client
              early = { clientId: created.id, siting };
            }
          : undefined;
      let outcome;
      try {
        outcome = await ensureClient(writes, { firstName, lastName }, contactOf(request), startSite);
      } catch (error) {
        log.unconfirmed('client', error, (id) => ({ kind: 'client-created', client: { id: Number(id), name: `${firstName} ${lastName}` }, unconfirmed: true }));
        yield step({ step: 'client', status: 'failed', error: errorOf(error) });
        // A site started for the new client exists too: the report says so.
        const siteMade = early && (await early.siting.catch(() => undefined));
        if (siteMade?.created) log.did('site', { kind: 'site-created', site: { name: siteMade.record.identification.name }, forClientId: early!.clientId });
        yield log.failed('client', error, { device });
        return;
      }
      client = clientRef(outcome.record);
      clientIsNew = outcome.created;
      log.removed('client', outcome.removed);
      if (early && early.clientId !== client.id) {
        // The client this run made was another run's duplicate: so is the site started for it.
        const started = await early.siting.catch(() => undefined);
        if (started?.created) {
          try {
            await removeOwnSite(writes, started.record);
          } catch (error) {
            const leftover = { site: siteRef(started.record), clientId: early.clientId };
            log.did('site', { kind: 'site-left-over', ...leftover });
            yield step({ step: 'site', status: 'failed', error: errorOf(error), leftoverSite: leftover });
            yield log.failed('site', error, { device, client });
            return;
          }
          log.removed('site', [started.record]);
        }
        early = undefined;
      }
      if (outcome.created) {
        log.did('client', { kind: 'client-created', client });
        yield step({ step: 'client', status: 'done', kind: 'created', client }, { clientId: client.id });
      } else {
        log.settled('client');
        yield step({ step: 'client', status: 'skipped', kind: 'created-concurrently', client }, { clientId: client.id });
      }
    }

    // The service and the site depend only on the client, so both go out together. The device is let on
    // as soon as its site is settled and an Active service is known to exist (created Active, before its
    // read-back ends): the read-back only decides which Active service is kept.
    let serviceIsActive!: () => void;
    const serviceActive = new Promise<true>((resolve) => (serviceIsActive = () => resolve(true)));
    // Each branch logs on its own, replayed in step order, so the report's order does not depend on timing.
    const serviceLog = new BranchLog();
    const siteLog = new BranchLog();
    const servicing = this.ensureService(writes, plan, reads, client, clientIsNew, serviceLog, () => serviceIsActive());
    const siting = this.ensureSite(writes, plan, reads, client, clientIsNew, siteLog, early?.siting);
    const authorizing = (async () => {
      const settledSite = await siting;
      const ready = await Promise.race([serviceActive, servicing.then(() => true, () => false)]);
      return ready ? this.authorize(writes, plan, settledSite) : undefined;
    })();
    const [serviceOutcome, siteOutcome, authorizeOutcome] = await Promise.allSettled([servicing, siting, authorizing]);
    serviceLog.replay(log);
    siteLog.replay(log);
    const failures: { name: StepName; error: unknown }[] = [];
    for (const [name, outcome] of [['service', serviceOutcome], ['site', siteOutcome]] as const) {
      if (outcome.status === 'fulfilled') {
        yield outcome.value.event;
      } else {
        failures.push({ name, error: outcome.reason });
        log.unconfirmed(name, outcome.reason, (id) =>
          name === 'service' ? { kind: 'service-created-unconfirmed', serviceId: Number(id) } : { kind: 'site-created', site: { name: client.name }, unconfirmed: true },
        );
        yield step({ step: name, status: 'failed', error: errorOf(outcome.reason) });
      }
    }
    const service = serviceOutcome.status === 'fulfilled' ? serviceOutcome.value.service : undefined;
    const site = siteOutcome.status === 'fulfilled' ? siteOutcome.value.site : undefined;
    const authorized = authorizeOutcome.status === 'fulfilled' ? authorizeOutcome.value : undefined;
    if (authorized?.status === 'done' && 'site' in authorized) log.did('authorize', { kind: 'authorized', device, site: authorized.site });
    if (!service || !site) {
      if (authorized) yield authorized;
      yield log.failed(failures[0]!.name, failures[0]!.error, { device, client, ...(service && { service }), ...(site && { site }) });
      return;
    }
    if (authorizeOutcome.status === 'rejected') {
      yield step({ step: 'authorize', status: 'failed', error: errorOf(authorizeOutcome.reason) });
      yield log.failed('authorize', authorizeOutcome.reason, { device, client, service, site });
      return;
    }
    if (authorized?.status === 'skipped') log.settled('authorize');
    if (authorized) yield authorized;

    const crmClientUrl = this.crmClientUrl(client.id);
    yield step({ step: 'manual-link', status: 'manual', client, crmClientUrl, site, device }, { clientId: client.id, siteId: site.id, deviceId: device.id });
    yield {
      type: 'result',
      outcome: log.done.length === 0 ? 'already-activated' : 'activated',
      device,
      client,
      service,
      site,
      crmClientUrl,
      ...(plan.move && { movedFrom: plan.move }),
      done: log.done,
      notDone: [],
    };
  }

  /** Authorizes the device onto the settled site, unless it is there already: where it is now (read with the site) wins over the plan. */
  private async authorize(writes: WriteDeps, plan: ActivationPlan, { site, device: now }: { site: SiteRef; device: DeviceState | undefined }): Promise<StepEvent> {
    const { device } = plan;
    const onSite = now ? now.authorized && now.siteId === site.id : plan.authorize.action === 'skip';
    const ids = { deviceId: device.id, siteId: site.id };
    if (onSite) return step({ step: 'authorize', status: 'skipped', device, site }, ids);
    await ensureAuthorized(writes, device.id, site.id);
    return step({ step: 'authorize', status: 'done', device, site }, ids);
  }

  /**
   * `clientIsNew`: this run created the client just now, so nothing can hang under it yet but what it makes.
   * `active`: called once an Active service is known to exist (before a new one's read-back ends).
   */
  private async ensureService(
    writes: WriteDeps,
    plan: ActivationPlan,
    reads: ActivationReads,
    client: ClientRef,
    clientIsNew: boolean,
    log: StepLog,
    active: () => void,
  ): Promise<{ service: ServiceRef; event: StepEvent }> {
    const { statuses } = this.deps.settings;
    if (plan.service.action === 'reuse') {
      active();
      // The plan read this client's services: a reused service is always an existing client's.
      const kept = await settleActiveService(writes, client.id, plan.service.service, reads.services.filter((s) => s.status === statuses.active));
      const service = kept ? serviceRefOf(kept.record, statuses) : plan.service.service;
      log.removed('service', kept?.removed ?? []);
      return { service, event: step({ step: 'service', status: 'skipped', kind: 'already-active', service }, { clientId: client.id, serviceId: service.id }) };
    }
    const planned = plan.service;
    // The plan's read of this client's services is fresh unless another run made the client.
    const outcome = await ensureActiveService(writes, client.id, planned, plan.client.action === 'reuse' || clientIsNew, (created) => created.status === statuses.active && active());
    const deleted = outcome.deleted.map((old) => old.id);
    for (const old of outcome.deleted) log.did(`delete:${old.id}`, { kind: 'service-deleted', service: old });
    log.removed('service', outcome.removed);
    const service = serviceRefOf(outcome.record, statuses);
    if (!outcome.created) {
      log.settled('service');
      return { service, event: step({ step: 'service', status: 'skipped', kind: 'created-concurrently', service, deleted }, { clientId: client.id, serviceId: service.id }) };
    }
    const created = { step: 'service', status: 'done', kind: 'created', service, price: planned.price, currency: outcome.record.currencyCode, activeFrom: planned.activeFrom, deleted } as const;
    log.did('service', { kind: 'service-created', service, price: created.price, currency: created.currency, activeFrom: created.activeFrom, deleted });
    if (outcome.record.status !== statuses.active) {
      // UISP can leave a new service Quoted (spec §7); the device must not be let on without an Active one.
      throw new ActivationFailure({ code: 'uisp-error', problem: 'service-not-active', service });
    }
    return { service, event: step(created, { clientId: client.id, serviceId: service.id, ...(deleted.length && { deletedServiceIds: deleted.join(',') }) }) };
  }

  /** `started`: the site's convergence, already under way for this client. */
  private async ensureSite(
    writes: WriteDeps,
    plan: ActivationPlan,
    reads: ActivationReads,
    client: ClientRef,
    clientIsNew: boolean,
    log: StepLog,
    started?: Promise<SiteOutcome>,
  ): Promise<{ site: SiteRef; event: StepEvent; device: DeviceState | undefined }> {
    const deviceId = plan.device.id;
    if (plan.site.action === 'reuse') {
      const read = [...reads.authorized, ...reads.discovered].find((d) => d.identification.id === deviceId);
      const kept = await settleSite(writes, client.id, plan.site.site.id, reads.sites, read);
      const device = read && deviceState(read);
      const site = kept ? siteRef(kept.record) : plan.site.site;
      log.removed('site', kept?.removed ?? []);
      return { site, device, event: step({ step: 'site', status: 'skipped', kind: 'reused', site }, { siteId: site.id }) };
    }
    const outcome = await (started ?? ensureSite(writes, client.id, plan.site, client.name, deviceId, clientIsNew || plan.client.action === 'reuse'));
    const site = siteRef(outcome.record);
    log.removed('site', outcome.removed);
    if (!outcome.created) {
      log.settled('site');
      return { site, device: outcome.device, event: step({ step: 'site', status: 'skipped', kind: 'created-concurrently', site }, { siteId: site.id }) };
    }
    log.did('site', { kind: 'site-created', site });
    return { site, device: outcome.device, event: step({ step: 'site', status: 'done', kind: 'created', site }, { siteId: site.id }) };
  }

  /** The reads, then the planner. */
  private async read(request: ActivationRequest): Promise<ReadDecision> {
    const readAt = Date.now();
    const reads = await this.readAll(request);
    return { ...decideActivation(reads), reads, readAt };
  }

  /**
   * One round of independent reads, then (for a name lookup) the identified client's services.
   * `expectedClientId`: the client an earlier decision identified by name (a confirmed plan); its
   * services are read together with the name lookup, so the reads take one round trip.
   */
  private async readAll(request: ActivationRequest, expectedClientId?: number): Promise<ActivationReads> {
    const { nms, settings } = this.deps;
    const query = parseDeviceQuery(request.device);
    const firstName = titleCase(request.firstName);
    const lastName = titleCase(request.lastName);
    const explicitId = request.clientId;
    const [authorized, discovered, lookup, sites] = await Promise.allSettled([
      nms.listDevices(),
      nms.listDiscoveredDevices(),
      explicitId !== undefined ? this.lookUpId(explicitId) : this.lookUpName(`${firstName} ${lastName}`, firstName, lastName, expectedClientId),
      nms.listSites(),
    ]);
    const { lookup: clientLookup, services } = settled(lookup);
    const reads: ActivationReads = {
      query,
      firstName,
      lastName,
      authorized: settled(authorized),
      discovered: settled(discovered),
      lookup: clientLookup,
      services,
      sites: settled(sites),
      settings,
      today: this.deps.today(),
    };
    return reads;
  }

  /** The client and its services together; an unknown id is a lookup result (the planner refuses it), not an error. */
  private async lookUpId(id: number): Promise<{ lookup: ClientLookup; services: Service[] }> {
    const [client, services] = await Promise.all([this.deps.crm.getClient(id).catch(nullWhenNotFound), this.deps.crm.listServices(id).catch(emptyWhenNotFound)]);
    return { lookup: { by: 'id', id, client }, services };
  }

  /**
   * Active and archived namesakes (persons and companies); then the services of the one it identifies,
   * read with the namesakes when the caller expects that client.
   */
  private async lookUpName(query: string, firstName: string, lastName: string, expectedClientId?: number): Promise<{ lookup: ClientLookup; services: Service[] }> {
    const { crm } = this.deps;
    const [active, archived, expected] = await Promise.all([
      crm.listClients({ query }),
      crm.listClients({ query, isArchived: true }),
      expectedClientId === undefined ? undefined : crm.listServices(expectedClientId).catch(emptyWhenNotFound),
    ]);
    const lookup: ClientLookup = { by: 'name', active, archived };
    const identity = identifyClient(lookup, firstName, lastName);
    const client = 'client' in identity ? identity.client : null;
    if (!client) return { lookup, services: [] };
    return { lookup, services: expected && client.id === expectedClientId ? expected : await crm.listServices(client.id) };
  }
}

/**
 * The plan to run: a refusal, a service deletion or a device move the caller has not confirmed, stops
 * here (a dry run only shows them). Deleting fewer services than confirmed is fine; any other is not.
 */
function planToRun(decision: ActivationDecision, confirm: ActivationConfirmation, dryRun: boolean): ActivationPlan {
  if (decision.kind === 'refused') throw new ActivationFailure(decision.refusal);
  const { plan } = decision;
  if (dryRun) return plan;
  const confirmed = confirm.deletes ?? [];
  const deletes = plan.service.action === 'create' ? plan.service.delete : [];
  const unconfirmed = confirmed === 'any' ? [] : deletes.filter((s) => !confirmed.includes(s.id));
  if (unconfirmed.length) {
    throw new ActivationFailure({ code: 'delete-unconfirmed', services: unconfirmed, client: plan.client.action === 'reuse' ? plan.client.client : null }, plan);
  }
  const move = plan.move;
  if (move && confirm.moveFrom !== 'any' && confirm.moveFrom !== move.site.id) throw new ActivationFailure({ code: 'device-in-use', device: plan.device, move }, plan);
  return plan;
}

/**
 * Confirmed deletes sent at the run's start belong to its plan while it still creates the service (they
 * are reported with it, and not sent again); otherwise (an Active service appeared meanwhile) they are
 * reported on their own.
 */
function withDeletedAtStart(plan: ActivationPlan, deleted: ServiceRef[], log: RunLog): ActivationPlan {
  if (!deleted.length) return plan;
  if (plan.service.action !== 'create') {
    for (const old of deleted) log.did(`delete:${old.id}`, { kind: 'service-deleted', service: old });
    return plan;
  }
  const later = plan.service.delete.filter((s) => !deleted.some((old) => old.id === s.id));
  return { ...plan, service: { ...plan.service, delete: [...deleted, ...later] }, destructive: true };
}

function nullWhenNotFound(error: unknown): null {
  if (error instanceof UispNotFoundError) return null;
  throw error;
}

function emptyWhenNotFound(error: unknown): Service[] {
  return nullWhenNotFound(error) ?? [];
}

/** The step a planning failure belongs to, so front ends label it where the agent looks for it. */
const FAILED_STEP: Record<ActivationErrorCode, StepName> = {
  'device-not-found': 'discover',
  'device-ambiguous': 'discover',
  'device-infrastructure': 'discover',
  'device-role-unknown': 'discover',
  'device-in-use': 'authorize',
  'delete-unconfirmed': 'service',
  'client-not-found': 'client',
  'client-name-mismatch': 'client',
  'client-archived': 'client',
  'client-ambiguous': 'client',
  'service-suspended': 'service',
  'parent-site-not-found': 'site',
  'uisp-error': 'discover',
};

function settled<T>(result: PromiseSettledResult<T>): T {
  if (result.status === 'rejected') throw result.reason;
  return result.value;
}

function contactOf(request: ActivationRequest): { email?: string; phone?: string } {
  return { ...(request.email && { email: request.email }), ...(request.phone && { phone: request.phone }) };
}

function step(outcome: StepOutcome, ids: StepEvent['ids'] = {}): StepEvent {
  return { type: 'step', ...outcome, ids };
}

function* planEvents(plan: ActivationPlan): Generator<StepEvent> {
  yield step({ step: 'client', status: 'planned', plan: plan.client });
  yield step({ step: 'service', status: 'planned', plan: plan.service }, plan.service.action === 'reuse' ? { serviceId: plan.service.service.id } : {});
  yield step({ step: 'site', status: 'planned', plan: plan.site });
  yield step({ step: 'authorize', status: 'planned', device: plan.device, authorize: plan.authorize, move: plan.move }, { deviceId: plan.device.id });
}

/** `beforeWrites`: it was thrown while planning, so nothing was written. */
function asFailure(error: unknown, beforeWrites = false): ActivationFailure {
  if (error instanceof ActivationFailure) return error;
  return new ActivationFailure(uispFailure(error, beforeWrites));
}

/** A failed request as facts: the UISP client's description of it, and whether the write may have landed. */
function uispFailure(error: unknown, beforeWrites: boolean): UispFailure {
  const detail = error instanceof Error ? error.message : String(error);
  return { code: 'uisp-error', problem: 'request', detail, mayHaveApplied: error instanceof UispError && error.mayHaveApplied, beforeWrites };
}

/** What a failed write step reports. */
const errorOf = (error: unknown): ActivationError => asFailure(error).error;

/** What a step reports to the run's log. */
type StepLog = Pick<RunLog, 'did' | 'settled' | 'removed'>;

/** A step's log entries, kept until the run replays them in step order. */
class BranchLog implements StepLog {
  private readonly entries: ((log: StepLog) => void)[] = [];
  did(key: string, entry: DoneEntry): void {
    this.entries.push((log) => log.did(key, entry));
  }
  settled(key: string): void {
    this.entries.push((log) => log.settled(key));
  }
  removed(kind: RecordKind, records: { id: number | string }[]): void {
    this.entries.push((log) => log.removed(kind, records));
  }
  replay(log: StepLog): void {
    for (const entry of this.entries) entry(log);
  }
}

type RecordKind = Extract<DoneEntry, { kind: 'duplicate-removed' }>['record'];

/** Tracks what has been written and what the plan still expected, for honest failure reports. */
class RunLog {
  readonly done: DoneEntry[] = [];
  /** Planned writes not yet made, keyed by step name or `delete:<service id>`. */
  private readonly pending = new Map<string, PendingEntry>();

  expect(plan: ActivationPlan): void {
    if (plan.client.action === 'create') this.pending.set('client', { kind: 'create-client', firstName: plan.client.firstName, lastName: plan.client.lastName });
    if (plan.service.action === 'create') {
      for (const old of plan.service.delete) this.pending.set(`delete:${old.id}`, { kind: 'delete-service', service: old });
      this.pending.set('service', { kind: 'create-service' });
    }
    if (plan.site.action === 'create') this.pending.set('site', { kind: 'create-site', name: plan.site.name });
    if (plan.authorize.action === 'authorize') this.pending.set('authorize', { kind: 'authorize', device: plan.device });
  }

  did(key: string, entry: DoneEntry): void {
    this.done.push(entry);
    this.pending.delete(key);
  }

  /** A planned write another run made first: no longer pending, and not done by this run. */
  settled(key: string): void {
    this.pending.delete(key);
  }

  /** A write that landed although its step failed afterwards (its read-back, say): it is done, and said so. */
  unconfirmed(key: string, error: unknown, entry: (id: string | number) => DoneEntry): void {
    if (error instanceof UnconfirmedCreateError) this.did(key, entry(error.id));
  }

  /** Duplicates removed while converging (this run's own, or leftovers of lost writes). */
  removed(kind: RecordKind, records: { id: number | string }[]): void {
    for (const record of records) this.done.push({ kind: 'duplicate-removed', record: kind, id: record.id });
  }

  failed(name: StepName, error: unknown, reached: Partial<Pick<ActivationResult, 'device' | 'client' | 'service' | 'site' | 'plan'>> = {}): ActivationResult {
    return { type: 'result', outcome: 'failed', failedStep: name, error: asFailure(error).error, ...reached, done: [...this.done], notDone: [...this.pending.values()] };
  }
}
