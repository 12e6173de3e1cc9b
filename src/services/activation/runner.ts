/**
 * Runs a plan's writes step by step, as typed events, each write converging (./writes.ts). Waves:
 *
 * - new client: the client; then its read-back with the site (the site needs only the client's id);
 *   then the service with the site's read-back; then the service's read-back with the authorization;
 * - existing client: the confirmed deletes with the site; then the service with the site's read-back;
 *   then the service's read-back with the authorization.
 *
 * Nothing is reported before it was read back as the record kept. The device is let on once its site is
 * settled and an Active service is known to exist (created Active): the service's read-back only
 * decides which Active service is kept. A device is never moved off a site unless the agent confirmed
 * that move, as read now.
 */
import { UispRejectedError } from '../uisp/errors.js';
import type { Client } from '../uisp/schemas.js';
import { moveConfirmed } from './confirmation.js';
import { ActivationFailure, errorOf } from './failure.js';
import { lateDuplicates } from './late-duplicates.js';
import { ownSites } from '../sites.js';
import { clientRef, keptSite, moveOf, serviceKind, settlingNamesakes, siteRef, type ActivationReads } from './planner.js';
import { BranchLog, step, type RunLog, type StepLog } from './run-log.js';
import { SHARED_STATUSES, statusLabel } from './service-status.js';
import { createClient, createService, createSite, deleteReplaced, deviceState, ensureAuthorized, removeOwnSite, type DeviceState, type SiteOutcome, type WriteDeps } from './writes.js';
import type { ActivationConfirmation, ActivationEvent, ActivationPlan, ActivationRequest, ClientRef, ServiceRef, SiteRef, StepEvent, StepName } from './types.js';
import type { Service, Site } from '../uisp/schemas.js';

export interface RunContext {
  writes: WriteDeps;
  request: ActivationRequest;
  confirm: ActivationConfirmation;
  crmClientUrl: (clientId: number) => string;
}

interface ServiceStep {
  service: ServiceRef;
  event: StepEvent;
  /** The client's Active services as last read. */
  active: Service[];
}

interface SiteStep {
  site: SiteRef;
  event: StepEvent;
  device: DeviceState;
  /** Every site as last read, and the client's own among them. */
  sites: Site[];
  own: Site[];
}

export async function* writePlan(ctx: RunContext, plan: ActivationPlan, reads: ActivationReads, log: RunLog): AsyncGenerator<ActivationEvent> {
  const { writes } = ctx;
  const { device } = plan;
  log.expect(plan);

  let client: ClientRef;
  let clientIsNew = false;
  /** The new client's site, started as soon as UISP answered the client's creation. */
  let early: { clientId: number; siting: Promise<SiteOutcome> } | undefined;
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
            const siting = createSite(writes, created.id, site, device.id, true);
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
      await reportEarlySite(early, log, plan.site.action === 'create' ? plan.site.name : `${firstName} ${lastName}`);
      yield log.failed('client', error, { device });
      return;
    }
    client = clientRef(outcome.record);
    clientIsNew = outcome.created;
    log.duplicates('client', outcome.removed.map((c) => c.id), outcome.refused.map((r) => ({ id: r.record.id, detail: r.detail })));
    if (early && early.clientId !== client.id) {
      // Another run's older client is kept: the site started for this run's own client goes too.
      const made = await early.siting.catch(() => undefined);
      early = undefined;
      if (made?.created) {
        try {
          if (await removeOwnSite(writes, made.record)) log.duplicates('site', [made.record.id], []);
        } catch (error) {
          log.duplicates('site', [], [{ id: made.record.id, detail: error instanceof Error ? error.message : String(error) }]);
        }
      }
    }
    if (outcome.created) {
      log.did('client', { kind: 'client-created', client });
      yield step({ step: 'client', status: 'done', kind: 'created', client }, { clientId: client.id });
    } else {
      log.settled('client');
      yield step({ step: 'client', status: 'skipped', kind: 'created-concurrently', client }, { clientId: client.id });
    }
  }

  // A reused client's reads are this run's; a client another run created may have records already.
  const fresh = plan.client.action === 'reuse' || clientIsNew;
  let serviceIsActive!: () => void;
  const serviceActive = new Promise<true>((resolve) => (serviceIsActive = () => resolve(true)));
  // Each branch logs on its own, replayed in step order, so the report's order does not depend on timing.
  const serviceLog = new BranchLog();
  const siteLog = new BranchLog();
  const servicing = serviceStep(writes, plan, reads, client, fresh, serviceLog, () => serviceIsActive());
  const siting = siteStep(writes, plan, reads, client, fresh, siteLog, early?.siting);
  const authorizing = (async () => {
    const settledSite = await siting;
    const ready = await Promise.race([serviceActive, servicing.then(() => true, () => false)]);
    return ready ? authorize(ctx, plan, reads, settledSite, client) : undefined;
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
      yield step({ step: name, status: 'failed', error: errorOf(outcome.reason), ...(log.done.length > 0 && { afterWrites: true as const }) });
    }
  }
  const service = serviceOutcome.status === 'fulfilled' ? serviceOutcome.value : undefined;
  const site = siteOutcome.status === 'fulfilled' ? siteOutcome.value : undefined;
  const authorized = authorizeOutcome.status === 'fulfilled' ? authorizeOutcome.value : undefined;
  if (authorized?.status === 'done' && 'site' in authorized) log.did('authorize', { kind: 'authorized', device, site: authorized.site });
  const reached = { device, client, ...(service && { service: service.service }), ...(site && { site: site.site }) };
  if (!service || !site) {
    if (authorized) yield authorized;
    yield log.failed(failures[0]!.name, failures[0]!.error, reached);
    return;
  }
  if (authorizeOutcome.status === 'rejected') {
    yield step({ step: 'authorize', status: 'failed', error: errorOf(authorizeOutcome.reason), ...(log.done.length > 0 && { afterWrites: true as const }) });
    const reason: unknown = authorizeOutcome.reason;
    yield log.failed('authorize', reason, { ...reached, ...(reason instanceof ActivationFailure && reason.plan && { plan: reason.plan }) });
    return;
  }
  if (authorized?.status === 'skipped') log.settled('authorize');
  if (authorized) yield authorized;

  // Where the device went: the settled site, or the one every run keeps if that was removed meanwhile.
  const reportedSite = authorized && 'site' in authorized ? authorized.site : site.site;
  const crmClientUrl = ctx.crmClientUrl(client.id);
  const { lookup } = reads;
  const settling = lookup.by === 'name' && plan.client.action === 'reuse' ? { clients: settlingNamesakes(lookup.active, lookup.empty), sites: site.sites } : undefined;
  const duplicates = lateDuplicates(client, service.active, site.own, reportedSite.id, settling);
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

/** The plan's services of other plans, for the result: named as left alone. */
export const leftAloneOf = (plan: ActivationPlan): { leftAlone?: ServiceRef[] } =>
  plan.service.action === 'create' && plan.service.leftAlone.length ? { leftAlone: plan.service.leftAlone } : {};

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
 * The plan's deletes (this run read them as Quoted or Obsolete, and they were confirmed), then the
 * Active service. `active`: called once an Active service is known to exist (before its read-back ends).
 */
async function serviceStep(writes: WriteDeps, plan: ActivationPlan, reads: ActivationReads, client: ClientRef, fresh: boolean, log: StepLog, active: () => void): Promise<ServiceStep> {
  const { active: activeStatus } = SHARED_STATUSES;
  // Only services of the kind this activation creates (Internet): a client's cable TV service is not its internet.
  const isActive = (s: Service) => s.status === activeStatus && serviceKind(s, reads) !== 'other';
  if (plan.service.action === 'reuse') {
    active();
    const service = plan.service.service;
    const event = step({ step: 'service', status: 'skipped', kind: 'already-active', service }, { clientId: client.id, serviceId: service.id });
    return { service, event, active: reads.services.filter(isActive) };
  }
  const planned = plan.service;
  const deleted = await deleteAll(writes, planned.delete, log);
  const outcome = await createService(writes, client.id, planned, fresh, isActive, (created) => created.status === activeStatus && active());
  log.duplicates('service', outcome.removed.map((s) => s.id), outcome.refused.map((r) => ({ id: r.record.id, detail: r.detail })));
  const service: ServiceRef = { id: outcome.record.id, status: outcome.record.status, statusLabel: statusLabel(outcome.record.status, reads.numbering.numbering), name: outcome.record.name };
  const seen = outcome.seen.filter((s) => !outcome.removed.includes(s));
  const ids = { clientId: client.id, serviceId: service.id, ...(deleted.length && { deletedServiceIds: deleted.join(',') }) };
  if (!outcome.created) {
    log.settled('service');
    return { service, active: seen, event: step({ step: 'service', status: 'skipped', kind: 'created-concurrently', service, deleted }, ids) };
  }
  const created = { step: 'service', status: 'done', kind: 'created', service, price: planned.price, currency: outcome.record.currencyCode, activeFrom: planned.activeFrom, deleted } as const;
  log.did('service', { kind: 'service-created', service, price: created.price, currency: created.currency, activeFrom: created.activeFrom, deleted });
  if (outcome.record.status !== activeStatus) {
    // UISP can leave a new service Quoted (spec §7); the device must not be let on without an Active one.
    throw new ActivationFailure({ code: 'uisp-error', problem: 'service-not-active', service });
  }
  return { service, active: seen, event: step(created, ids) };
}

/** Deletes the confirmed services; the ids this run deleted (a 404 is another run's deletion, not claimed). */
async function deleteAll(writes: WriteDeps, services: ServiceRef[], log: StepLog): Promise<number[]> {
  const outcomes = await Promise.allSettled(services.map((old) => deleteReplaced(writes, old.id)));
  const deleted: number[] = [];
  outcomes.forEach((outcome, i) => {
    const old = services[i]!;
    if (outcome.status === 'rejected') return;
    if (outcome.value) {
      deleted.push(old.id);
      log.did(`delete:${old.id}`, { kind: 'service-deleted', service: old });
    } else {
      log.settled(`delete:${old.id}`);
    }
  });
  const failed = outcomes.find((o) => o.status === 'rejected');
  if (failed) throw failed.reason;
  return deleted;
}

/** `started`: the site's creation, already under way for a new client. */
async function siteStep(writes: WriteDeps, plan: ActivationPlan, reads: ActivationReads, client: ClientRef, fresh: boolean, log: StepLog, started?: Promise<SiteOutcome>): Promise<SiteStep> {
  const deviceId = plan.device.id;
  if (plan.site.action === 'reuse') {
    const site = plan.site.site;
    const device = { authorized: plan.device.authorized, siteId: plan.device.siteId };
    return { site, device, sites: reads.sites, own: ownSites(reads.sites, client.id, reads.services), event: step({ step: 'site', status: 'skipped', kind: 'reused', site }, { siteId: site.id }) };
  }
  const outcome = await (started ?? createSite(writes, client.id, plan.site, deviceId, fresh));
  const site = siteRef(outcome.record);
  log.duplicates('site', outcome.removed.map((s) => s.id), outcome.refused.map((r) => ({ id: r.record.id, detail: r.detail })));
  const own = outcome.seen.filter((s) => !outcome.removed.includes(s));
  const settled = { site, device: outcome.device, sites: outcome.sites, own };
  if (!outcome.created) {
    log.settled('site');
    return { ...settled, event: step({ step: 'site', status: 'skipped', kind: 'created-concurrently', site }, { siteId: site.id }) };
  }
  log.did('site', { kind: 'site-created', site });
  return { ...settled, event: step({ step: 'site', status: 'done', kind: 'created', site }, { siteId: site.id }) };
}

/**
 * Authorizes the device onto the settled site, unless it is there already. Where the device is now
 * (read with the site) decides: a move off another client's site goes ahead only as confirmed. A site
 * removed meanwhile (another run kept another one and removed its own) is read again once: the device
 * then goes where every run keeps it.
 */
async function authorize(ctx: RunContext, plan: ActivationPlan, reads: ActivationReads, settled: SiteStep, client: ClientRef): Promise<StepEvent> {
  const { device } = plan;
  let { site, device: now, sites } = settled;
  for (let again = 0; ; again++) {
    const ids = { deviceId: device.id, siteId: site.id };
    if (now.authorized && now.siteId === site.id) return step({ step: 'authorize', status: 'skipped', device, site }, ids);
    const current = now.authorized && now.siteId ? sites.find((s) => s.id === now.siteId) : undefined;
    const move = moveOf({ ...device, authorized: now.authorized, siteId: now.siteId }, current, reads.authorized);
    if (move && !moveConfirmed(ctx.confirm, move)) throw new ActivationFailure({ code: 'device-in-use', device, move }, { ...plan, move });
    try {
      await ensureAuthorized(ctx.writes, device.id, site.id);
      return step({ step: 'authorize', status: 'done', device, site }, ids);
    } catch (error) {
      if (again > 0 || !(error instanceof UispRejectedError)) throw error;
      const [fresh, found] = await Promise.all([ctx.writes.nms.listSites(), ctx.writes.nms.getDevice(device.id)]);
      if (fresh.some((s) => s.id === site.id)) throw error;
      const own = ownSites(fresh, client.id);
      now = deviceState(found);
      const kept = own.find((s) => now.authorized && s.id === now.siteId) ?? keptSite(own, []);
      if (!kept) throw error;
      ({ site, sites } = { site: siteRef(kept), sites: fresh });
    }
  }
}

function contactOf(request: ActivationRequest): { email?: string; phone?: string } {
  return { ...(request.email && { email: request.email }), ...(request.phone && { phone: request.phone }) };
}
