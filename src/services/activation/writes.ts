/**
 * The activation's writes, each converging on UISP by the one rule of ../converge.ts: read before
 * creating, read back after creating, every process keeps the same record (./keep.ts), and a run removes
 * only its own records (this activation's id in the note, ./markers.ts) that another run's made redundant.
 * Every delete and every authorization that could move the device is preceded by a read made for that
 * attempt: a record that is no longer what was decided is left as it is, and the run says so.
 *
 * What is never removed, whatever the names say: a client with any service or payment, a site with a
 * device on it or linked in the CRM, another run's record, a person's record, anything not created by
 * this activation, and a replaced service that is no longer exactly what the agent confirmed.
 */
import type { ActivationConfig } from '../../config.js';
import { deleteChecked, ensureOne, withRetries, type CheckedDelete, type Converged, type DeleteOutcome, type WriteRetryPolicy } from '../converge.js';
import type { CrmClient } from '../uisp/crm-client.js';
import { emptyIfNotFound, nullIfNotFound, UispError, UispWriteNotAppliedError } from '../uisp/errors.js';
import { uniqueSites, type NetworkReads } from '../network.js';
import type { NmsClient } from '../uisp/nms-client.js';
import type { Client, Device, Service, Site } from '../uisp/schemas.js';
import { midnightIn } from '../dates.js';
import { sameName } from './names.js';
import { madeBy, madeBySubOps, recordMarker, siteMarker } from './markers.js';
import { isBound } from '../sites.js';
import { competingSites, keptClient, keptService, keptSite } from './keep.js';
import { identifyClient } from './planner.js';
import { nameLookup } from './reads.js';
import { SHARED_STATUSES, statusLabel, type ServiceNumbering } from './service-status.js';
import type { ActivationPlan, ActivationRefusal, ServiceRef } from './types.js';

export interface WriteDeps {
  crm: CrmClient;
  nms: NmsClient;
  network: NetworkReads;
  settings: ActivationConfig;
  retry: WriteRetryPolicy;
  /** This activation's id (./markers.ts): its records, and only those, are its own. */
  activationId: string;
  /** Resolves while the run still holds its device and client (../converge.ts LockHold; LeaseLostError when not): asked right before each delete and authorization. */
  confirmHold: () => Promise<void>;
}

/** Where the device is, as read with the sites, so authorization happens once and never moves it off a reported site. */
export interface DeviceState {
  authorized: boolean;
  siteId: string | null;
}

/** A converged write with the records of its last read (late duplicates are found among them). */
export type Settled<T> = Converged<T> & { seen: T[] };

/** The client's creation settled: and, when the name became ambiguous meanwhile, the refusal a fresh run gets. */
export type ClientOutcome = Settled<Client> & { refusal?: ActivationRefusal };

/**
 * Creates the new client. Its read-back looks the name up as a fresh run would: a concurrent activation
 * of the same name made a namesake too, and the older is kept (this run's newer one is removed once it is
 * read as empty); a name that now belongs to several customers (staff renamed clients meanwhile) stops
 * the run before it adopts anything, and this run's own client, still empty, is removed.
 * `created`: told as soon as UISP answers (the site needs only the id), before the read-back.
 */
export async function createClient(
  deps: WriteDeps,
  name: { firstName: string; lastName: string },
  contact: { email?: string; phone?: string },
  created?: (client: Client) => void,
): Promise<ClientOutcome> {
  const { crm } = deps;
  let seen: Client[] = [];
  let lookup: Awaited<ReturnType<typeof nameLookup>> | undefined;
  const converged = await ensureOne(
    {
      freshlyRead: true,
      find: async () => {
        lookup = await nameLookup(crm, name.firstName, name.lastName);
        return (seen = lookup.active.filter((c) => madeBySubOps(c.note) && sameName(c.firstName, name.firstName) && sameName(c.lastName, name.lastName)));
      },
      create: () => crm.createClient({ ...name, ...contact, note: recordMarker(deps.activationId) }),
      isMine: (client) => madeBy(client.note, deps.activationId),
      keep: (clients) => keptClient(clients)!,
      removal: (client) => ownClientRemoval(deps, client),
      id: (client) => client.id,
      ...(created && { created }),
    },
    deps.retry,
  );
  const identity = identifyClient(lookup!, name.firstName, name.lastName);
  if (!('refusal' in identity)) return { ...converged, seen };
  const outcome: ClientOutcome = { ...converged, seen, refusal: identity.refusal };
  if (converged.created) {
    const removal = await deleteChecked(deps.retry, ownClientRemoval(deps, converged.record));
    if (removal.kind === 'deleted') outcome.removed = [...outcome.removed, converged.record];
    if (removal.kind === 'refused' || removal.kind === 'changed') outcome.refused = [...outcome.refused, { record: converged.record, detail: whyKept(removal) }];
  }
  return outcome;
}

const whyKept = (outcome: Extract<DeleteOutcome<unknown>, { kind: 'refused' | 'changed' }>) => (outcome.kind === 'refused' ? outcome.detail : outcome.why);

/** This run's own client, removed only while it is still this run's and has no service and no payment. */
function ownClientRemoval(deps: Pick<WriteDeps, 'crm' | 'activationId' | 'confirmHold'>, client: Client): CheckedDelete<{ client: Client; services: Service[]; paid: boolean }> {
  const { crm } = deps;
  return {
    read: async () => {
      const [now, services, payment] = await Promise.all([crm.getClient(client.id).catch(nullIfNotFound), crm.listServices(client.id).catch(emptyIfNotFound), crm.payments({ clientId: client.id }, 1).next()]);
      return now && { client: now, services, paid: !payment.done };
    },
    changed: ({ client: now, services, paid }) => {
      if (!madeBy(now.note, deps.activationId)) return `client #${client.id} is no longer this activation's (its note changed); it is kept`;
      if (services.length) return `client #${client.id} has services; it is kept`;
      if (paid) return `client #${client.id} has payments; it is kept`;
      return null;
    },
    confirm: deps.confirmHold,
    remove: () => crm.deleteClient(client.id),
  };
}

/**
 * Deletes a Quoted or Obsolete service the agent confirmed replacing. Each attempt, the first included,
 * is decided by a read of the service made for it, and sends the DELETE only while it is still the
 * client's, in the status the agent confirmed.
 */
export function deleteReplaced(
  deps: Pick<WriteDeps, 'crm' | 'retry' | 'confirmHold'>,
  clientId: number,
  confirmed: ServiceRef,
  numbering: ServiceNumbering | null,
): Promise<DeleteOutcome<Service>> {
  const { crm } = deps;
  return deleteChecked(deps.retry, {
    confirm: deps.confirmHold,
    read: () => crm.getService(confirmed.id).catch(nullIfNotFound),
    changed: (now) => {
      if (now.clientId !== clientId) return `service #${confirmed.id} belongs to client #${now.clientId} now`;
      if (now.status !== confirmed.status) return `service #${confirmed.id} is ${statusLabel(now.status, numbering)} now, not ${confirmed.statusLabel}`;
      return null;
    },
    remove: () => crm.deleteService(confirmed.id),
  });
}

/**
 * Creates the Active service (the plan's deletes are done). Its read-back lists the client's Active
 * services of the kind: the one `keptService` keeps stays; this run's other one (never reported, never
 * invoiced) is removed. A service a person made or turned Active meanwhile is never kept instead of this
 * run's, and never removed. `fresh`: the plan's read of the client's services is current, so the first
 * attempt need not read.
 */
export async function createService(
  deps: WriteDeps,
  clientId: number,
  plan: Extract<ActivationPlan['service'], { action: 'create' }>,
  fresh: boolean,
  /** An Active service of the kind this activation creates (not the client's cable TV, say). */
  isActive: (service: Service) => boolean,
  created?: (service: Service) => void,
): Promise<Settled<Service>> {
  const { crm, settings } = deps;
  let seen: Service[] = [];
  const converged = await ensureOne(
    {
      freshlyRead: fresh,
      find: async () => (seen = (await crm.listServices(clientId)).filter(isActive)),
      create: () =>
        crm.createService(clientId, {
          status: SHARED_STATUSES.active,
          servicePlanPeriodId: plan.servicePlanPeriodId,
          price: plan.price,
          // The plan's date as the start of that day in the ISP's zone: the form the CRM documents.
          activeFrom: midnightIn(plan.activeFrom, settings.timeZone),
          invoicingStart: midnightIn(plan.activeFrom, settings.timeZone),
          note: recordMarker(deps.activationId),
        }),
      isMine: (service) => madeBy(service.note, deps.activationId),
      keep: (services) => keptService(services)!,
      removal: (service) => ownServiceRemoval(deps, service, isActive),
      id: (service) => service.id,
      ...(created && { created }),
    },
    deps.retry,
  );
  return { ...converged, seen };
}

/** This run's own redundant service, removed only while it is still this run's, Active and never invoiced. */
function ownServiceRemoval(deps: Pick<WriteDeps, 'crm' | 'activationId' | 'confirmHold'>, service: Service, isActive: (service: Service) => boolean): CheckedDelete<Service> {
  const { crm } = deps;
  return {
    read: () => crm.getService(service.id).catch(nullIfNotFound),
    changed: (now) => {
      if (!madeBy(now.note, deps.activationId) || now.clientId !== service.clientId) return `service #${service.id} is no longer this activation's`;
      if (!isActive(now)) return `service #${service.id} is no longer Active`;
      if (now.lastInvoicedDate) return `service #${service.id} has been invoiced`;
      return null;
    },
    confirm: deps.confirmHold,
    remove: () => crm.deleteService(service.id),
  };
}

export interface SiteOutcome extends Settled<Site> {
  /** The device, read together with the sites. */
  device: DeviceState;
  /** The client's sites and the device's, as read with the device (to judge where the device is: `readPlacement`). */
  sites: Site[];
}

/**
 * Creates the client's site, marked for the client. Its read-back lists the sites with the devices: among
 * the client's SubOps-made sites the one `keptSite` keeps stays (a site in use first, so a device is never
 * moved off a site another run reported), and this run's other site is removed, read first.
 */
export async function createSite(
  deps: WriteDeps,
  clientId: number,
  plan: Extract<ActivationPlan['site'], { action: 'create' }>,
  deviceId: string,
  fresh: boolean,
  /** The activation that made the client (./keep.ts): the site it made is the one every run keeps. */
  madeWith: string | null,
  /** The client's services as the plan read them (a new client has none): the sites they are bound to are the client's. */
  services: readonly Service[],
): Promise<SiteOutcome> {
  const { nms } = deps;
  let read: { sites: Site[]; devices: Device[]; device: DeviceState } | undefined;
  let seen: Site[] = [];
  const converged = await ensureOne(
    {
      freshlyRead: fresh,
      find: async () => {
        const placement = await readPlacement(deps, clientId, deviceId, services);
        read = { ...placement, device: deviceState(placement.device) };
        return (seen = placement.competing);
      },
      create: () =>
        nms.createSite({
          name: plan.name,
          type: 'endpoint',
          ...(plan.parentSiteId && { parentSiteId: plan.parentSiteId }),
          note: siteMarker(clientId, deps.activationId),
        }),
      isMine: (site) => madeBy(site.description?.note, deps.activationId),
      keep: (sites) => keptSite(sites, { devices: read?.devices ?? [], madeWith })!,
      removal: (site) => ownSiteRemoval(deps, site),
      id: (site) => site.id,
    },
    deps.retry,
  );
  // ensureOne always reads (back) before it settles on a record, so `read` is set.
  return { ...converged, seen, device: read!.device, sites: read!.sites };
}

/** This run's own site, removed only while it is still this run's, not linked in the CRM and without a device. */
function ownSiteRemoval(deps: Pick<WriteDeps, 'nms' | 'network' | 'activationId' | 'confirmHold'>, site: Site): CheckedDelete<{ site: Site; devices: Device[] }> {
  const { nms } = deps;
  return {
    read: async () => {
      const [[now], devices] = await Promise.all([deps.network.sitesById([site.id]), deps.network.devicesOn([site.id])]);
      return now ? { site: now, devices } : null;
    },
    changed: ({ site: now, devices }) => {
      if (!madeBy(now.description?.note, deps.activationId)) return `site ${site.id} is no longer this activation's`;
      if (isBound(now)) return `site ${site.id} is linked in the CRM now`;
      const on = devices.find((d) => d.identification.site?.id === site.id);
      if (on) return `device ${on.identification.name ?? on.identification.id} is on site ${site.id}`;
      return null;
    },
    confirm: deps.confirmHold,
    remove: () => nms.deleteSite(site.id),
  };
}

/** Removes a site this run made that another run's kept record made redundant; read before each attempt. */
export function removeOwnSite(deps: Pick<WriteDeps, 'nms' | 'network' | 'retry' | 'activationId' | 'confirmHold'>, site: Site): Promise<DeleteOutcome<unknown>> {
  return deleteChecked(deps.retry, ownSiteRemoval(deps, site));
}

/** What a site's read-back and a placement read see: the client's sites, where the device is, and the SubOps sites that compete. */
export interface PlacementRead {
  /** Every site the client may own (../network.ts `clientSites`) and the device's site. */
  sites: Site[];
  /** The client's sites SubOps made (./keep.ts `competingSites`). */
  competing: Site[];
  /** The devices on the competing sites, when there are several (which one every run keeps depends on them). */
  devices: Device[];
  device: Device;
}

/**
 * The client's sites and the device, read now. `services`: the client's services as the run's plan read
 * them; a site is bound through a service, so those name its bound sites (one a person binds during the
 * run is seen as the device's site once a run puts the device there, and the run's own then goes).
 */
export async function readPlacement(deps: Pick<WriteDeps, 'nms' | 'network'>, clientId: number, deviceId: string, services: readonly Service[]): Promise<PlacementRead> {
  const network = deps.network.oneRead();
  const [notBound, device] = await Promise.all([network.sitesNotBound(), deps.nms.getDevice(deviceId)]);
  const named = [...services.flatMap((s) => (s.unmsClientSiteId ? [s.unmsClientSiteId] : [])), ...(device.identification.site ? [device.identification.site.id] : [])];
  // Read after the device, never from a whole list read before it: another run may have made the site the device is on since.
  const sites = uniqueSites([...notBound, ...(await deps.network.sitesById(named.filter((id) => !notBound.some((s) => s.id === id))))]);
  const competing = competingSites(sites, clientId);
  const devices = competing.length > 1 ? await network.devicesOn(competing.map((s) => s.id)) : [];
  return { sites, competing, devices, device };
}

export function deviceState(device: Device): DeviceState {
  return { authorized: device.identification.authorized === true, siteId: device.identification.site?.id ?? null };
}

const sameState = (a: DeviceState, b: DeviceState) => a.authorized === b.authorized && a.siteId === b.siteId;

/** How an authorization ended: the device is on the site, or it was found somewhere else and left there. */
export type AuthorizeOutcome = { kind: 'authorized' } | { kind: 'moved'; now: DeviceState };

/**
 * Authorizes the device onto the site. `before`: the device as the read that decided this authorization
 * saw it. Every later attempt reads the device first: on the site, the authorization landed and is not
 * sent again; anywhere else than `before` said (another run, or a person, put it there meanwhile), it is
 * left where it is and the caller reports that.
 */
export async function ensureAuthorized(deps: Pick<WriteDeps, 'nms' | 'retry' | 'confirmHold'>, deviceId: string, siteId: string, before: DeviceState): Promise<AuthorizeOutcome> {
  const read = async (): Promise<AuthorizeOutcome | null> => {
    const now = deviceState(await deps.nms.getDevice(deviceId));
    if (now.authorized && now.siteId === siteId) return { kind: 'authorized' };
    return sameState(now, before) ? null : { kind: 'moved', now };
  };
  let attempts = 0;
  try {
    return await withRetries(deps.retry, async (n) => {
      attempts = n;
      const settled = n > 1 ? await read() : null;
      if (settled) return settled;
      await deps.confirmHold();
      await deps.nms.authorizeDevice(deviceId, siteId);
      return { kind: 'authorized' } as const;
    });
  } catch (error) {
    if (!(error instanceof UispError && error.mayHaveApplied)) throw error;
    const settled = await read().catch(() => undefined);
    if (settled === undefined) throw error;
    if (settled === null) throw new UispWriteNotAppliedError(error, attempts);
    return settled;
  }
}
