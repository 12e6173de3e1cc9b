/**
 * The activation's reads, in as few round trips as they allow, each asking UISP for the records the
 * rules need rather than the lists (issue #38, ../network.ts): the device typed (by IP or MAC, its sites
 * and devices; by name, both lists), the discovered list, the client lookup, the sites that may await
 * their link, the parent site (or the towers), the service plans, all at once; then, for a name lookup,
 * the identified client's services (read with the lookup when the caller already knows the client: a
 * confirmation read again), the sites those services are bound to (every site when none is), and, when the client has several
 * sites, the devices on them (which one every run keeps depends on them: ./keep.ts).
 */
import type { ActivationConfig } from '../../config.js';
import { uniqueDevices, uniqueSites, type NetworkReads } from '../network.js';
import { markedClientId, ownSites } from '../sites.js';
import type { CrmClient } from '../uisp/crm-client.js';
import { emptyIfNotFound, nullIfNotFound } from '../uisp/errors.js';
import type { NmsClient } from '../uisp/nms-client.js';
import type { Device, Service, Site } from '../uisp/schemas.js';
import { findDevices, parseDeviceQuery } from './device-match.js';
import type { StatusNumbering } from './numbering.js';
import { madeBySubOps } from './markers.js';
import { titleCase } from './names.js';
import { identifyClient, type ActivationReads, type ClientLookup } from './planner.js';
import type { ActivationRequest, DeviceQuery } from './types.js';

export interface ReadDeps {
  crm: CrmClient;
  nms: NmsClient;
  network: NetworkReads;
  settings: ActivationConfig;
  numbering: StatusNumbering;
  /** Today's date (YYYY-MM-DD) in the ISP's time zone. */
  today: () => string;
}

interface ClientRead {
  lookup: ClientLookup;
  services: Service[];
}

/** `expectedClientId`: the client an earlier decision identified by name; its services are read with the lookup. */
export async function readActivation(deps: ReadDeps, request: ActivationRequest, expectedClientId?: number): Promise<ActivationReads> {
  const { nms, crm, settings } = deps;
  const network = deps.network.oneRead();
  const query = parseDeviceQuery(request.device);
  const firstName = titleCase(request.firstName);
  const lastName = titleCase(request.lastName);
  const [found, discovered, client, notBound, parents, servicePlans, numbering] = await Promise.allSettled([
    network.findDevice(query),
    nms.listDiscoveredDevices(),
    request.clientId !== undefined ? lookUpId(crm, request.clientId) : lookUpName(crm, firstName, lastName, expectedClientId),
    network.sitesNotBound(),
    settings.parentSiteId ? network.sitesById([settings.parentSiteId]) : network.towers(),
    crm.listServicePlans(),
    deps.numbering.resolve(),
  ]);
  const { authorized, sites: deviceSites } = settled(found);
  const known = uniqueSites([...deviceSites, ...settled(notBound), ...settled(parents)]);
  const { lookup, services } = await lookedUpAfterDevice(settled(client), { query, authorized, sites: known }, () => lookUpName(crm, firstName, lastName, expectedClientId));
  const identity = identifyClient(lookup, firstName, lastName);
  const existing = 'client' in identity ? identity.client : null;
  const sites = uniqueSites([...known, ...(existing ? await boundSites(network, services, known) : [])]);
  const own = existing ? ownSites(sites, existing.id, services) : [];
  const onOwn = own.length > 1 ? await network.devicesOn(own.map((s) => s.id)) : [];
  return {
    query,
    firstName,
    lastName,
    authorized: uniqueDevices([...authorized, ...onOwn]),
    discovered: settled(discovered),
    lookup,
    services,
    sites,
    servicePlans: settled(servicePlans),
    numbering: settled(numbering),
    settings,
    today: deps.today(),
  };
}

/**
 * The device is read after the client lookup (its site first, then the devices on it). When it sits on
 * a site SubOps made for a client the name lookup did not return, that client may be this very
 * customer, made by another run since the lookup: the lookup is read again, so that the decision never
 * takes the customer's own site for another client's.
 */
async function lookedUpAfterDevice(read: ClientRead, device: { query: DeviceQuery; authorized: Device[]; sites: Site[] }, again: () => Promise<ClientRead>): Promise<ClientRead> {
  const { lookup } = read;
  if (lookup.by !== 'name') return read;
  const listed = new Set([...lookup.active, ...lookup.archived].map((c) => c.id));
  const onSites = findDevices(device.query, device.authorized, []).flatMap((d) => device.sites.filter((s) => s.id === d.siteId));
  const madeForAnother = onSites.some((site) => madeBySubOps(site.description?.note) && markedClientId(site) !== null && !listed.has(markedClientId(site)!));
  return madeForAnother ? again() : read;
}

/**
 * An existing client's bound sites not read yet: those its services name, by id; when none names one,
 * every site (a site bound to the client alone no CRM record names: ../network.ts `clientSites`).
 */
function boundSites(network: NetworkReads, services: readonly Service[], known: readonly Site[]): Promise<Site[]> {
  const named = services.flatMap((s) => (s.unmsClientSiteId ? [s.unmsClientSiteId] : []));
  if (named.length === 0) return network.everySite();
  return network.sitesById(named.filter((id) => !known.some((site) => site.id === id)));
}

/** The client and its services together; an unknown id is a lookup result (the planner refuses it), not an error. */
async function lookUpId(crm: CrmClient, id: number): Promise<ClientRead> {
  const [client, services] = await Promise.all([crm.getClient(id).catch(nullIfNotFound), crm.listServices(id).catch(emptyIfNotFound)]);
  return { lookup: { by: 'id', id, client }, services };
}

/** Active and archived namesakes (persons and companies); then the services of the one it identifies. */
async function lookUpName(crm: CrmClient, firstName: string, lastName: string, expectedClientId?: number): Promise<ClientRead> {
  const [lookup, expected] = await Promise.all([
    nameLookup(crm, firstName, lastName),
    expectedClientId === undefined ? undefined : crm.listServices(expectedClientId).catch(emptyIfNotFound),
  ]);
  const identity = identifyClient(lookup, firstName, lastName);
  const client = 'client' in identity ? identity.client : null;
  if (!client) return { lookup, services: [] };
  return { lookup, services: expected && client.id === expectedClientId ? expected : await crm.listServices(client.id) };
}

/**
 * The name lookup a fresh run makes: active and archived namesakes, and for an ambiguous name among
 * SubOps' namesakes which have no service. A run's client read-back makes the same one (./writes.ts).
 */
export async function nameLookup(crm: CrmClient, firstName: string, lastName: string): Promise<Extract<ClientLookup, { by: 'name' }>> {
  const query = `${firstName} ${lastName}`;
  const [active, archived] = await Promise.all([crm.listClients({ query }), crm.listClients({ query, isArchived: true })]);
  return withEmptyNamesakes(crm, { by: 'name', active, archived }, firstName, lastName);
}

/** An ambiguous name among namesakes SubOps made: which of those have no service (planner's `withoutSettling`). */
async function withEmptyNamesakes(crm: CrmClient, lookup: Extract<ClientLookup, { by: 'name' }>, firstName: string, lastName: string): Promise<Extract<ClientLookup, { by: 'name' }>> {
  const identity = identifyClient(lookup, firstName, lastName);
  const refusal = 'refusal' in identity ? identity.refusal : undefined;
  if (refusal?.code !== 'client-ambiguous') return lookup;
  const candidates = new Set(refusal.candidates.map((k) => k.id));
  const made = lookup.active.filter((c) => candidates.has(c.id) && madeBySubOps(c.note));
  if (made.length < 2) return lookup;
  const services = await Promise.all(made.map((c) => crm.listServices(c.id).catch(emptyIfNotFound)));
  return { ...lookup, empty: new Set(made.filter((_, i) => services[i]!.length === 0).map((c) => c.id)) };
}

function settled<T>(result: PromiseSettledResult<T>): T {
  if (result.status === 'rejected') throw result.reason;
  return result.value;
}
