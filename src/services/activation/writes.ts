/**
 * The activation's writes, each converging on UISP (see ../converge.ts): whatever mix of CLI processes
 * and bot replicas runs the same activation at once, and whatever answers are lost on the way, they end
 * on one client, one Active service, one site and the device authorized once.
 *
 * Markers (whole words in the record's note; documented in the README):
 * - `subops:activation` on clients and services an activation creates: such a record may be removed
 *   again when it turns out to be a duplicate. Clients are found again by name, services by client.
 * - `subops:run=<id>` on everything a run creates, so a record whose creation answer was lost is known
 *   as the run's own (reported as created by it), not as another activation's.
 * - `subops:crm-client=<id>` on sites, so a re-run finds the site before the manual CRM–NMS link exists,
 *   and `subops:created=<epoch ms>`: NMS site ids are random, so the note says which site is the oldest.
 */
import type { ActivationConfig } from '../../config.js';
import { ensureOne, ignoreNotFound, noteHas, reconcile, withRetries, type Converged, type ReconcileSpec, type WriteRetryPolicy } from '../converge.js';
import type { CrmClient } from '../uisp/crm-client.js';
import { UispError, UispRejectedError, UispWriteNotAppliedError } from '../uisp/errors.js';
import type { NmsClient } from '../uisp/nms-client.js';
import type { Client, Device, Service, Site } from '../uisp/schemas.js';
import { midnightIn } from '../dates.js';
import { sameName } from './names.js';
import { siteMarker } from './planner.js';
import type { ActivationPlan, ServiceRef } from './types.js';

export const ACTIVATION_MARKER = 'subops:activation';

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
  /** Services this run deleted already (a confirmed plan's deletes, sent at its start): not sent again. */
  deleted?: ReadonlySet<number>;
}

export const runMarker = (runId: string) => `subops:run=${runId}`;

/** Where the device is now, read with the site's read-back, so authorization happens once. */
export interface DeviceState {
  authorized: boolean;
  siteId: string | null;
}

const oldestById = <T extends { id: number }>(records: T[]) => records.reduce((a, b) => (b.id < a.id ? b : a));

/**
 * The new client, or the one a concurrent activation of the same name created first. `created`: told of
 * the new client as soon as UISP answers, before its read-back.
 */
export function ensureClient(
  deps: WriteDeps,
  name: { firstName: string; lastName: string },
  contact: { email?: string; phone?: string },
  created?: (client: Client) => void,
): Promise<Converged<Client>> {
  const { crm } = deps;
  return ensureOne(
    {
      freshlyRead: true,
      find: () => markedNamesakes(crm, name),
      create: () => crm.createClient({ ...name, ...contact, note: `${ACTIVATION_MARKER} ${deps.run}` }),
      isMine: (client) => noteHas(client.note, deps.run),
      keep: oldestById,
      isDuplicate: (client) => noteHas(client.note, ACTIVATION_MARKER),
      remove: async (client) => void (await removeEmptyClient(crm, client.id)),
      id: (client) => client.id,
      ...(created && { created }),
    },
    deps.retry,
  );
}

/**
 * Removes the newer of several clients an activation created under this name (lost writes that landed
 * late, or a race another process has not finished tidying), so the name is no longer ambiguous.
 * Clients with services, or created by anyone else, stay. True when looking the name up again may now
 * find one client: SubOps' duplicates were there (whoever removed them), or the name is no longer
 * ambiguous at all; false when people's own namesakes make it ambiguous.
 */
export async function removeDuplicateClients(deps: Pick<WriteDeps, 'crm' | 'retry'>, name: { firstName: string; lastName: string }): Promise<boolean> {
  const namesakes = await findNamesakes(deps.crm, name);
  const marked = namesakes.filter((c) => noteHas(c.note, ACTIVATION_MARKER));
  if (marked.length < 2) return namesakes.length < 2;
  const keep = oldestById(marked);
  for (const client of marked) if (client.id !== keep.id) await withRetries(deps.retry, () => removeEmptyClient(deps.crm, client.id));
  return true;
}

async function findNamesakes(crm: CrmClient, { firstName, lastName }: { firstName: string; lastName: string }): Promise<Client[]> {
  const clients = await crm.listClients({ query: `${firstName} ${lastName}` });
  return clients.filter((c) => sameName(c.firstName, firstName) && sameName(c.lastName, lastName));
}

async function markedNamesakes(crm: CrmClient, name: { firstName: string; lastName: string }): Promise<Client[]> {
  return (await findNamesakes(crm, name)).filter((c) => noteHas(c.note, ACTIVATION_MARKER));
}

/** Deletes a duplicate client only while nothing hangs under it; true when this call deleted it. */
async function removeEmptyClient(crm: CrmClient, clientId: number): Promise<boolean> {
  if ((await crm.listServices(clientId)).length) return false;
  return ignoreNotFound(crm.deleteClient(clientId));
}

export interface ServiceOutcome extends Converged<Service> {
  /** Quoted or Obsolete services deleted first. */
  deleted: ServiceRef[];
}

/** Deletes a Quoted or Obsolete service the plan replaces; one already gone counts as deleted. */
export async function deleteReplaced(deps: Pick<WriteDeps, 'crm' | 'retry'>, serviceId: number): Promise<void> {
  await withRetries(deps.retry, () => ignoreNotFound(deps.crm.deleteService(serviceId)));
}

/** Deletes what the plan replaces, then creates the Active service (or keeps the oldest Active one). */
/** `created`: told of the new service as soon as UISP answers, before its read-back. */
export async function ensureActiveService(
  deps: WriteDeps,
  clientId: number,
  plan: Extract<ActivationPlan['service'], { action: 'create' }>,
  fresh: boolean,
  created?: (service: Service) => void,
): Promise<ServiceOutcome> {
  const { crm, settings } = deps;
  for (const old of plan.delete) if (!deps.deleted?.has(old.id)) await deleteReplaced(deps, old.id);
  const converged = await ensureOne(
    {
      ...serviceSpec(deps, clientId),
      freshlyRead: fresh,
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
      ...(created && { created }),
    },
    deps.retry,
  );
  return { ...converged, deleted: plan.delete };
}

/**
 * The Active service the plan reuses, once duplicates of it (lost writes that landed late) are removed.
 * `active`: the client's Active services as the plan has just read them, so nothing is read again.
 */
export async function settleActiveService(deps: WriteDeps, clientId: number, reused: ServiceRef, active: Service[]): Promise<Converged<Service> | undefined> {
  if (active.length < 2 || !active.some((s) => s.id === reused.id)) return undefined;
  return reconcile(serviceSpec(deps, clientId), active, deps.retry);
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

/** Creates the client's site (or keeps the one a concurrent activation created first). */
export async function ensureSite(
  deps: WriteDeps,
  clientId: number,
  plan: Extract<ActivationPlan['site'], { action: 'create' }>,
  name: string,
  deviceId: string,
  fresh: boolean,
): Promise<SiteOutcome> {
  const { nms } = deps;
  const reader = siteReader(deps, clientId, deviceId);
  const converged = await ensureOne(
    {
      ...reader.spec,
      freshlyRead: fresh,
      create: () =>
        nms.createSite({
          name,
          type: 'endpoint',
          ...(plan.parentSiteId && { parentSiteId: plan.parentSiteId }),
          note: `${siteMarker(clientId)} subops:created=${deps.clock()} ${deps.run}`,
        }),
      isMine: (site) => noteHas(site.description?.note, deps.run),
    },
    deps.retry,
  );
  return { ...converged, device: reader.device() };
}

/** Removes a site this run created for a client that turned out to be another run's duplicate (nothing is on it yet). */
export async function removeOwnSite(deps: WriteDeps, site: Site): Promise<void> {
  await withRetries(deps.retry, () => ignoreNotFound(deps.nms.deleteSite(site.id)));
}

/**
 * The site the plan reuses, with SubOps' duplicates of it removed (`kept` is undefined when the plan's
 * site is not one SubOps marked, a site linked in the CRM). `sites` and `device` are as the plan has
 * just read them, so nothing is read again.
 */
export async function settleSite(deps: WriteDeps, clientId: number, reused: string, sites: Site[], device: Device | undefined): Promise<Converged<Site> | undefined> {
  const reader = siteReader(deps, clientId, device && deviceState(device));
  const marked = sites.filter(reader.marked);
  return marked.some((s) => s.id === reused) ? reconcile(reader.spec, marked, deps.retry) : undefined;
}

/**
 * Reads the client's marked sites together with the device, and keeps the site the device is on, else
 * the oldest. `source`: the device's id, read again with the sites; or where the device is as the
 * caller has just read it.
 */
function siteReader(deps: WriteDeps, clientId: number, source: string | DeviceState | undefined) {
  const { nms } = deps;
  let device = typeof source === 'string' ? undefined : source;
  const marked = (site: Site) => noteHas(site.description?.note, siteMarker(clientId));
  const spec: ReconcileSpec<Site> = {
    find: async () => {
      if (typeof source !== 'string') return (await nms.listSites()).filter(marked);
      const [sites, found] = await Promise.all([nms.listSites(), nms.getDevice(source)]);
      device = deviceState(found);
      return sites.filter(marked);
    },
    keep: (sites) => sites.find((s) => device?.authorized && s.id === device.siteId) ?? [...sites].sort(byCreation)[0]!,
    isDuplicate: () => true,
    // NMS refuses to delete a site with a device on it: such a site is in use, so it stays.
    remove: async (site) => {
      try {
        await nms.deleteSite(site.id);
      } catch (error) {
        if (!(error instanceof UispRejectedError)) throw error;
      }
    },
    id: (site) => site.id,
  };
  return { spec, marked, device: () => device };
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
