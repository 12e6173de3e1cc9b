/**
 * The activation's writes, each converging on UISP (see ../converge.ts): whatever mix of CLI processes
 * and bot replicas runs the same activation at once, and whatever answers are lost on the way, they end
 * on one client, one Active service, one site and the device authorized once.
 *
 * A run that creates a client's service holds that client's lease (./lease.ts) and creates its client,
 * service and site without reading them back; the other writes (a site for a client whose service is
 * reused, the duplicates a lost write left) read back and reconcile. Markers: ./markers.ts; a site also
 * carries `subops:crm-client=<id>` when its client exists already, so a re-run finds the site before the
 * manual CRM–NMS link exists (a new client's site is its client's through the creating run's marker).
 */
import type { ActivationConfig } from '../../config.js';
import { ensureOne, ignoreNotFound, noteHas, reconcile, withRetries, type Converged, type ReconcileSpec, type WriteRetryPolicy } from '../converge.js';
import type { CrmClient } from '../uisp/crm-client.js';
import { UispError, UispRejectedError, UispWriteNotAppliedError } from '../uisp/errors.js';
import type { NmsClient } from '../uisp/nms-client.js';
import type { Client, ClientLog, Device, Service, Site } from '../uisp/schemas.js';
import { leaseMessage, releaseMessage, runOf } from './lease.js';
import { midnightIn } from '../dates.js';
import { sameName } from './names.js';
import { ACTIVATION_MARKER, createdMarker, newClientMarker } from './markers.js';
import { markedFor, siteMarker } from './planner.js';
import type { ActivationPlan, ServiceRef } from './types.js';

const CREATED = /(?:^|\s)subops:created=(\d+)(?:\s|$)/;

export interface WriteDeps {
  crm: CrmClient;
  nms: NmsClient;
  settings: ActivationConfig;
  retry: WriteRetryPolicy;
  /** Wall-clock ms for the site's creation stamp. */
  clock: () => number;
  /** This run's `subops:run=<id>` marker. */
  run: string;
  /** This run's id (the marker's value). */
  runId: string;
}

/** Where the device is now, read with the site's read-back, so authorization happens once. */
export interface DeviceState {
  authorized: boolean;
  siteId: string | null;
}

const oldestById = <T extends { id: number }>(records: T[]) => records.reduce((a, b) => (b.id < a.id ? b : a));

/**
 * Creates the new client under the run's lease: its note carries the markers and when the lease began
 * (./lease.ts). A retry after a lost answer finds the run's own client by its marker before creating again.
 */
export function createClient(deps: WriteDeps, name: { firstName: string; lastName: string }, contact: { email?: string; phone?: string }): Promise<Converged<Client>> {
  const { crm } = deps;
  return ensureOne(
    {
      freshlyRead: true,
      readBack: false,
      find: () => markedNamesakes(crm, name),
      create: () => crm.createClient({ ...name, ...contact, note: `${ACTIVATION_MARKER} ${deps.run} ${createdMarker(deps.clock())}` }),
      isMine: (client) => noteHas(client.note, deps.run),
      keep: (clients) => clients.find((c) => noteHas(c.note, deps.run)) ?? oldestById(clients),
      isDuplicate: () => false,
      remove: async () => {},
      id: (client) => client.id,
    },
    deps.retry,
  );
}

/**
 * Removes the newer of several clients an activation created under this name (a run that lost the
 * customer and could not undo, or a lost create that landed late), with the services activations made
 * under them, so the name is no longer ambiguous. A client with anything else under it, or created by
 * anyone else, stays. True when looking the name up again may now find one client: SubOps' duplicates
 * were there (whoever removed them), or the name is no longer ambiguous at all; false when people's own
 * namesakes make it ambiguous.
 */
export async function removeDuplicateClients(deps: Pick<WriteDeps, 'crm' | 'retry'>, name: { firstName: string; lastName: string }): Promise<boolean> {
  const namesakes = await findNamesakes(deps.crm, name);
  const marked = namesakes.filter((c) => noteHas(c.note, ACTIVATION_MARKER));
  if (marked.length < 2) return namesakes.length < 2;
  const keep = oldestById(marked);
  for (const client of marked) {
    if (client.id === keep.id) continue;
    const services = await deps.crm.listServices(client.id);
    if (!services.every((s) => noteHas(s.note, ACTIVATION_MARKER))) continue;
    for (const service of services) await deleteReplaced(deps, service.id);
    await withRetries(deps.retry, () => removeEmptyClient(deps.crm, client.id));
  }
  return true;
}

async function findNamesakes(crm: CrmClient, { firstName, lastName }: { firstName: string; lastName: string }): Promise<Client[]> {
  const clients = await crm.listClients({ query: `${firstName} ${lastName}` });
  return clients.filter((c) => sameName(c.firstName, firstName) && sameName(c.lastName, lastName));
}

/** The clients SubOps' activations created under this name (the oldest holds the name's lease). */
export async function markedNamesakes(crm: CrmClient, name: { firstName: string; lastName: string }): Promise<Client[]> {
  return (await findNamesakes(crm, name)).filter((c) => noteHas(c.note, ACTIVATION_MARKER));
}

/** Deletes a duplicate client only while nothing hangs under it; true when this call deleted it. */
export async function removeEmptyClient(crm: CrmClient, clientId: number): Promise<boolean> {
  if ((await crm.listServices(clientId)).length) return false;
  return ignoreNotFound(crm.deleteClient(clientId));
}

/** Deletes a Quoted or Obsolete service the plan replaces; one already gone counts as deleted. */
export async function deleteReplaced(deps: Pick<WriteDeps, 'crm' | 'retry'>, serviceId: number): Promise<void> {
  await withRetries(deps.retry, () => ignoreNotFound(deps.crm.deleteService(serviceId)));
}

/**
 * Creates the Active service under the run's lease (what it replaces is deleted first, by the caller). A
 * retry after a lost answer finds the run's own service before creating again.
 */
export function createService(deps: WriteDeps, clientId: number, plan: Extract<ActivationPlan['service'], { action: 'create' }>): Promise<Converged<Service>> {
  const { crm, settings } = deps;
  return ensureOne(
    {
      ...serviceSpec(deps, clientId),
      // This run holds the client: of several Active services, its own is what it reports.
      keep: (services) => {
        const own = services.filter((s) => noteHas(s.note, deps.run));
        return oldestById(own.length ? own : services);
      },
      freshlyRead: true,
      readBack: false,
      create: () =>
        crm.createService(clientId, {
          status: settings.statuses.active,
          servicePlanPeriodId: plan.servicePlanPeriodId,
          price: plan.price,
          // The plan's date as the start of that day in the ISP's zone: the form the CRM documents.
          activeFrom: midnightIn(plan.activeFrom, deps.settings.timeZone),
          invoicingStart: midnightIn(plan.activeFrom, deps.settings.timeZone),
          note: `${ACTIVATION_MARKER} ${deps.run}`,
        }),
      isMine: (service) => noteHas(service.note, deps.run),
    },
    deps.retry,
  );
}

/**
 * The Active service the plan reuses, once duplicates of it (lost writes that landed late) are removed.
 * `active`: the client's Active services as the plan has just read them, so nothing is read again.
 */
export async function settleActiveService(deps: WriteDeps, clientId: number, reused: ServiceRef, active: Service[]): Promise<Converged<Service> | undefined> {
  if (active.length < 2 || !active.some((s) => s.id === reused.id)) return undefined;
  return reconcile({ ...serviceSpec(deps, clientId), keep: (services) => services.find((s) => s.id === reused.id) ?? oldestById(services) }, active, deps.retry);
}

function serviceSpec(deps: WriteDeps, clientId: number): ReconcileSpec<Service> {
  const { crm, settings } = deps;
  return {
    find: async () => (await crm.listServices(clientId)).filter((s) => s.status === settings.statuses.active),
    keep: oldestById,
    isDuplicate: (service) => noteHas(service.note, ACTIVATION_MARKER),
    remove: (service) => crm.deleteService(service.id),
    id: (service) => service.id,
  };
}

export interface SiteOutcome extends Converged<Site> {
  /** The device as read with the site; undefined when the site step did not read it. */
  device: DeviceState | undefined;
}

/** Creates the client's site, or keeps the one a concurrent activation created first (read back). */
export async function ensureSite(
  deps: WriteDeps,
  client: Client,
  plan: Extract<ActivationPlan['site'], { action: 'create' }>,
  name: string,
  deviceId: string,
): Promise<SiteOutcome> {
  const reader = siteReader(deps, client, deviceId);
  const converged = await ensureOne({ ...reader.spec, freshlyRead: true, create: () => postSite(deps, plan, name, client.id), isMine: (site) => noteHas(site.description?.note, deps.run) }, deps.retry);
  return { ...converged, device: reader.device() };
}

/** Whose a site is: an existing client's id, or the name of the client the run is creating in the same wave. */
export type SiteOwner = number | { firstName: string; lastName: string };

/** Creates the site under the run's lease, without reading it back. */
export function createSite(deps: WriteDeps, plan: Extract<ActivationPlan['site'], { action: 'create' }>, name: string, owner: SiteOwner): Promise<Converged<Site>> {
  const own = (site: Site) => noteHas(site.description?.note, deps.run);
  return ensureOne(
    {
      find: async () => (await deps.nms.listSites()).filter(own),
      freshlyRead: true,
      readBack: false,
      create: () => postSite(deps, plan, name, owner),
      isMine: own,
      keep: (sites) => [...sites].sort(byCreation)[0]!,
      isDuplicate: () => true,
      remove: (site) => removeSite(deps.nms, site),
      id: (site) => site.id,
    },
    deps.retry,
  );
}

function postSite(deps: WriteDeps, plan: Extract<ActivationPlan['site'], { action: 'create' }>, name: string, owner: SiteOwner): Promise<Site> {
  const markers = [typeof owner === 'number' ? siteMarker(owner) : newClientMarker(owner.firstName, owner.lastName), createdMarker(deps.clock()), deps.run];
  return deps.nms.createSite({ name, type: 'endpoint', ...(plan.parentSiteId && { parentSiteId: plan.parentSiteId }), note: markers.join(' ') });
}

/**
 * Marks a site with its client's id (`subops:crm-client=<id>`, replacing another id's), as a new client's
 * site gets once the client has one: link reminders and lookups find a site by it.
 */
export async function markSite(deps: WriteDeps, site: Site, clientId: number): Promise<Site> {
  const words = (site.description?.note ?? '').split(/\s+/).filter((word) => word && !/^subops:crm-client=/.test(word));
  return withRetries(deps.retry, () => deps.nms.updateSiteNote(site, [siteMarker(clientId), ...words].join(' ')));
}

/** Removes a site this run created for a client that turned out to be another run's duplicate (nothing is on it yet). */
export async function removeOwnSite(deps: WriteDeps, site: Site): Promise<void> {
  await withRetries(deps.retry, () => ignoreNotFound(deps.nms.deleteSite(site.id)));
}

/**
 * Removes SubOps' other sites of the client beside the one the plan reuses (the planner chose it), once
 * the device is on it; undefined when there are none (or the reused site is one linked in the CRM).
 * `own`: the client's sites as the plan has just read them (`ownSites`), so nothing is read again.
 */
export async function settleSite(deps: WriteDeps, client: Client, reused: string, own: Site[]): Promise<Converged<Site> | undefined> {
  const reader = siteReader(deps, client, undefined);
  const marked = own.filter((s) => runOf(s.description?.note) !== null || reader.marked(s));
  if (marked.length < 2 || !marked.some((s) => s.id === reused)) return undefined;
  return reconcile({ ...reader.spec, keep: (all) => all.find((s) => s.id === reused)! }, marked, deps.retry);
}

/**
 * Reads the client's marked sites together with the device, and keeps the site the device is on, else
 * the oldest. `source`: the device's id, read again with the sites; or where the device is as the
 * caller has just read it.
 */
function siteReader(deps: WriteDeps, client: Client, source: string | DeviceState | undefined) {
  const { nms } = deps;
  let device = typeof source === 'string' ? undefined : source;
  const marked = markedFor(client);
  const spec: ReconcileSpec<Site> = {
    find: async () => {
      if (typeof source !== 'string') return (await nms.listSites()).filter(marked);
      const [sites, found] = await Promise.all([nms.listSites(), nms.getDevice(source)]);
      device = deviceState(found);
      return sites.filter(marked);
    },
    keep: (sites) => sites.find((s) => device?.authorized && s.id === device.siteId) ?? [...sites].sort(byCreation)[0]!,
    isDuplicate: () => true,
    remove: (site) => removeSite(nms, site),
    id: (site) => site.id,
  };
  return { spec, marked, device: () => device };
}

/** NMS refuses to delete a site with a device on it: such a site is in use, so it stays. */
async function removeSite(nms: NmsClient, site: Site): Promise<void> {
  try {
    await nms.deleteSite(site.id);
  } catch (error) {
    if (!(error instanceof UispRejectedError)) throw error;
  }
}

function byCreation(a: Site, b: Site): number {
  const stamp = (site: Site) => Number(CREATED.exec(site.description?.note ?? '')?.[1] ?? 0);
  return stamp(a) - stamp(b) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

export function deviceState(device: Device): DeviceState {
  return { authorized: device.identification.authorized === true, siteId: device.identification.site?.id ?? null };
}

/**
 * Authorizes the device onto the site. After a failure with no answer the device is read again first:
 * if it is on the site, the authorization landed and is not sent again.
 */
export async function ensureAuthorized(deps: WriteDeps, deviceId: string, siteId: string): Promise<void> {
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

/** Takes the lease on an existing client (./lease.ts): an entry in its CRM client log. */
export function takeLease(deps: WriteDeps, clientId: number): Promise<ClientLog> {
  return withRetries(deps.retry, () => deps.crm.createClientLog(clientId, leaseMessage(deps.runId)));
}

/** Gives the lease up after a failure, so a re-run need not wait for it to run out; a failure here only makes it wait. */
export async function releaseLease(deps: WriteDeps, clientId: number): Promise<void> {
  await withRetries(deps.retry, () => deps.crm.createClientLog(clientId, releaseMessage(deps.runId))).catch(() => undefined);
}
