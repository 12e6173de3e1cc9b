/**
 * The activation's writes, each converging on UISP by the one rule of ../converge.ts: read before
 * creating, read back after creating, every process keeps the same record, and a run removes only its
 * own records (this activation's id in the note, ./markers.ts) that another run's made redundant.
 *
 * What is kept among several records made for the same thing:
 * - clients (SubOps-made namesakes) and Active services: the oldest id (CRM ids are in creation order);
 * - a client's sites (NMS ids are random, so there is no oldest): the one the device is authorized on,
 *   else the planner's `keptSite` (bound in the CRM, else the lowest id).
 *
 * What is never removed, whatever the names say: a client with any service or payment, a site with a
 * device on it (NMS refuses), another run's record, anything not created by this activation.
 */
import type { ActivationConfig } from '../../config.js';
import { ensureOne, ignoreNotFound, withRetries, type Converged, type WriteRetryPolicy } from '../converge.js';
import type { CrmClient } from '../uisp/crm-client.js';
import { UispError, UispWriteNotAppliedError } from '../uisp/errors.js';
import type { NmsClient } from '../uisp/nms-client.js';
import type { Client, Device, Service, Site } from '../uisp/schemas.js';
import { midnightIn } from '../dates.js';
import { sameName } from './names.js';
import { madeBy, madeBySubOps, recordMarker, siteMarker } from './markers.js';
import { ownSites } from '../sites.js';
import { keptSite } from './planner.js';
import { SHARED_STATUSES } from './service-status.js';
import type { ActivationPlan } from './types.js';

export interface WriteDeps {
  crm: CrmClient;
  nms: NmsClient;
  settings: ActivationConfig;
  retry: WriteRetryPolicy;
  /** This activation's id (./markers.ts): its records, and only those, are its own. */
  activationId: string;
}

/** Where the device is, as read with the sites, so authorization happens once and never moves it off a reported site. */
export interface DeviceState {
  authorized: boolean;
  siteId: string | null;
}

/** A converged write with the records of its last read (late duplicates are found among them). */
export type Settled<T> = Converged<T> & { seen: T[] };

const oldestById = <T extends { id: number }>(records: T[]) => records.reduce((a, b) => (b.id < a.id ? b : a));

/**
 * A client that has nothing under it, being removed: it must be this run's (checked by the caller) and
 * have no service and no payment now. Anything else is refused, never deleted.
 */
class ClientInUseError extends Error {
  override readonly name = 'ClientInUseError';
}

/**
 * Creates the new client. Its read-back lists SubOps' namesakes: a concurrent activation of the same
 * name made one too, and the older is kept; this run's newer one is removed once it is read as empty.
 * `created`: told as soon as UISP answers (the site needs only the id), before the read-back.
 */
export async function createClient(
  deps: WriteDeps,
  name: { firstName: string; lastName: string },
  contact: { email?: string; phone?: string },
  created?: (client: Client) => void,
): Promise<Settled<Client>> {
  const { crm } = deps;
  let seen: Client[] = [];
  const converged = await ensureOne(
    {
      freshlyRead: true,
      find: async () => (seen = (await namesakes(crm, name)).filter((c) => madeBySubOps(c.note))),
      create: () => crm.createClient({ ...name, ...contact, note: recordMarker(deps.activationId) }),
      isMine: (client) => madeBy(client.note, deps.activationId),
      keep: oldestById,
      remove: (client) => removeEmptyClient(crm, client.id),
      refusal: (error) => (error instanceof ClientInUseError ? error.message : undefined),
      id: (client) => client.id,
      ...(created && { created }),
    },
    deps.retry,
  );
  return { ...converged, seen };
}

async function namesakes(crm: CrmClient, { firstName, lastName }: { firstName: string; lastName: string }): Promise<Client[]> {
  const clients = await crm.listClients({ query: `${firstName} ${lastName}` });
  return clients.filter((c) => sameName(c.firstName, firstName) && sameName(c.lastName, lastName));
}

async function removeEmptyClient(crm: CrmClient, clientId: number): Promise<void> {
  const [services, payment] = await Promise.all([crm.listServices(clientId), crm.payments({ clientId }, 1).next()]);
  if (services.length || !payment.done) throw new ClientInUseError(`client #${clientId} has ${services.length ? 'services' : 'payments'}; it is kept`);
  await crm.deleteClient(clientId);
}

/**
 * Deletes a Quoted or Obsolete service the plan replaces. The caller has just read it as such, in this
 * run, after the agent's confirmation. False when it was already gone (404): another run deleted it, and
 * that run, not this one, reports the deletion.
 */
export function deleteReplaced(deps: Pick<WriteDeps, 'crm' | 'retry'>, serviceId: number): Promise<boolean> {
  return withRetries(deps.retry, () => ignoreNotFound(deps.crm.deleteService(serviceId)));
}

/**
 * Creates the Active service (the plan's deletes are done). Its read-back lists the client's Active
 * services: the oldest is kept; this run's newer one (never reported, never invoiced) is removed.
 * `fresh`: the plan's read of the client's services is current, so the first attempt need not read.
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
      keep: oldestById,
      remove: (service) => crm.deleteService(service.id),
      id: (service) => service.id,
      ...(created && { created }),
    },
    deps.retry,
  );
  return { ...converged, seen };
}

export interface SiteOutcome extends Settled<Site> {
  /** The device, read together with the sites. */
  device: DeviceState;
  /** Every NMS site, as read with the device (to judge where the device is). */
  sites: Site[];
}

/**
 * Creates the client's site, marked for the client. Its read-back lists the sites with the device: the
 * site the device is authorized on is kept whatever else exists (so a run never moves it off a site
 * another run reported), else the planner's `keptSite`. This run's other site is removed; NMS refuses
 * to remove a site with a device on it, and that refusal is reported, not taken for a removal.
 */
export async function createSite(
  deps: WriteDeps,
  clientId: number,
  plan: Extract<ActivationPlan['site'], { action: 'create' }>,
  deviceId: string,
  fresh: boolean,
): Promise<SiteOutcome> {
  const { nms } = deps;
  let read: { sites: Site[]; device: DeviceState } | undefined;
  let seen: Site[] = [];
  const converged = await ensureOne(
    {
      freshlyRead: fresh,
      find: async () => {
        const [sites, device] = await Promise.all([nms.listSites(), nms.getDevice(deviceId)]);
        read = { sites, device: deviceState(device) };
        return (seen = ownSites(sites, clientId));
      },
      create: () =>
        nms.createSite({
          name: plan.name,
          type: 'endpoint',
          ...(plan.parentSiteId && { parentSiteId: plan.parentSiteId }),
          note: siteMarker(clientId, deps.activationId),
        }),
      isMine: (site) => madeBy(site.description?.note, deps.activationId),
      keep: (sites) => sites.find((s) => read?.device.authorized && s.id === read.device.siteId) ?? keptSite(sites, [])!,
      remove: (site) => nms.deleteSite(site.id),
      id: (site) => site.id,
    },
    deps.retry,
  );
  // ensureOne always reads (back) before it settles on a record, so `read` is set.
  return { ...converged, seen, device: read!.device, sites: read!.sites };
}

/** Removes a site this run made for a client of its own that another run's older client made redundant. */
export async function removeOwnSite(deps: Pick<WriteDeps, 'nms' | 'retry'>, site: Site): Promise<boolean> {
  return withRetries(deps.retry, () => ignoreNotFound(deps.nms.deleteSite(site.id)));
}

export function deviceState(device: Device): DeviceState {
  return { authorized: device.identification.authorized === true, siteId: device.identification.site?.id ?? null };
}

/**
 * Authorizes the device onto the site. After a failure with no answer the device is read again first:
 * if it is on the site, the authorization landed and is not sent again.
 */
export async function ensureAuthorized(deps: Pick<WriteDeps, 'nms' | 'retry'>, deviceId: string, siteId: string): Promise<void> {
  const onSite = async () => {
    const now = deviceState(await deps.nms.getDevice(deviceId));
    return now.authorized && now.siteId === siteId;
  };
  let attempts = 0;
  try {
    await withRetries(deps.retry, async (n) => {
      attempts = n;
      if (n > 1 && (await onSite())) return;
      await deps.nms.authorizeDevice(deviceId, siteId);
    });
  } catch (error) {
    if (!(error instanceof UispError && error.mayHaveApplied)) throw error;
    const landed = await onSite().catch(() => undefined);
    if (landed === undefined) throw error;
    if (!landed) throw new UispWriteNotAppliedError(error, attempts);
  }
}
