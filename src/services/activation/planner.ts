/**
 * The activation's decisions as pure functions: from what was read from UISP (both device lists, the
 * client lookup, the client's services, the sites), the settings and today's date, to a typed decision:
 * refused (with the facts), a plan that needs the agent's confirmation (exactly what), or a plan.
 * No I/O here: the workflow reads, calls `decideActivation`, and writes.
 *
 * Device rules (issue 8 §2): only a subscriber station may be activated. Any other role (AP, router,
 * switch, gateway…) is infrastructure and refused whatever is confirmed; a device for which NMS reports
 * no role is refused too, since nothing shows it is a station. A station on an infrastructure site
 * (type `site`) or not yet authorized is the normal case; on the target client's own site it is reused;
 * on any other endpoint site (another client's, or of unknown owner) moving it needs confirmation.
 *
 * Client rules (§3): an explicit id must belong to the typed name (person: first and last name;
 * company: the company name), ignoring case and extra spaces. A name lookup considers person and company
 * clients, active and archived: only archived matches are reported, never duplicated; several active
 * matches are listed with what tells them apart.
 */
import type { ActivationConfig } from '../../config.js';
import { clientDisplayName } from '../uisp/crm-client.js';
import type { Client, Device, Service, ServicePlan, Site } from '../uisp/schemas.js';
import { findDevices } from './device-match.js';
import { madeBySubOps, markedClientId as noteClientId } from './markers.js';
import { sameName } from './names.js';
import { dispositionOf, statusLabel } from './service-status.js';
import type {
  ActivationDecision,
  ActivationPlan,
  ActivationRefusal,
  ClientCandidate,
  ClientRef,
  DeviceMove,
  DeviceQuery,
  DeviceRef,
  ServiceRef,
  SiteRef,
} from './types.js';

/** The one role NMS gives a subscriber CPE (the Swagger's enum also has ap, router, switch, gateway, ptp…). */
const SUBSCRIBER_ROLE = 'station';

/** The CRM client SubOps' marker in a site's note names (./markers.ts), or null. */
export const markedClientId = (site: Site): number | null => noteClientId(site.description?.note);

/** The CRM client id an NMS site is bound to (CRM binding first, then SubOps' marker), or null. */
export function siteClientId(site: Site): number | null {
  const bound = site.ucrm?.client?.id ?? site.description?.ucrmId;
  if (bound != null && /^\d+$/.test(bound)) return Number(bound);
  return markedClientId(site);
}

/** Infrastructure (a tower or POP): type `site`, or no type and no client of its own. */
function isInfrastructure(site: Site): boolean {
  const type = site.identification.type;
  return type === 'site' || (type == null && siteClientId(site) === null);
}

export const siteRef = (site: Site): SiteRef => ({ id: site.id, name: site.identification.name });
export const clientRef = (client: Client): ClientRef => ({ id: client.id, name: clientDisplayName(client) });

/** What the client lookup returned: by explicit id (null when the CRM has no such client) or by name. */
/**
 * What the client lookup returned: by explicit id (null when the CRM has no such client) or by name.
 * `empty`: for namesakes SubOps made, which of them have no service (read only when the name is ambiguous).
 */
export type ClientLookup = { by: 'id'; id: number; client: Client | null } | { by: 'name'; active: Client[]; archived: Client[]; empty?: ReadonlySet<number> };

export interface ActivationReads {
  query: DeviceQuery;
  /** As typed; compared ignoring case and spaces, written in Title Case. */
  firstName: string;
  lastName: string;
  authorized: Device[];
  discovered: Device[];
  lookup: ClientLookup;
  /** The identified client's services ([] when the client is new or unknown). */
  services: Service[];
  sites: Site[];
  /** The CRM's service plans: the configured plan period must be one of theirs before anything is written. */
  servicePlans: ServicePlan[];
  settings: Pick<ActivationConfig, 'servicePlanPeriodId' | 'servicePrice' | 'parentSiteId' | 'statuses'>;
  /** YYYY-MM-DD in the ISP's time zone. */
  today: string;
}

export type ClientIdentity = { client: Client | null } | { refusal: ActivationRefusal };

/** Which existing client the request means (null: a new one), or why that cannot be decided. */
export function identifyClient(lookup: ClientLookup, firstName: string, lastName: string): ClientIdentity {
  const typedName = `${firstName} ${lastName}`;
  if (lookup.by === 'id') {
    const { client, id } = lookup;
    if (!client) return { refusal: { code: 'client-not-found', clientId: id } };
    if (!isNamed(client, firstName, lastName)) return { refusal: { code: 'client-name-mismatch', clientId: id, crmName: clientDisplayName(client), typedName } };
    if (client.isArchived) return { refusal: { code: 'client-archived', candidates: [candidate(client)] } };
    return { client };
  }
  const active = withoutSettling(lookup.active.filter((c) => isNamed(c, firstName, lastName)), lookup.empty);
  if (active.length > 1) return { refusal: { code: 'client-ambiguous', typedName, candidates: active.map(candidate) } };
  if (active.length === 1) return { client: active[0]! };
  const archived = lookup.archived.filter((c) => isNamed(c, firstName, lastName));
  if (archived.length) return { refusal: { code: 'client-archived', candidates: archived.map(candidate) } };
  return { client: null };
}

/**
 * Namesakes SubOps made are one customer's records while an activation settles them (../converge.ts):
 * the oldest is the one every run keeps, and a newer one with no service is a duplicate its own run is
 * removing (or one UISP applied late), not another person. It is left out of the lookup, never removed.
 * A newer one with a service (a staff rename, say) is somebody's: it stays, and the name is ambiguous.
 */
export function withoutSettling(namesakes: Client[], empty: ReadonlySet<number> | undefined): Client[] {
  const settling = new Set(settlingNamesakes(namesakes, empty).map((c) => c.id));
  return namesakes.filter((c) => !settling.has(c.id));
}

/** The namesakes `withoutSettling` leaves out. */
export function settlingNamesakes(namesakes: Client[], empty: ReadonlySet<number> | undefined): Client[] {
  const made = namesakes.filter((c) => madeBySubOps(c.note)).sort((a, b) => a.id - b.id);
  if (!empty || made.length < 2) return [];
  return made.slice(1).filter((c) => empty.has(c.id));
}

/** Every decision of an activation, from the reads alone. Refusals come in the order an agent fixes them. */
export function decideActivation(reads: ActivationReads): ActivationDecision {
  const refused = (refusal: ActivationRefusal): ActivationDecision => ({ kind: 'refused', refusal });
  const device = pickDevice(reads);
  if ('refusal' in device) return refused(device.refusal);
  const identity = identifyClient(reads.lookup, reads.firstName, reads.lastName);
  if ('refusal' in identity) return refused(identity.refusal);
  const client = identity.client ? clientRef(identity.client) : null;
  const service = planService(reads, identity.client);
  if ('refusal' in service) return refused(service.refusal);
  const site = planSite(reads, identity.client, device.device);
  if ('refusal' in site) return refused(site.refusal);

  const plan: ActivationPlan = {
    device: device.device,
    client: client ? { action: 'reuse', client } : { action: 'create', firstName: reads.firstName, lastName: reads.lastName },
    service: service.service,
    site: site.site,
    authorize: site.authorize,
    move: site.move,
    destructive: service.service.action === 'create' && service.service.delete.length > 0,
  };
  const deletes = plan.service.action === 'create' ? plan.service.delete : [];
  if (deletes.length || plan.move) return { kind: 'needs-confirmation', plan, confirm: { deletes, move: plan.move } };
  return { kind: 'plan', plan };
}

// ---------- device ----------

function pickDevice({ query, authorized, discovered, sites }: ActivationReads): { device: DeviceRef } | { refusal: ActivationRefusal } {
  const found = findDevices(query, authorized, discovered);
  if (found.length === 0) return { refusal: { code: 'device-not-found', query } };
  if (found.length > 1) return { refusal: { code: 'device-ambiguous', query, devices: found } };
  const device = found[0]!;
  const site = deviceSite(device, authorized, sites);
  if (device.role === null) return { refusal: { code: 'device-role-unknown', device, site } };
  if (device.role !== SUBSCRIBER_ROLE) return { refusal: { code: 'device-infrastructure', device, role: device.role, site } };
  return { device };
}

/** The device's site from the site list, else from the device's own site reference. */
function deviceSite(device: DeviceRef, authorized: Device[], sites: Site[]): SiteRef | null {
  if (!device.siteId) return null;
  const site = sites.find((s) => s.id === device.siteId);
  if (site) return siteRef(site);
  const reference = authorized.find((d) => d.identification.id === device.id)?.identification.site;
  return { id: device.siteId, name: reference?.name ?? device.siteId };
}

// ---------- client ----------

/** A person by first and last name; a company by its name against the whole typed name. */
function isNamed(client: Client, firstName: string, lastName: string): boolean {
  if (client.firstName || client.lastName) return sameName(client.firstName, firstName) && sameName(client.lastName, lastName);
  return sameName(client.companyName, `${firstName} ${lastName}`);
}

function candidate(client: Client): ClientCandidate {
  const contact = client.contacts.find((c) => c.email || c.phone);
  const address = [client.street1, client.city].filter(Boolean).join(', ');
  return { ...clientRef(client), email: contact?.email ?? null, phone: contact?.phone ?? null, address: address || null, archived: client.isArchived === true };
}

// ---------- service ----------

function planService({ services, settings, today, servicePlans }: ActivationReads, existing: Client | null): { service: ActivationPlan['service'] } | { refusal: ActivationRefusal } {
  const { statuses } = settings;
  const client = existing && clientRef(existing);
  const ref = (s: Service): ServiceRef => ({ id: s.id, status: s.status, statusLabel: statusLabel(s.status, statuses), name: s.name });
  // Several Active services (a late duplicate): the oldest, the one every run keeps (./writes.ts).
  const active = services.filter((s) => dispositionOf(s.status, statuses) === 'reuse').sort((a, b) => a.id - b.id)[0];
  if (active) return { service: { action: 'reuse', service: ref(active) } };
  const suspended = services.filter((s) => dispositionOf(s.status, statuses) === 'block');
  if (client && suspended.length) return { refusal: { code: 'service-suspended', client, services: suspended.map(ref) } };
  // UISP would refuse a service of an unknown plan period after the client and site are made: refuse first.
  if (!servicePlans.some((plan) => plan.periods.some((period) => period.id === settings.servicePlanPeriodId))) {
    return { refusal: { code: 'service-plan-unknown', servicePlanPeriodId: settings.servicePlanPeriodId } };
  }
  return {
    service: {
      action: 'create',
      delete: services.filter((s) => dispositionOf(s.status, statuses) === 'replace').map(ref),
      servicePlanPeriodId: settings.servicePlanPeriodId,
      price: settings.servicePrice,
      activeFrom: today,
    },
  };
}

// ---------- site, authorization and the device move ----------

type SitePlan = Pick<ActivationPlan, 'site' | 'authorize' | 'move'>;

function planSite({ sites, settings, firstName, lastName, authorized }: ActivationReads, existing: Client | null, device: DeviceRef): SitePlan | { refusal: ActivationRefusal } {
  const client = existing && clientRef(existing);
  const own = existing ? ownSites(sites, existing.id) : [];
  const current = device.authorized && device.siteId ? sites.find((s) => s.id === device.siteId) : undefined;
  const onOwn = current !== undefined && own.includes(current);
  if (current && onOwn) {
    const site = siteRef(current);
    return { site: { action: 'reuse', site }, authorize: { action: 'skip', site }, move: null };
  }
  const move = moveOf(device, current, authorized);
  const chosen = keptSite(own, authorized);
  if (chosen) return { site: { action: 'reuse', site: siteRef(chosen) }, authorize: { action: 'authorize' }, move };
  const parentSiteId = settings.parentSiteId ?? sites.find((s) => !s.identification.parent && (s.identification.type ?? 'site') === 'site')?.id ?? null;
  if (settings.parentSiteId && !sites.some((s) => s.id === parentSiteId)) return { refusal: { code: 'parent-site-not-found', parentSiteId: settings.parentSiteId } };
  return { site: { action: 'create', name: client?.name ?? `${firstName} ${lastName}`, parentSiteId }, authorize: { action: 'authorize' }, move };
}

/**
 * The client's own sites: bound to it in the CRM first, then those SubOps made for it (its marker),
 * unless the CRM binds them to another client.
 */
export function ownSites(sites: Site[], clientId: number): Site[] {
  const id = String(clientId);
  const bound = sites.filter((s) => s.ucrm?.client?.id === id || s.description?.ucrmId === id);
  const marked = sites.filter((s) => !bound.includes(s) && markedClientId(s) === clientId && [null, id].includes(boundId(s)));
  return [...bound, ...marked];
}

const boundId = (site: Site): string | null => site.ucrm?.client?.id ?? site.description?.ucrmId ?? null;

/**
 * Which of a client's sites every run keeps (NMS site ids are random, so there is no oldest): one bound
 * in the CRM, else one in use (a device authorized on it), else the lowest id. A site in use is never
 * given up for another, so a device is never moved off a site a run reported.
 */
export function keptSite(own: Site[], authorized: Device[]): Site | undefined {
  const inUse = new Set(authorized.filter((d) => d.identification.authorized && d.identification.site?.id).map((d) => d.identification.site!.id));
  const byId = [...own].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return own.find((s) => boundId(s) !== null) ?? byId.find((s) => inUse.has(s.id)) ?? byId[0];
}

/**
 * An authorized station sitting on an endpoint site that is not the target's: authorizing it elsewhere
 * takes it from that site's client. On infrastructure it is the normal case (no move to confirm). A site
 * NMS does not list is judged by the device's own reference to it; without a type it counts as an
 * endpoint of unknown owner.
 */
export function moveOf(device: DeviceRef, current: Site | undefined, authorized: Device[]): DeviceMove | null {
  if (!device.authorized || !device.siteId) return null;
  if (current) {
    if (isInfrastructure(current)) return null;
    const ownerId = siteClientId(current);
    return { site: siteRef(current), client: { id: ownerId, name: ownerId === null ? null : (current.ucrm?.client?.name ?? null) } };
  }
  const reference = authorized.find((d) => d.identification.id === device.id)?.identification.site;
  if (reference?.type === 'site') return null;
  return { site: { id: device.siteId, name: reference?.name ?? device.siteId }, client: { id: null, name: null } };
}
