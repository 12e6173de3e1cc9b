/**
 * Runs a plan's writes step by step, as typed events, each write converging (./writes.ts). The order of
 * UISP requests, as `writePlan` sends them:
 *
 * 1. a new client: its POST; as soon as UISP answers, the site's POST for it, beside the client's read-back;
 * 2. the confirmed deletes (the first attempt decided by the plan's read, each retry by a read of its
 *    own), beside the site (its POST, or its read-back);
 * 3. the Active service's POST, beside the site's read-back;
 * 4. the service's read-back, beside the authorization (the device needs its site settled and an Active
 *    service created, not the service's read-back, which only decides which Active service is kept).
 *
 * The service and the site are two chains run side by side (`serviceSiteAndDevice`); each logs to a log
 * of its own, added to the run's in step order once both ended, so the report's order never depends on
 * timing. Nothing is reported before it was read back as the record kept. A device is never moved off a
 * site unless the agent confirmed that move, as read now, and a retry never moves it anywhere another run
 * or a person put it.
 */
import type { Client } from '../uisp/schemas.js';
import { authorize, removeRunSite, type RunContext, type SiteStep } from './device-step.js';
import { clientActivation } from './keep.js';
import { ActivationFailure, errorOf } from './failure.js';
import { lateDuplicates } from './late-duplicates.js';
import { ownSites } from '../sites.js';
import { clientRef, isActiveOfKind, serviceRefUnder, settlingNamesakes, siteRef, type ActivationReads } from './planner.js';
import { BranchLog, step, type RunLog, type StepLog } from './run-log.js';
import { SHARED_STATUSES } from './service-status.js';
import { createClient, createService, createSite, deleteReplaced, type SiteOutcome, type WriteDeps } from './writes.js';
import type { ActivationEvent, ActivationPlan, ActivationRequest, ClientRef, ServiceRef, SiteRef, StepEvent, StepName } from './types.js';

interface ServiceStep {
  service: ServiceRef;
  event: StepEvent;
}

/** The client the run works under, once settled. */
interface ClientStep {
  client: ClientRef;
  /** Whether the plan's reads of the client's records are current (a client another run created may have some). */
  fresh: boolean;
  /** The activation that made the client (./keep.ts): every run keeps the site it made. */
  madeWith: string | null;
  /** The new client's site, started as soon as UISP answered the client's creation. */
  siting?: Promise<SiteOutcome>;
}

export async function* writePlan(ctx: RunContext, plan: ActivationPlan, reads: ActivationReads, log: RunLog): AsyncGenerator<ActivationEvent> {
  log.expect(plan);
  // 1. The client: reused, or created (and, from UISP's answer on, its site).
  const settled = yield* clientStep(ctx, plan, reads, log);
  if (!settled) return;
  // 2–4. The service chain and the site chain side by side, then the authorization.
  const outcomes = await serviceSiteAndDevice(ctx, plan, reads, settled, log);
  // The report, in step order whatever order the chains ended in.
  yield* report(ctx, plan, reads, settled.client, outcomes, log);
}

interface ChainOutcomes {
  service: PromiseSettledResult<ServiceStep>;
  site: PromiseSettledResult<SiteStep>;
  /** undefined: not attempted (the service chain failed before an Active service existed). */
  authorize: PromiseSettledResult<StepEvent | undefined>;
}

/**
 * The deletes and the Active service (one chain), the site (the other), and the authorization once the
 * site is settled and an Active service exists (created: its read-back need not have ended). Each chain
 * logs to a log of its own, added to the run's in step order once all have ended.
 */
async function serviceSiteAndDevice(ctx: RunContext, plan: ActivationPlan, reads: ActivationReads, settled: ClientStep, log: RunLog): Promise<ChainOutcomes> {
  const { client, fresh } = settled;
  const { writes } = ctx;
  let serviceIsActive!: () => void;
  const serviceActive = new Promise<true>((resolve) => (serviceIsActive = () => resolve(true)));
  const serviceLog = new BranchLog();
  const siteLog = new BranchLog();
  const servicing = serviceStep(writes, plan, reads, client, fresh, serviceLog, () => serviceIsActive());
  const siting = siteStep(writes, plan, reads, settled, siteLog);
  const authorizing = (async () => {
    const settledSite = await siting;
    const ready = await Promise.race([serviceActive, servicing.then(() => true, () => false)]);
    return ready ? authorize(ctx, plan, reads, settledSite, client, siteLog) : undefined;
  })();
  const [service, site, authorized] = await Promise.allSettled([servicing, siting, authorizing]);
  serviceLog.replay(log);
  siteLog.replay(log);
  return { service, site, authorize: authorized };
}

/** The steps' events and the result: failed at the first step that failed, else activated (or already). */
async function* report(ctx: RunContext, plan: ActivationPlan, reads: ActivationReads, client: ClientRef, outcomes: ChainOutcomes, log: RunLog): AsyncGenerator<ActivationEvent> {
  const { device } = plan;
  const failures: { name: StepName; error: unknown }[] = [];
  for (const [name, outcome] of [['service', outcomes.service], ['site', outcomes.site]] as const) {
    if (outcome.status === 'fulfilled') {
      yield outcome.value.event;
      continue;
    }
    failures.push({ name, error: outcome.reason });
    log.unconfirmed(name, outcome.reason, (id) =>
      name === 'service' ? { kind: 'service-created-unconfirmed', serviceId: Number(id) } : { kind: 'site-created', site: { name: client.name }, unconfirmed: true },
    );
    yield step({ step: name, status: 'failed', error: errorOf(outcome.reason), ...afterWrites(log) });
  }
  const service = outcomes.service.status === 'fulfilled' ? outcomes.service.value : undefined;
  const site = outcomes.site.status === 'fulfilled' ? outcomes.site.value : undefined;
  const authorized = outcomes.authorize.status === 'fulfilled' ? outcomes.authorize.value : undefined;
  if (authorized?.status === 'done' && 'site' in authorized) log.did('authorize', { kind: 'authorized', device, site: authorized.site });
  const reached = { device, client, ...(service && { service: service.service }), ...(site && { site: site.site }) };
  if (!service || !site) {
    if (authorized) yield authorized;
    yield log.failed(failures[0]!.name, failures[0]!.error, reached);
    return;
  }
  if (outcomes.authorize.status === 'rejected') {
    const reason: unknown = outcomes.authorize.reason;
    yield step({ step: 'authorize', status: 'failed', error: errorOf(reason), ...afterWrites(log) });
    yield log.failed('authorize', reason, { ...reached, ...(reason instanceof ActivationFailure && reason.plan && { plan: reason.plan }) });
    return;
  }
  if (authorized?.status === 'skipped') log.settled('authorize');
  if (authorized) yield authorized;

  // Where the device is: the settled site, or the client's site the device was found on.
  const reportedSite = authorized && 'site' in authorized ? authorized.site : site.site;
  const crmClientUrl = ctx.crmClientUrl(client.id);
  const duplicates = lateDuplicatesSeen(plan, reads, client, reportedSite);
  yield step({ step: 'manual-link', status: 'manual', client, crmClientUrl, site: reportedSite, device }, { clientId: client.id, siteId: reportedSite.id, deviceId: device.id });
  yield {
    type: 'result',
    outcome: log.done.length === 0 ? 'already-activated' : 'activated',
    device,
    client,
    service: service.service,
    site: reportedSite,
    crmClientUrl,
    ...(plan.move && authorized?.status === 'done' && { movedFrom: plan.move }),
    ...(duplicates.length && { duplicates }),
    ...leftAloneOf(plan),
    done: log.done,
    notDone: [],
  };
}

const afterWrites = (log: RunLog) => (log.done.length > 0 ? { afterWrites: true as const } : {});

/** The plan's services of other plans, for the result: named as left alone. */
export const leftAloneOf = (plan: ActivationPlan): { leftAlone?: ServiceRef[] } =>
  plan.service.action === 'create' && plan.service.leftAlone.length ? { leftAlone: plan.service.leftAlone } : {};

/**
 * Late duplicates among what the plan's read saw, never among records that appeared while this run was in
 * flight: those are another run's, in flight too, which removes its own (or, if it gives up, the next
 * reader names them). Only a reused client has records the plan read.
 */
function lateDuplicatesSeen(plan: ActivationPlan, reads: ActivationReads, client: ClientRef, reportedSite: SiteRef) {
  if (plan.client.action !== 'reuse') return [];
  const { lookup } = reads;
  const active = reads.services.filter(isActiveOfKind(reads));
  const settling = lookup.by === 'name' ? { clients: settlingNamesakes(lookup.active, lookup.empty), sites: reads.sites } : undefined;
  return lateDuplicates(client, active, ownSites(reads.sites, client.id, reads.services), reportedSite, settling);
}

/**
 * The client: the plan's, or a new one created now. A new client's read-back looks the name up as a fresh
 * run would: another run's older namesake is kept (this run's own client and its early site removed), and
 * a name that became several customers' meanwhile stops the run before anything is adopted.
 */
async function* clientStep(ctx: RunContext, plan: ActivationPlan, reads: ActivationReads, log: RunLog): AsyncGenerator<ActivationEvent, ClientStep | null> {
  const { writes } = ctx;
  const { device } = plan;
  if (plan.client.action === 'reuse') {
    const client = plan.client.client;
    yield step({ step: 'client', status: 'skipped', kind: 'reused', client }, { clientId: client.id });
    const { lookup } = reads;
    const read = lookup.by === 'id' ? lookup.client : lookup.active.find((c) => c.id === client.id);
    return { client, fresh: true, madeWith: clientActivation(read) };
  }
  const { firstName, lastName } = plan.client;
  const site = plan.site;
  let early: { clientId: number; siting: Promise<SiteOutcome> } | undefined;
  const startSite =
    site.action === 'create'
      ? (created: Client) => {
          if (early) return;
          const siting = createSite(writes, created.id, site, device.id, true, writes.activationId, []);
          siting.catch(() => {}); // awaited below, whatever happens to the client
          early = { clientId: created.id, siting };
        }
      : undefined;
  let outcome;
  try {
    outcome = await createClient(writes, { firstName, lastName }, contactOf(ctx.request), startSite);
  } catch (error) {
    log.unconfirmed('client', error, (id) => ({ kind: 'client-created', client: { id: Number(id), name: `${firstName} ${lastName}` }, unconfirmed: true }));
    yield step({ step: 'client', status: 'failed', error: errorOf(error) });
    await reportEarlySite(early, log, site.action === 'create' ? site.name : `${firstName} ${lastName}`);
    yield log.failed('client', error, { device });
    return null;
  }
  const client = clientRef(outcome.record);
  log.duplicates('client', outcome.removed.map((c) => c.id), outcome.refused.map((r) => ({ id: r.record.id, detail: r.detail })));
  if (early && (outcome.refusal || early.clientId !== client.id)) {
    // The site started for this run's own client, which is not the one kept: it goes too.
    await removeEarlySite(writes, early.siting, log);
    early = undefined;
  }
  if (outcome.refusal) {
    const refusal = new ActivationFailure(outcome.refusal);
    yield step({ step: 'client', status: 'failed', error: refusal.error });
    yield log.failed('client', refusal, { device });
    return null;
  }
  if (outcome.created) {
    log.did('client', { kind: 'client-created', client });
    yield step({ step: 'client', status: 'done', kind: 'created', client }, { clientId: client.id });
  } else {
    log.settled('client');
    yield step({ step: 'client', status: 'skipped', kind: 'created-concurrently', client }, { clientId: client.id });
  }
  return { client, fresh: outcome.created, madeWith: clientActivation(outcome.record), ...(early && { siting: early.siting }) };
}

async function removeEarlySite(writes: WriteDeps, siting: Promise<SiteOutcome>, log: StepLog): Promise<void> {
  const made = await siting.catch(() => undefined);
  if (made?.created) await removeRunSite(writes, made.record, log);
}

/** A site this run made for a client whose creation then failed: it exists, and the report says so. */
async function reportEarlySite(early: { siting: Promise<SiteOutcome> } | undefined, log: RunLog, name: string): Promise<void> {
  if (!early) return;
  try {
    const made = await early.siting;
    if (made.created) log.did('site', { kind: 'site-created', site: { name }, unconfirmed: true });
  } catch (error) {
    log.unconfirmed('site', error, () => ({ kind: 'site-created', site: { name }, unconfirmed: true }));
  }
}

/**
 * The confirmed deletes (each read first: a service no longer as confirmed stops the step, nothing of it
 * deleted and no service created), then the Active service. `active`: called once an Active service is
 * known to exist (before its read-back ends).
 */
async function serviceStep(writes: WriteDeps, plan: ActivationPlan, reads: ActivationReads, client: ClientRef, fresh: boolean, log: StepLog, active: () => void): Promise<ServiceStep> {
  const { active: activeStatus } = SHARED_STATUSES;
  const isActive = isActiveOfKind(reads);
  if (plan.service.action === 'reuse') {
    active();
    const service = plan.service.service;
    return { service, event: step({ step: 'service', status: 'skipped', kind: 'already-active', service }, { clientId: client.id, serviceId: service.id }) };
  }
  const planned = plan.service;
  const deleted = await deleteAll(writes, client, planned.delete, reads, log);
  const outcome = await createService(writes, client.id, planned, fresh, isActive, (created) => created.status === activeStatus && active());
  log.duplicates('service', outcome.removed.map((s) => s.id), outcome.refused.map((r) => ({ id: r.record.id, detail: r.detail })));
  const service = serviceRefUnder(reads.numbering.numbering)(outcome.record);
  const ids = { clientId: client.id, serviceId: service.id, ...(deleted.length && { deletedServiceIds: deleted.join(',') }) };
  if (!outcome.created) {
    log.settled('service');
    return { service, event: step({ step: 'service', status: 'skipped', kind: 'created-concurrently', service, deleted }, ids) };
  }
  const created = { step: 'service', status: 'done', kind: 'created', service, price: planned.price, currency: outcome.record.currencyCode, activeFrom: planned.activeFrom, deleted } as const;
  log.did('service', { kind: 'service-created', service, price: created.price, currency: created.currency, activeFrom: created.activeFrom, deleted });
  if (outcome.record.status !== activeStatus) {
    // UISP can leave a new service Quoted (spec §7); the device must not be let on without an Active one.
    throw new ActivationFailure({ code: 'uisp-error', problem: 'service-not-active', service });
  }
  return { service, event: step(created, ids) };
}

/**
 * Deletes the confirmed services, each only while a read made for that attempt shows it as confirmed.
 * The ids this run deleted (one gone before this run sent anything is another's deletion, not claimed).
 * UISP's refusal is reported and the run goes on; a service no longer as confirmed stops the step.
 */
async function deleteAll(writes: WriteDeps, client: ClientRef, services: ServiceRef[], reads: ActivationReads, log: StepLog): Promise<number[]> {
  const numbering = reads.numbering.numbering;
  const outcomes = await Promise.allSettled(services.map((old) => deleteReplaced(writes, client.id, old, numbering)));
  const deleted: number[] = [];
  let changed: ActivationFailure | undefined;
  outcomes.forEach((outcome, i) => {
    const old = services[i]!;
    if (outcome.status === 'rejected') return;
    const key = `delete:${old.id}`;
    switch (outcome.value.kind) {
      case 'deleted':
        deleted.push(old.id);
        return log.did(key, { kind: 'service-deleted', service: old });
      case 'gone':
        return log.settled(key);
      case 'refused':
        return log.did(key, { kind: 'service-delete-refused', service: old, detail: outcome.value.detail });
      case 'changed':
        changed ??= new ActivationFailure({ code: 'service-changed', client, confirmed: old, now: serviceRefUnder(numbering)(outcome.value.now) });
    }
  });
  const failed = outcomes.find((o) => o.status === 'rejected');
  if (failed) throw failed.reason;
  if (changed) throw changed;
  return deleted;
}

async function siteStep(writes: WriteDeps, plan: ActivationPlan, reads: ActivationReads, { client, fresh, madeWith, siting: started }: ClientStep, log: StepLog): Promise<SiteStep> {
  if (plan.site.action === 'reuse') {
    const site = plan.site.site;
    const device = { authorized: plan.device.authorized, siteId: plan.device.siteId };
    return { site, device, sites: reads.sites, created: null, contested: false, madeWith, event: step({ step: 'site', status: 'skipped', kind: 'reused', site }, { siteId: site.id }) };
  }
  const outcome = await (started ?? createSite(writes, client.id, plan.site, plan.device.id, fresh, madeWith, reads.services));
  const site = siteRef(outcome.record);
  log.duplicates('site', outcome.removed.map((s) => s.id), outcome.refused.map((r) => ({ id: r.record.id, detail: r.detail })));
  const settled = { site, device: outcome.device, sites: outcome.sites, created: outcome.created ? outcome.record : null, contested: outcome.seen.length > 1, madeWith };
  if (!outcome.created) {
    log.settled('site');
    return { ...settled, event: step({ step: 'site', status: 'skipped', kind: 'created-concurrently', site }, { siteId: site.id }) };
  }
  log.did('site', { kind: 'site-created', site });
  return { ...settled, event: step({ step: 'site', status: 'done', kind: 'created', site }, { siteId: site.id }) };
}

function contactOf(request: ActivationRequest): { email?: string; phone?: string } {
  return { ...(request.email && { email: request.email }), ...(request.phone && { phone: request.phone }) };
}
