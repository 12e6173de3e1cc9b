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
import { setTimeout as delay } from 'node:timers/promises';
import type { ActivationConfig } from '../../config.js';
import type { CrmClient } from '../uisp/crm-client.js';
import { creationStamp, noteHas, UnconfirmedCreateError, type Converged, type KeyedLock, type WriteRetryPolicy } from '../converge.js';
import { UispError, UispNotFoundError, UispWriteNotAppliedError } from '../uisp/errors.js';
import type { NmsClient } from '../uisp/nms-client.js';
import type { Client, ClientLog, Service, Site } from '../uisp/schemas.js';
import { parseDeviceQuery } from './device-match.js';
import { createdStampOf, creatorRun, leaseHolder, loggedAt, runOf, type LeaseHolder } from './lease.js';
import { runMarker } from './markers.js';
import { titleCase } from './names.js';
import { clientRef, decideActivation, identifyClient, markedClientId, markedFor, namesakeIds, ownSites, siteRef, type ActivationReads, type ClientLookup } from './planner.js';
import { dispositionOf, statusLabel } from './service-status.js';
import {
  createClient,
  createService,
  createSite,
  deleteReplaced,
  deviceState,
  ensureAuthorized,
  ensureSite,
  markSite,
  markedNamesakes,
  releaseLease,
  removeDuplicateClients,
  removeEmptyClient,
  removeOwnSite,
  settleActiveService,
  settleSite,
  takeLease,
  type DeviceState,
  type SiteOwner,
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

/** What a confirmed plan's run wrote at its start, with its fresh reads. */
interface StartedWrites {
  deleted: ServiceRef[];
  /** The lease on the confirmed plan's client, taken in that wave (`sentAt`: when, on this host's clock). */
  lease?: { clientId: number; taking: Promise<ClientLog>; sentAt: number };
  /** The site created for that client in that wave, and the device it is for. */
  site?: { clientId: number; deviceId: string; creating: Promise<Converged<Site>> };
}

/** Whether the plan creates the service for the client the confirmed writes were for (under the lease taken then). */
const createsFor = (plan: ActivationPlan, clientId: number | undefined) => plan.service.action === 'create' && plan.client.action === 'reuse' && plan.client.client.id === clientId;

/** Whether the plan creates the site started with the confirmed writes (same client, same device). */
const usesSite = (plan: ActivationPlan, site: StartedWrites['site']) =>
  site !== undefined && plan.site.action === 'create' && plan.client.action === 'reuse' && plan.client.client.id === site.clientId && plan.device.id === site.deviceId;

/** How many times a plan is read again when concurrent writes changed what it read. */
const READ_AGAIN_LIMIT = 3;

/** Keys of the in-process lock: resolved ids, never typed text (the same device typed two ways is one key). */
const lockKeys = (plan: ActivationPlan) => [`device:${plan.device.id}`, ...(plan.client.action === 'reuse' ? [`client:${plan.client.client.id}`] : [])];

/** A run that finds another run holding the lease waits for it: this long between looks, at most. */
const WAIT_STEP_MAX_MS = 5_000;

/** What `writeOnce` ended with: done (a result yielded), or another run holds the client and this one waits for it. */
type WriteOutcome = { done: true } | ({ done: false } & Waiting);

/** Another run holding a client's lease, which this run waits for. */
interface Waiting {
  clientId: number;
  holder: LeaseHolder;
  /** The held client, when this run has just read it (its sites are found by it). */
  client?: Client;
}

export class ActivationService {
  /** Shared by every run; each run adds its own marker (`forRun`). */
  private readonly writes: Omit<WriteDeps, 'run' | 'runId'>;

  constructor(private readonly deps: ActivationDeps) {
    this.writes = { crm: deps.crm, nms: deps.nms, settings: deps.settings, retry: deps.writeRetry, clock: deps.clock ?? creationStamp };
  }

  private forRun(): WriteDeps {
    const runId = randomUUID().slice(0, 8);
    return { ...this.writes, run: runMarker(runId), runId };
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
   * first is done); across processes, a run creating a client's service holds its lease (./lease.ts).
   * `decided`: a decision for this request the caller has just read (`decide`), used instead of reading
   * UISP again. `confirmed`: the plan a confirmation showed (read a while ago): its first writes go out at
   * once, with the fresh reads that decide the rest (`startConfirmed`).
   */
  async *run(
    request: ActivationRequest,
    { dryRun = false, confirm = {}, decided, confirmed }: { dryRun?: boolean; confirm?: ActivationConfirmation; decided?: ReadDecision; confirmed?: ConfirmedPlan } = {},
  ): AsyncGenerator<ActivationEvent> {
    const log = new RunLog();
    let planned: PlanToRun;
    let release = () => {};
    const writes = this.forRun();
    /** What a confirmed plan wrote with the fresh reads: done, whatever those reads decide. */
    const started: StartedWrites = { deleted: [] };
    const replan = () => this.readConverging(request, confirm, dryRun);
    try {
      planned = decided
        ? { plan: planToRun(decided, confirm, dryRun), reads: decided.reads }
        : confirmed && !dryRun && confirmed.deletes.length > 0 && Date.now() - confirmed.readAt <= CONFIRMED_PLAN_FRESH_MS
          ? await this.startConfirmed(request, confirm, confirmed, writes, started)
          : await replan();
      if (!dryRun) ({ release, ...planned } = await this.lock(planned, replan));
      planned = { ...planned, plan: withDeletedAtStart(planned.plan, started.deleted, log) };
      const keepSite = usesSite(planned.plan, started.site);
      await this.discardStarted(writes, started, log, planned.plan, { site: keepSite, lease: keepSite || createsFor(planned.plan, started.lease?.clientId) });
    } catch (error) {
      for (const old of started.deleted) log.did(`delete:${old.id}`, { kind: 'service-deleted', service: old });
      await this.discardStarted(writes, started, log);
      // After confirmed writes, "nothing was changed" is no longer true: the failed step says so, the result's done list says what was.
      const failure = asFailure(error, log.done.length === 0);
      const failedStep = FAILED_STEP[failure.code];
      yield step({ step: failedStep, status: 'failed', error: failure.error, ...(log.done.length > 0 && { afterWrites: true as const }) });
      yield log.failed(failedStep, failure, failure.plan && { plan: failure.plan });
      return;
    }
    try {
      const device = planned.plan.device;
      yield step({ step: 'discover', status: 'done', device }, { deviceId: device.id });
      if (dryRun) {
        yield* planEvents(planned.plan);
        yield { type: 'result', outcome: 'planned', plan: planned.plan, device, done: [], notDone: [] };
        return;
      }
      let from: StartedWrites | undefined = started;
      for (let again = 0; ; again++) {
        const outcome = yield* this.writeOnce(request, planned, log, writes, from);
        if (outcome.done) return;
        from = undefined;
        const waitingFor = busyClient(outcome, planned.plan);
        yield step({ step: 'service', status: 'waiting', client: waitingFor, run: outcome.holder.run, since: outcome.holder.since }, { clientId: waitingFor.id });
        try {
          if (again >= READ_AGAIN_LIMIT) throw new ActivationFailure(busy(outcome, planned.plan, this.deps.settings.leaseMs));
          planned = await this.waitFor(request, confirm, writes, outcome, planned.plan);
        } catch (error) {
          const failure = asFailure(error);
          yield step({ step: FAILED_STEP[failure.code], status: 'failed', error: failure.error, ...(log.done.length > 0 && { afterWrites: true as const }) });
          yield log.failed(FAILED_STEP[failure.code], failure, { device });
          return;
        }
      }
    } finally {
      release();
    }
  }

  /**
   * A confirmed plan's run starts here, its first writes in the same wave as the fresh reads: the lease
   * on the client, the services the agent confirmed deleting (exactly those, so nothing unconfirmed goes)
   * and the site the plan creates for it. The plan is then made again from the fresh reads, without what
   * was deleted: an Active service that appeared meanwhile means no create, a new Quoted one is an
   * unconfirmed delete, a device that moved refuses the move it no longer matches. A delete that failed is
   * left to the plan (sent again, or reported). `started` receives what was written, for the report.
   */
  private async startConfirmed(request: ActivationRequest, confirm: ActivationConfirmation, confirmed: ConfirmedPlan, writes: WriteDeps, started: StartedWrites): Promise<PlanToRun> {
    const { statuses } = this.deps.settings;
    const allowed = confirm.deletes ?? [];
    const deletes = confirmed.deletes.filter((s) => (allowed === 'any' || allowed.includes(s.id)) && dispositionOf(s.status, statuses) === 'replace');
    const { clientId, site } = confirmed;
    if (clientId !== undefined && deletes.length) {
      const sentAt = Date.now();
      const taking = takeLease(writes, clientId);
      taking.catch(() => {}); // awaited by the write, or released when the fresh plan does not use it
      started.lease = { clientId, taking, sentAt };
      if (site) {
        const creating = createSite(writes, { action: 'create', name: site.name, parentSiteId: site.parentSiteId }, site.name, clientId);
        creating.catch(() => {});
        started.site = { clientId, deviceId: site.deviceId, creating };
      }
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
   * What a confirmed plan's start wrote that the plan (read again) does not use (`keep` says what it
   * does): the site is removed again (unless the plan reuses it), the lease given up.
   */
  private async discardStarted(writes: WriteDeps, started: StartedWrites, log: RunLog, plan?: ActivationPlan, keep = { site: false, lease: false }): Promise<void> {
    const { lease, site } = started;
    if (!keep.lease) started.lease = undefined;
    if (!keep.site) started.site = undefined;
    if (!keep.lease && lease && (await lease.taking.then(() => true, () => false))) await releaseLease(writes, lease.clientId);
    const made = !keep.site && site && (await site.creating.catch(() => undefined));
    if (!made || (plan?.site.action === 'reuse' && plan.site.site.id === made.record.id)) return;
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

  /**
   * Waits while another run holds the client's lease, reading UISP and planning again each time: until
   * the plan has nothing left to write (that run activated the customer), the lease is let go or runs
   * out (this run may write), or it has waited as long as a lease lasts (refused, with the facts).
   */
  private async waitFor(request: ActivationRequest, confirm: ActivationConfirmation, writes: WriteDeps, waiting: Waiting, plan: ActivationPlan): Promise<PlanToRun> {
    const { leaseMs } = this.deps.settings;
    const since = Date.now();
    for (let n = 0; ; n++) {
      await delay(Math.min(WAIT_STEP_MAX_MS, Math.max(1, writes.retry.backoffMs) * 2 ** n));
      const planned = await this.readConverging(request, confirm, false);
      const holder = this.otherHolder(planned, writes);
      if (!holder) return planned;
      if (Date.now() - since >= leaseMs) throw new ActivationFailure(busy({ ...waiting, holder }, plan, leaseMs));
    }
  }

  /**
   * Another run's live lease on the client of a plan (read with the plan), while that run may still be
   * writing: the plan has something left to write, or what it would keep is not yet what that run made
   * (its service, and its site or one no run made). Null when this run may go on.
   */
  private otherHolder(planned: PlanToRun, writes: WriteDeps): LeaseHolder | null {
    const { plan, reads } = planned;
    if (plan.client.action !== 'reuse') return null;
    const holder = leaseHolder(this.clientRecord(planned), reads.clientLogs, Date.now(), this.deps.settings.leaseMs);
    if (!holder || holder.run === writes.runId) return null;
    const writesSomething = plan.service.action === 'create' || plan.site.action === 'create' || plan.authorize.action === 'authorize';
    const noteOf = <T extends { id: number | string }>(records: (T & { note?: string | null })[], id: number | string) => records.find((r) => r.id === id)?.note;
    const theirService = plan.service.action === 'reuse' && runOf(noteOf(reads.services, plan.service.service.id)) === holder.run;
    const siteNote = plan.site.action === 'reuse' ? reads.sites.find((s) => s.id === (plan.site as { site: SiteRef }).site.id)?.description?.note : undefined;
    // The site kept is the holder's, or none a run made (one another run left may yet give way to the holder's).
    const siteRun = runOf(siteNote);
    const finished = !writesSomething && theirService && (siteRun === null || siteRun === holder.run);
    return finished ? null : holder;
  }

  /**
   * The writes of one plan. A plan that creates the service holds the client's lease (./lease.ts) and
   * writes in two waves: the client or the lease entry, with the site and the deletes; then the service,
   * the authorization and the lease check together. A run that turns out not to hold undoes what it
   * created and reports who does (`done: false`); the caller waits for that run and plans again.
   */
  private async *writeOnce(request: ActivationRequest, planned: PlanToRun, log: RunLog, writes: WriteDeps, started?: StartedWrites): AsyncGenerator<ActivationEvent, WriteOutcome> {
    const { plan } = planned;
    // A run still under way for this client (read with the plan): wait for it before writing anything.
    const holder = started?.lease ? null : this.otherHolder(planned, writes);
    if (holder) return { done: false, clientId: (plan.client as { client: ClientRef }).client.id, holder };
    if (plan.service.action === 'reuse') {
      yield* this.writeReusing(planned, log, writes, started);
      return { done: true };
    }
    return yield* this.writeLeased(request, planned, log, writes, started);
  }

  /** The client record the plan reuses, as read with it. */
  private clientRecord({ plan, reads }: PlanToRun): Client {
    const id = plan.client.action === 'reuse' ? plan.client.client.id : -1;
    const lookup = reads.lookup;
    const found = lookup.by === 'id' ? lookup.client : lookup.active.find((c) => c.id === id);
    return found ?? ({ id, note: null } as Client);
  }

  private async *writeLeased(request: ActivationRequest, planned: PlanToRun, log: RunLog, writes: WriteDeps, started?: StartedWrites): AsyncGenerator<ActivationEvent, WriteOutcome> {
    const { plan } = planned;
    const { device } = plan;
    const service = plan.service as Extract<ActivationPlan['service'], { action: 'create' }>;
    log.expect(plan);
    const made: Made = {};
    const siteName = plan.client.action === 'reuse' ? plan.client.client.name : `${plan.client.firstName} ${plan.client.lastName}`;

    // Wave 1: the client (a new one: its creation is the lease) or the lease entry, the deletes, the site.
    let client: ClientRef;
    let leaseAt: number | null = null;
    /** When this run's lease began, on this host's clock. */
    let leaseSince = Date.now();
    let siting: Promise<SiteRef>;
    const siteFor = (owner: SiteOwner): Promise<SiteRef> => {
      if (plan.site.action === 'reuse') return Promise.resolve(plan.site.site);
      const creating = started?.site?.creating ?? createSite(writes, plan.site, siteName, owner);
      return creating.then((outcome) => {
        made.site = outcome.record;
        return siteRef(outcome.record);
      });
    };
    if (plan.client.action === 'create') {
      siting = siteFor({ firstName: plan.client.firstName, lastName: plan.client.lastName });
      siting.catch(() => {}); // awaited below, whatever happens to the client
      const { firstName, lastName } = plan.client;
      try {
        const outcome = await createClient(writes, { firstName, lastName }, contactOf(request));
        if (!outcome.created) {
          // A retry found the customer created by another run meanwhile: that run holds it.
          const other = outcome.record;
          await this.undo(writes, made, plan, { clientId: other.id, client: other, holder: { run: creatorRun(other) ?? '', since: createdStampOf(other.note) } }, log, siting);
          return { done: false, clientId: other.id, client: other, holder: { run: creatorRun(other) ?? '', since: createdStampOf(other.note) } };
        }
        made.client = outcome.record;
        client = clientRef(outcome.record);
      } catch (error) {
        log.unconfirmed('client', error, (id) => ({ kind: 'client-created', client: { id: Number(id), name: `${firstName} ${lastName}` }, unconfirmed: true }));
        yield step({ step: 'client', status: 'failed', error: errorOf(error) });
        await this.removeUnusedSite(writes, siting, made, log);
        yield log.failed('client', error, { device });
        return { done: true };
      }
      log.did('client', { kind: 'client-created', client });
    } else {
      client = plan.client.client;
      leaseSince = started?.lease?.sentAt ?? Date.now();
      const leasing = started?.lease?.taking ?? takeLease(writes, client.id);
      siting = siteFor(client.id);
      siting.catch(() => {});
      const deleting = service.delete.filter((old) => !started?.deleted.some((d) => d.id === old.id)).map((old) => deleteReplaced(writes, old.id).then(() => old));
      const [lease, ...deletes] = await Promise.allSettled([leasing, ...deleting]);
      // The deletes a confirmed plan sent at its start are this plan's too, reported with the others.
      for (const old of service.delete) if (started?.deleted.some((d) => d.id === old.id)) log.did(`delete:${old.id}`, { kind: 'service-deleted', service: old });
      deletes.forEach((d) => d.status === 'fulfilled' && log.did(`delete:${d.value.id}`, { kind: 'service-deleted', service: d.value }));
      const failed = [lease, ...deletes].find((r) => r.status === 'rejected');
      if (lease.status === 'fulfilled') leaseAt = loggedAt(lease.value);
      if (failed) {
        yield step({ step: 'service', status: 'failed', error: errorOf(failed.reason), ...(log.done.length > 0 && { afterWrites: true as const }) });
        await this.removeUnusedSite(writes, siting, made, log);
        if (lease.status === 'fulfilled') await releaseLease(writes, client.id);
        yield log.failed('service', failed.reason, { device, client });
        return { done: true };
      }
    }

    // Wave 2: the service, the authorization (once the site is there) and the lease check, together.
    const isNew = plan.client.action === 'create';
    const clientId = client.id;
    if (isNew) leaseSince = createdStampOf(made.client!.note) ?? leaseSince;
    // Its writes must start well inside its lease (half of it leaves a write step's retries room, see config.ts).
    if (Date.now() - leaseSince > this.deps.settings.leaseMs / 2) {
      await releaseLease(writes, clientId);
      // Its site stays: it is the customer's (a retry reuses it); the report says it was made.
      await siting.catch(() => undefined);
      if (made.site) log.did('site', { kind: 'site-created', site: siteRef(made.site) });
      const error = new ActivationFailure({ code: 'lease-expired', client });
      yield step({ step: 'service', status: 'failed', error: error.error, ...(log.done.length > 0 && { afterWrites: true as const }) });
      yield log.failed('service', error, { device, client });
      return { done: true };
    }
    const creating = createService(writes, clientId, service);
    // A new client's site gets the client's id (it was made before the client had one).
    const marking = isNew && plan.site.action === 'create' ? siting.then(() => markSite(writes, made.site!, clientId).then((site) => void (made.site = site))) : Promise.resolve();
    const authorizing = siting.then(async (site) => {
      const event = await this.authorize(writes, plan, { site, device: undefined });
      if (event.status === 'done') made.authorizedOnto = site.id;
      return event;
    });
    const name = { firstName: titleCase(request.firstName), lastName: titleCase(request.lastName) };
    const checking: Promise<Waiting | null> = isNew
      ? markedNamesakes(writes.crm, name).then((namesakes) => {
          // Concurrent runs each created the customer: the oldest client is the one kept, its run holds.
          const oldest = [...namesakes, made.client!].reduce((a, b) => (b.id < a.id ? b : a));
          return oldest.id === clientId ? null : { clientId: oldest.id, client: oldest, holder: { run: creatorRun(oldest) ?? '', since: createdStampOf(oldest.note) } };
        })
      : writes.crm.listClientLogs(clientId).then((logs) => {
          const holder = leaseHolder(this.clientRecord(planned), logs, leaseAt ?? Date.now(), this.deps.settings.leaseMs);
          return holder && holder.run !== writes.runId ? { clientId, client: this.clientRecord(planned), holder } : null;
        });
    const [serviceOutcome, siteOutcome, authorizeOutcome, checkOutcome, markOutcome] = await Promise.allSettled([creating, siting, authorizing, checking, marking]);
    if (serviceOutcome.status === 'fulfilled' && serviceOutcome.value.created) made.service = serviceOutcome.value.record;
    const serviceRef = made.service && serviceRefOf(made.service, this.deps.settings.statuses);
    if (serviceRef) log.did('service', { kind: 'service-created', service: serviceRef, price: service.price, currency: made.service!.currencyCode, activeFrom: service.activeFrom, deleted: service.delete.map((s) => s.id) });
    if (made.site) log.did('site', { kind: 'site-created', site: siteRef(made.site) });
    if (made.authorizedOnto && siteOutcome.status === 'fulfilled') log.did('authorize', { kind: 'authorized', device, site: siteOutcome.value });

    // A retry of the service that found another run's Active service: that run holds the client.
    const foundTheirs = serviceOutcome.status === 'fulfilled' && !serviceOutcome.value.created ? { clientId, client: this.clientRecord(planned), holder: { run: runOf(serviceOutcome.value.record.note) ?? '', since: null } } : undefined;
    const other = (checkOutcome.status === 'fulfilled' ? checkOutcome.value : undefined) ?? foundTheirs;
    if (other) {
      // Another run holds this client (or created the customer first): undo what this run made, then wait for it.
      try {
        await this.undo(writes, made, plan, other, log);
        return { done: false, ...other };
      } catch (error) {
        yield step({ step: 'service', status: 'failed', error: errorOf(error), afterWrites: true });
        yield log.failed('service', error, { device, client });
        return { done: true };
      }
    }

    const failure = [
      ['service', serviceOutcome],
      ['site', siteOutcome],
      ['authorize', authorizeOutcome],
      ['service', checkOutcome],
      ['site', markOutcome],
    ].find(([, outcome]) => (outcome as PromiseSettledResult<unknown>).status === 'rejected') as [StepName, PromiseRejectedResult] | undefined;
    yield step({ step: 'client', status: isNew ? 'done' : 'skipped', kind: isNew ? 'created' : 'reused', client }, { clientId });
    if (serviceRef) {
      const deleted = service.delete.map((s) => s.id);
      yield step({ step: 'service', status: 'done', kind: 'created', service: serviceRef, price: service.price, currency: made.service!.currencyCode, activeFrom: service.activeFrom, deleted }, { clientId, serviceId: serviceRef.id, ...(deleted.length && { deletedServiceIds: deleted.join(',') }) });
    }
    if (siteOutcome.status === 'fulfilled') {
      const site = siteOutcome.value;
      yield step(plan.site.action === 'create' ? { step: 'site', status: 'done', kind: 'created', site } : { step: 'site', status: 'skipped', kind: 'reused', site }, { siteId: site.id });
    }
    if (authorizeOutcome.status === 'fulfilled') {
      if (authorizeOutcome.value.status === 'skipped') log.settled('authorize');
      yield authorizeOutcome.value;
    }
    if (failure || !serviceRef || siteOutcome.status !== 'fulfilled') {
      const [name, outcome] = failure!;
      if (name === 'service' && outcome === serviceOutcome) log.unconfirmed('service', outcome.reason, (id) => ({ kind: 'service-created-unconfirmed', serviceId: Number(id) }));
      yield step({ step: name, status: 'failed', error: errorOf(outcome.reason), afterWrites: true });
      // A create that may yet land keeps the lease until it runs out, so nobody builds beside it meanwhile.
      if (![serviceOutcome, siteOutcome].some((o) => o.status === 'rejected' && mayLandLate(o.reason))) await releaseLease(writes, clientId);
      yield log.failed(name, outcome.reason, { device, client, ...(serviceRef && { service: serviceRef }), ...(siteOutcome.status === 'fulfilled' && { site: siteOutcome.value }) });
      return { done: true };
    }
    if (made.service!.status !== this.deps.settings.statuses.active) {
      // UISP can leave a new service Quoted (spec §7): the device is on, and the report says so.
      const error = new ActivationFailure({ code: 'uisp-error', problem: 'service-not-active', service: serviceRef });
      yield step({ step: 'service', status: 'failed', error: error.error, afterWrites: true });
      await releaseLease(writes, clientId);
      yield log.failed('service', error, { device, client, service: serviceRef, site: siteOutcome.value });
      return { done: true };
    }
    yield* this.finish(plan, log, client, serviceRef, siteOutcome.value);
    return { done: true };
  }

  /** Removes the site this run created when its other wave-1 write failed, so no orphan stays; one it cannot remove is reported. */
  private async removeUnusedSite(writes: WriteDeps, siting: Promise<SiteRef>, made: Made, log: RunLog): Promise<void> {
    await siting.catch(() => undefined);
    if (!made.site) return;
    try {
      await removeOwnSite(writes, made.site); // made and removed: nothing to report
    } catch {
      log.did('site', { kind: 'site-unused', site: siteRef(made.site) });
    }
  }

  /**
   * Undoes what this run created after another run turned out to hold the client: its service, its client,
   * and its site unless the device is on it and the holder has no site yet (then it stays: it is the
   * customer's site too, by its marker, and a later run keeps whichever the device is on). The device is
   * moved onto the holder's site first when this run put it on its own.
   */
  private async undo(writes: WriteDeps, made: Made, plan: ActivationPlan, { client: holderClient, holder }: Waiting, log: RunLog, siting?: Promise<unknown>): Promise<void> {
    await siting?.catch(() => undefined);
    if (made.service) {
      await deleteReplaced(writes, made.service.id);
      log.removed('service', [made.service]);
    }
    if (made.site) {
      const [sites, device] = await Promise.all([writes.nms.listSites(), writes.nms.getDevice(plan.device.id)]);
      const mine = made.site;
      const onMine = deviceState(device).siteId === mine.id;
      const theirs = holderClient ? sites.filter(markedFor(holderClient)).filter((s) => s.id !== mine.id) : [];
      const target = theirs.find((s) => noteHas(s.description?.note, runMarker(holder.run))) ?? theirs[0];
      if (onMine && target) await ensureAuthorized(writes, plan.device.id, target.id);
      if (!onMine || target) {
        await removeOwnSite(writes, mine);
        log.removed('site', [mine]);
      } else if (holderClient) {
        // The device stays on this run's site, which becomes the holder's client's (a later run keeps one).
        await markSite(writes, mine, holderClient.id);
      }
    }
    if (made.client && (await removeEmptyClient(writes.crm, made.client.id))) log.removed('client', [made.client]);
  }

  /** A plan that reuses the client's Active service: the site (reused or created, read back), then the device. */
  private async *writeReusing(planned: PlanToRun, log: RunLog, writes: WriteDeps, started?: StartedWrites): AsyncGenerator<ActivationEvent> {
    // A confirmed plan's start may have taken the lease and created the site for it: given up at the end.
    try {
      yield* this.writeReusingOnce(planned, log, writes, started?.site);
    } finally {
      if (started?.lease && (await started.lease.taking.then(() => true, () => false))) await releaseLease(writes, started.lease.clientId);
    }
  }

  private async *writeReusingOnce({ plan, reads }: PlanToRun, log: RunLog, writes: WriteDeps, startedSite?: StartedWrites['site']): AsyncGenerator<ActivationEvent> {
    const { device } = plan;
    const { statuses } = this.deps.settings;
    log.expect(plan);
    const client = (plan.client as { client: ClientRef }).client;
    const owner = this.clientRecord({ plan, reads });
    yield step({ step: 'client', status: 'skipped', kind: 'reused', client }, { clientId: client.id });
    const reused = (plan.service as { service: ServiceRef }).service;
    let service: ServiceRef;
    let site: SiteRef;
    let now: DeviceState | undefined;
    try {
      const kept = await settleActiveService(writes, client.id, reused, reads.services.filter((s) => s.status === statuses.active));
      service = kept ? serviceRefOf(kept.record, statuses) : reused;
      log.removed('service', kept?.removed ?? []);
      yield step({ step: 'service', status: 'skipped', kind: 'already-active', service }, { clientId: client.id, serviceId: service.id });
    } catch (error) {
      yield step({ step: 'service', status: 'failed', error: errorOf(error) });
      yield log.failed('service', error, { device, client });
      return;
    }
    let settling: (() => Promise<void>) | undefined;
    try {
      if (plan.site.action === 'reuse') {
        const read = [...reads.authorized, ...reads.discovered].find((d) => d.identification.id === device.id);
        now = read && deviceState(read);
        site = plan.site.site;
        const reusedId = site.id;
        // Other SubOps sites of the client go once the device is on the one kept (NMS keeps a site with a device).
        settling = async () => {
          const kept = await settleSite(writes, owner, reusedId, ownSites(reads.sites, owner, namesakeIds(reads.lookup)));
          log.removed('site', kept?.removed ?? []);
          // A new client's site whose marking with the client's id failed gets it now.
          const record = reads.sites.find((s) => s.id === reusedId);
          if (record && markedClientId(record) === null && runOf(record.description?.note) !== null) await markSite(writes, record, owner.id);
        };
        yield step({ step: 'site', status: 'skipped', kind: 'reused', site }, { siteId: site.id });
      } else {
        const outcome = startedSite ? { ...(await startedSite.creating), device: undefined } : await ensureSite(writes, owner, plan.site, client.name, device.id);
        site = siteRef(outcome.record);
        now = outcome.device;
        log.removed('site', outcome.removed);
        if (outcome.created) log.did('site', { kind: 'site-created', site });
        else log.settled('site');
        yield step({ step: 'site', status: outcome.created ? 'done' : 'skipped', kind: outcome.created ? 'created' : 'created-concurrently', site }, { siteId: site.id });
      }
    } catch (error) {
      log.unconfirmed('site', error, () => ({ kind: 'site-created', site: { name: client.name }, unconfirmed: true }));
      yield step({ step: 'site', status: 'failed', error: errorOf(error), ...(log.done.length > 0 && { afterWrites: true as const }) });
      yield log.failed('site', error, { device, client, service });
      return;
    }
    try {
      const event = await this.authorize(writes, plan, { site, device: now });
      if (event.status === 'done') log.did('authorize', { kind: 'authorized', device, site });
      else log.settled('authorize');
      yield event;
      await settling?.();
    } catch (error) {
      yield step({ step: 'authorize', status: 'failed', error: errorOf(error), ...(log.done.length > 0 && { afterWrites: true as const }) });
      yield log.failed('authorize', error, { device, client, service, site });
      return;
    }
    yield* this.finish(plan, log, client, service, site);
  }

  /** The manual-link reminder and the result of a run that reached its end. */
  private *finish(plan: ActivationPlan, log: RunLog, client: ClientRef, service: ServiceRef, site: SiteRef): Generator<ActivationEvent> {
    const { device } = plan;
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

  /** Authorizes the device onto the site, unless it is there already: where it is now (read with the site) wins over the plan. */
  private async authorize(writes: WriteDeps, plan: ActivationPlan, { site, device: now }: { site: SiteRef; device: DeviceState | undefined }): Promise<StepEvent> {
    const { device } = plan;
    const onSite = now ? now.authorized && now.siteId === site.id : plan.authorize.action === 'skip';
    const ids = { deviceId: device.id, siteId: site.id };
    if (onSite) return step({ step: 'authorize', status: 'skipped', device, site }, ids);
    await ensureAuthorized(writes, device.id, site.id);
    return step({ step: 'authorize', status: 'done', device, site }, ids);
  }

  /** The reads, then the planner. */
  private async read(request: ActivationRequest): Promise<ReadDecision> {
    const readAt = Date.now();
    const reads = await this.readAll(request);
    return { ...decideActivation(reads), reads, readAt };
  }

  /**
   * One round of independent reads, then (for a name lookup) the identified client's services and log.
   * `expectedClientId`: the client an earlier decision identified by name (a confirmed plan); its
   * services and log are read together with the name lookup, so the reads take one round trip.
   */
  private async readAll(request: ActivationRequest, expectedClientId?: number): Promise<ActivationReads> {
    const { nms, settings } = this.deps;
    const query = parseDeviceQuery(request.device);
    const firstName = titleCase(request.firstName);
    const lastName = titleCase(request.lastName);
    const explicitId = request.clientId;
    const [authorized, discovered, lookup, sites, servicePlans] = await Promise.allSettled([
      nms.listDevices(),
      nms.listDiscoveredDevices(),
      explicitId !== undefined ? this.lookUpId(explicitId) : this.lookUpName(`${firstName} ${lastName}`, firstName, lastName, expectedClientId),
      nms.listSites(),
      this.deps.crm.listServicePlans(),
    ]);
    const { lookup: clientLookup, services, clientLogs } = settled(lookup);
    return {
      query,
      firstName,
      lastName,
      authorized: settled(authorized),
      discovered: settled(discovered),
      lookup: clientLookup,
      services,
      clientLogs,
      sites: settled(sites),
      servicePlans: settled(servicePlans),
      settings,
      today: this.deps.today(),
    };
  }

  /** The client with its services and log; an unknown id is a lookup result (the planner refuses it), not an error. */
  private async lookUpId(id: number): Promise<ClientRead> {
    const { crm } = this.deps;
    const [client, services, clientLogs] = await Promise.all([crm.getClient(id).catch(nullWhenNotFound), crm.listServices(id).catch(emptyWhenNotFound), crm.listClientLogs(id).catch(emptyWhenNotFound)]);
    return { lookup: { by: 'id', id, client }, services, clientLogs };
  }

  /**
   * Active and archived namesakes (persons and companies); then the services and log of the one it
   * identifies, read with the namesakes when the caller expects that client.
   */
  private async lookUpName(query: string, firstName: string, lastName: string, expectedClientId?: number): Promise<ClientRead> {
    const { crm } = this.deps;
    const ofClient = (id: number) => Promise.all([crm.listServices(id).catch(emptyWhenNotFound), crm.listClientLogs(id).catch(emptyWhenNotFound)]);
    const [active, archived, expected] = await Promise.all([
      crm.listClients({ query }),
      crm.listClients({ query, isArchived: true }),
      expectedClientId === undefined ? undefined : ofClient(expectedClientId),
    ]);
    const lookup: ClientLookup = { by: 'name', active, archived };
    const identity = identifyClient(lookup, firstName, lastName);
    const client = 'client' in identity ? identity.client : null;
    if (!client) return { lookup, services: [], clientLogs: [] };
    const [services, clientLogs] = expected && client.id === expectedClientId ? expected : await ofClient(client.id);
    return { lookup, services, clientLogs };
  }
}

/** What this run created before its lease check, so a run that did not hold undoes exactly that. */
interface Made {
  client?: Client;
  site?: Site;
  service?: Service;
  /** The site this run authorized the device onto. */
  authorizedOnto?: string;
}

interface ClientRead {
  lookup: ClientLookup;
  services: Service[];
  clientLogs: ClientLog[];
}

/** The refusal of a run that waited for another run's lease longer than that lease lasts. */
function busy(waiting: Waiting, plan: ActivationPlan, leaseMs: number, client?: ClientRef): ActivationError {
  const { holder } = waiting;
  return { code: 'client-busy', client: client ?? busyClient(waiting, plan), run: holder.run, since: holder.since, freeAt: holder.since === null ? null : holder.since + leaseMs };
}

/** The client another run holds, as the plan knows it. */
function busyClient({ clientId, client }: Waiting, plan: ActivationPlan): ClientRef {
  if (client) return clientRef(client);
  return plan.client.action === 'reuse' ? plan.client.client : { id: clientId, name: `${plan.client.firstName} ${plan.client.lastName}` };
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

function emptyWhenNotFound(error: unknown): never[] {
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
  'client-busy': 'service',
  'lease-expired': 'service',
  'parent-site-not-found': 'site',
  'service-plan-unknown': 'service',
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

/**
 * Whether a failed create may still land in UISP (no answer: UISP may apply it late, even after reading
 * showed it had not been): a run that sent it keeps its lease until the lease runs out.
 */
function mayLandLate(error: unknown): boolean {
  if (error instanceof UispWriteNotAppliedError) return true;
  if (error instanceof UnconfirmedCreateError) return mayLandLate(error.failure);
  return error instanceof UispError && error.mayHaveApplied;
}

/** What a failed write step reports. */
const errorOf = (error: unknown): ActivationError => asFailure(error).error;

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
