/**
 * The device's step of an activation: authorizing it onto the client's site, or finding it is there, or
 * on another of the client's sites, already. Where the device is decides, as read with the site, or read
 * again when the site's read-back met another run's site or when an attempt got no answer: a retry never
 * moves the device where another run or a person put it, and a move off another client's site happens
 * only as the agent confirmed it. Also the removal of a site this run made and does not keep.
 */
import { UispRejectedError } from '../uisp/errors.js';
import type { Site } from '../uisp/schemas.js';
import { moveConfirmed } from './confirmation.js';
import { ActivationFailure } from './failure.js';
import { keptSite } from './keep.js';
import { ownSites, siteOwnerId } from '../sites.js';
import { moveOf, siteRef, type ActivationReads } from './planner.js';
import { step, type StepLog } from './run-log.js';
import { deviceState, ensureAuthorized, readPlacement, removeOwnSite, type DeviceState, type WriteDeps } from './writes.js';
import type { ActivationConfirmation, ActivationPlan, ActivationRequest, ClientRef, DeviceMove, SiteRef, StepEvent } from './types.js';

export interface RunContext {
  writes: WriteDeps;
  request: ActivationRequest;
  confirm: ActivationConfirmation;
  crmClientUrl: (clientId: number) => string;
}

/** The site step's outcome, with what the device's step needs. */
export interface SiteStep {
  site: SiteRef;
  event: StepEvent;
  /** The device as read with the site: what decides its authorization. */
  device: DeviceState;
  /** Every site as last read. */
  sites: Site[];
  /** The site this run created and kept (removed again if the device turns out to be on another of the client's sites). */
  created: Site | null;
  /** The read-back met another run's site for the client: what that run did since is read again before authorizing. */
  contested: boolean;
  /** The activation that made the client (./keep.ts). */
  madeWith: string | null;
}

/** Removes a site this run made that is not the one kept, read first; the outcome goes in the log. */
export async function removeRunSite(writes: WriteDeps, site: Site, log: StepLog): Promise<void> {
  try {
    const outcome = await removeOwnSite(writes, site);
    if (outcome.kind === 'deleted') log.duplicates('site', [site.id], []);
    if (outcome.kind === 'refused') log.duplicates('site', [], [{ id: site.id, detail: outcome.detail }]);
    if (outcome.kind === 'changed') log.duplicates('site', [], [{ id: site.id, detail: outcome.why }]);
  } catch (error) {
    log.duplicates('site', [], [{ id: site.id, detail: error instanceof Error ? error.message : String(error) }]);
  }
}

/** Where the device goes: the site, the device as last read, and every site as read with it. */
interface Placement {
  site: SiteRef;
  now: DeviceState;
  sites: Site[];
}

/**
 * Authorizes the device onto the settled site, unless it is there already. When the site's read-back met
 * another run's site for the client, where things are now is read again first: the device may be on that
 * site already, reported by that run. Wherever the device ends, this run's own new site, if not that one,
 * is removed (read first: never with a device on it).
 */
export async function authorize(ctx: RunContext, plan: ActivationPlan, reads: ActivationReads, settled: SiteStep, client: ClientRef, log: StepLog): Promise<StepEvent> {
  const contested = settled.contested ? await placementNow(ctx, plan, reads, client, settled.madeWith) : undefined;
  const placed = await placeDevice(ctx, plan, reads, contested ?? { site: settled.site, now: settled.device, sites: settled.sites }, client, settled.madeWith);
  if (settled.created && placed.site.id !== settled.created.id) await removeRunSite(ctx.writes, settled.created, log);
  return placed;
}

/** The client's sites, the devices and this device, read now: the site every run keeps, and where the device is. */
async function placementNow(ctx: RunContext, plan: ActivationPlan, reads: ActivationReads, client: ClientRef, madeWith: string | null): Promise<Placement | undefined> {
  const { sites, competing, devices, device } = await readPlacement(ctx.writes, client.id, plan.device.id, reads.services);
  const kept = keptSite(competing, { devices, madeWith });
  return kept && { site: siteRef(kept), now: deviceState(device), sites };
}

/**
 * Where the device is decides: on the site, nothing is sent; on another of the client's own sites it
 * stays there, and that site is reported; a move off another client's site goes ahead only as confirmed.
 * A retry reads the device first and never moves it where another run or a person put it meanwhile. A
 * site removed meanwhile (another run kept another and removed its own) is read again once: the device
 * then goes where every run keeps it.
 */
async function placeDevice(ctx: RunContext, plan: ActivationPlan, reads: ActivationReads, placement: Placement, client: ClientRef, madeWith: string | null): Promise<StepEvent & { site: SiteRef }> {
  const { device } = plan;
  let { site, now, sites } = placement;
  const skipped = (on: SiteRef) => ({ ...step({ step: 'authorize', status: 'skipped', device, site: on }, { deviceId: device.id, siteId: on.id }), site: on });
  const ownSite = (state: DeviceState) => (state.authorized ? ownSites(sites, client.id).find((s) => s.id === state.siteId) : undefined);
  for (let again = 0; again < 3; again++) {
    if (now.authorized && now.siteId === site.id) return skipped(site);
    const on = ownSite(now);
    if (on) return skipped(siteRef(on));
    const current = now.authorized && now.siteId ? sites.find((s) => s.id === now.siteId) : undefined;
    const move = moveOf({ ...device, authorized: now.authorized, siteId: now.siteId }, current, reads.authorized);
    if (move && !moveConfirmed(ctx.confirm, move)) throw new ActivationFailure({ code: 'device-in-use', device, move }, { ...plan, move });
    try {
      const outcome = await ensureAuthorized(ctx.writes, device.id, site.id, now);
      if (outcome.kind === 'authorized') return { ...step({ step: 'authorize', status: 'done', device, site }, { deviceId: device.id, siteId: site.id }), site };
      // Changed while this run tried (another run, or a person): judged on a fresh read, and never moved by a retry.
      ({ now, sites } = { now: outcome.now, sites: (await readPlacement(ctx.writes, client.id, device.id, reads.services)).sites });
      if (!now.authorized || !now.siteId) continue;
      const there = ownSite(now);
      if (there) return skipped(siteRef(there));
      throw new ActivationFailure({ code: 'device-in-use', device, move: placedElsewhere(now.siteId, sites) });
    } catch (error) {
      if (error instanceof ActivationFailure || again > 0 || !(error instanceof UispRejectedError)) throw error;
      const fresh = await placementNow(ctx, plan, reads, client, madeWith);
      if (!fresh || fresh.sites.some((s) => s.id === site.id)) throw error;
      ({ site, now, sites } = fresh);
    }
  }
  throw new ActivationFailure({ code: 'uisp-error', problem: 'request', detail: `${device.name}'s authorization kept changing while this run authorized it; it was not moved`, mayHaveApplied: true, beforeWrites: false });
}

/** Where someone else put the device while this run tried: a move only the agent can confirm (the site's owner, if NMS says). */
function placedElsewhere(siteId: string, sites: Site[]): DeviceMove {
  const site = sites.find((s) => s.id === siteId);
  const ownerId = site ? siteOwnerId(site) : null;
  return { site: site ? siteRef(site) : { id: siteId, name: siteId }, client: { id: ownerId, name: ownerId === null ? null : (site?.ucrm?.client?.name ?? null) } };
}
