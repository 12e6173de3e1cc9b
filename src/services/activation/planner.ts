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
import type { Client, ClientLog, Device, Service, ServicePlan, Site } from '../uisp/schemas.js';
import { findDevices } from './device-match.js';
import { noteHas } from '../converge.js';
import { creatorRun, heldRecords, holderRuns } from './lease.js';
import { newClientMarker } from './markers.js';
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

/** Written into the note of sites SubOps creates, so a re-run finds the site before the manual CRM link exists. */
export const siteMarker = (clientId: number) => `subops:crm-client=${clientId}`;

const MARKER = /^subops:crm-client=(\d+)$/;

/** The client id of SubOps' marker in a site note; the marker must be a whole word (12's is not inside 120's). */
export function markedClientId(site: Site): number | null {
  for (const word of (site.description?.note ?? '').split(/\s+/)) {
    const match = MARKER.exec(word);
    if (match) return Number(match[1]);
  }
  return null;
}

/**
 * Whether a site is SubOps' for this client: it carries the client's marker; or the client is one an
 * activation created, and the site was made for it in the same wave (before it had an id), so it
 * carries its name's key, and is bound to no other client. `live`: the clients of that name that exist
 * (a name lookup's); a site of the name marked for any other id was a removed duplicate's, so it is
 * this client's too.
 */
export function markedFor(client: Client, live?: ReadonlySet<number>): (site: Site) => boolean {
  const byName = creatorRun(client) === null ? null : newClientMarker(client.firstName, client.lastName);
  return (site) => {
    if (markedClientId(site) === client.id) return true;
    if (byName === null || !noteHas(site.description?.note, byName)) return false;
    const owner = siteClientId(site);
    return owner === null || owner === client.id || (live !== undefined && !live.has(owner) && site.ucrm?.client == null && site.description?.ucrmId == null);
  };
}

/** The ids of the clients a lookup found (the name's namesakes, active and archived); undefined for a lookup by id. */
export function namesakeIds(lookup: ClientLookup): ReadonlySet<number> | undefined {
  return lookup.by === 'name' ? new Set([...lookup.active, ...lookup.archived].map((c) => c.id)) : undefined;
}

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
export type ClientLookup = { by: 'id'; id: number; client: Client | null } | { by: 'name'; active: Client[]; archived: Client[] };

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
  /** The identified client's CRM log, where activation leases are (./lease.ts); [] when new or unknown. */
  clientLogs: ClientLog[];
  sites: Site[];
  /** The CRM's service plans: the configured plan period must be one of theirs before anything is written. */
  servicePlans: ServicePlan[];
  settings: Pick<ActivationConfig, 'servicePlanPeriodId' | 'servicePrice' | 'parentSiteId' | 'statuses' | 'leaseMs'>;
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
  const active = lookup.active.filter((c) => isNamed(c, firstName, lastName));
  if (active.length > 1) return { refusal: { code: 'client-ambiguous', typedName, candidates: active.map(candidate) } };
  if (active.length === 1) return { client: active[0]! };
  const archived = lookup.archived.filter((c) => isNamed(c, firstName, lastName));
  if (archived.length) return { refusal: { code: 'client-archived', candidates: archived.map(candidate) } };
  return { client: null };
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

function planService({ services, settings, today, clientLogs, servicePlans }: ActivationReads, existing: Client | null): { service: ActivationPlan['service'] } | { refusal: ActivationRefusal } {
  const { statuses } = settings;
  const client = existing && clientRef(existing);
  const ref = (s: Service): ServiceRef => ({ id: s.id, status: s.status, statusLabel: statusLabel(s.status, statuses), name: s.name });
  const reusable = services.filter((s) => dispositionOf(s.status, statuses) === 'reuse').sort((a, b) => a.id - b.id);
  // Several Active services: the one the client's lease holder made (what it reported), else the first.
  const active = (existing ? heldRecords(reusable, holderRuns(existing, clientLogs, settings.leaseMs), (s) => s.note)[0] : undefined) ?? reusable[0];
  if (active) return { service: { action: 'reuse', service: ref(active) } };
  const suspended = services.filter((s) => dispositionOf(s.status, statuses) === 'block');
  if (client && suspended.length) return { refusal: { code: 'service-suspended', client, services: suspended.map(ref) } };
  // UISP refuses a service of an unknown plan period, after the device is let on in the same wave: refuse first.
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

function planSite({ sites, settings, firstName, lastName, authorized, clientLogs, lookup }: ActivationReads, existing: Client | null, device: DeviceRef): SitePlan | { refusal: ActivationRefusal } {
  const client = existing && clientRef(existing);
  const own = existing ? ownSites(sites, existing, namesakeIds(lookup)) : [];
  const current = device.authorized && device.siteId ? sites.find((s) => s.id === device.siteId) : undefined;
  const onOwn = current !== undefined && own.includes(current);
  // Several of the client's sites: the one its lease holder made (what it reported: where the device is
  // when it made several), else where the device is, else the first.
  const held = existing ? heldRecords(own, holderRuns(existing, clientLogs, settings.leaseMs), (s) => s.description?.note) : [];
  const chosen = (current && held.includes(current) ? current : held[0]) ?? (onOwn ? current : own[0]);
  if (current && current === chosen) {
    const site = siteRef(current);
    return { site: { action: 'reuse', site }, authorize: { action: 'skip', site }, move: null };
  }
  // From one of the client's own sites to another is no move off anybody's site.
  const move = onOwn ? null : moveOf(device, current, authorized);
  if (chosen) return { site: { action: 'reuse', site: siteRef(chosen) }, authorize: { action: 'authorize' }, move };
  const parentSiteId = settings.parentSiteId ?? sites.find((s) => !s.identification.parent && (s.identification.type ?? 'site') === 'site')?.id ?? null;
  if (settings.parentSiteId && !sites.some((s) => s.id === parentSiteId)) return { refusal: { code: 'parent-site-not-found', parentSiteId: settings.parentSiteId } };
  return { site: { action: 'create', name: client?.name ?? `${firstName} ${lastName}`, parentSiteId }, authorize: { action: 'authorize' }, move };
}

/** The client's own sites: bound to it in the CRM first, then SubOps' for it (`markedFor`). */
export function ownSites(sites: Site[], client: Client, live?: ReadonlySet<number>): Site[] {
  const id = String(client.id);
  const bound = sites.filter((s) => s.ucrm?.client?.id === id || s.description?.ucrmId === id);
  const marked = markedFor(client, live);
  return [...bound, ...sites.filter((s) => !bound.includes(s) && marked(s))];
}

/**
 * An authorized station sitting on an endpoint site that is not the target's: authorizing it elsewhere
 * takes it from that site's client. On infrastructure it is the normal case (no move to confirm). A site
 * NMS does not list is judged by the device's own reference to it; without a type it counts as an
 * endpoint of unknown owner.
 */
function moveOf(device: DeviceRef, current: Site | undefined, authorized: Device[]): DeviceMove | null {
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
