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
import { ownSites, siteOwnerId } from '../sites.js';
import { clientActivation, keptClient, keptService, keptSite } from './keep.js';
import type { Client, Device, Service, ServicePlan, Site } from '../uisp/schemas.js';
import { findDevices } from './device-match.js';
import { madeBySubOps } from './markers.js';
import { sameName } from './names.js';
import type { NumberingVerdict } from './numbering.js';
import { isKnownStatus, isReplaceable, isSharedStatus, SHARED_STATUSES, statusLabel, type ServiceNumbering } from './service-status.js';
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

/** Infrastructure (a tower or POP): type `site`, or no type and no client of its own. */
function isInfrastructure(site: Site): boolean {
  const type = site.identification.type;
  return type === 'site' || (type == null && siteOwnerId(site) === null);
}

export const siteRef = (site: Site): SiteRef => ({ id: site.id, name: site.identification.name });
export const clientRef = (client: Client): ClientRef => ({ id: client.id, name: clientDisplayName(client) });

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
  /** Authorized devices: every one matching the query, and every one on the client's sites when it has several (or all of them). */
  authorized: Device[];
  /** The whole discovered list. */
  discovered: Device[];
  lookup: ClientLookup;
  /** The identified client's services ([] when the client is new or unknown). */
  services: Service[];
  /**
   * NMS sites with their CRM binding: every site the rules look at (the devices' sites, the client's own,
   * every endpoint site not bound to the CRM, the parent site or the towers), possibly all of them.
   */
  sites: Site[];
  /** The CRM's service plans: the configured plan period must be one of theirs before anything is written. */
  servicePlans: ServicePlan[];
  /** Which status numbering UISP uses (./numbering.ts): replacing a service needs it. */
  numbering: NumberingVerdict;
  settings: Pick<ActivationConfig, 'servicePlanPeriodId' | 'servicePrice' | 'parentSiteId'>;
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
  const kept = keptClient(namesakes);
  if (!empty || !kept) return [];
  return namesakes.filter((c) => c !== kept && madeBySubOps(c.note) && empty.has(c.id)).sort((a, b) => a.id - b.id);
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

function planService(reads: ActivationReads, existing: Client | null): { service: ActivationPlan['service'] } | { refusal: ActivationRefusal } {
  const { services, settings, today } = reads;
  const numbering = reads.numbering.numbering;
  const client = existing && clientRef(existing);
  const ref = serviceRefUnder(numbering);
  const kind = (s: Service) => serviceKind(s, reads);
  // Several Active services (a late duplicate, or a person's beside SubOps'): the one every run keeps (./keep.ts).
  const active = keptService(services.filter(isActiveOfKind(reads)));
  if (active) return { service: { action: 'reuse', service: ref(active) } };
  const suspended = services.filter((s) => s.status === SHARED_STATUSES.suspended && kind(s) !== 'other');
  if (client && suspended.length) return { refusal: { code: 'service-suspended', client, services: suspended.map(ref) } };
  // UISP would refuse a service of an unknown plan period after the client and site are made: refuse first.
  if (!configuredPlan(reads)) return { refusal: { code: 'service-plan-unknown', servicePlanPeriodId: settings.servicePlanPeriodId } };
  const unsure = statusesInDoubt(services.filter((s) => kind(s) === 'same'), services, numbering);
  if (client && unsure.length) return { refusal: { code: 'service-status-unknown', client, services: unsure.map(ref), numbering: numbering?.name ?? null, why: reads.numbering.why } };
  const replaceable = (s: Service) => numbering !== null && isReplaceable(s.status, numbering);
  return {
    service: {
      action: 'create',
      delete: services.filter((s) => replaceable(s) && kind(s) === 'same').map(ref),
      leftAlone: services.filter((s) => replaceable(s) && kind(s) !== 'same').map(ref),
      servicePlanPeriodId: settings.servicePlanPeriodId,
      price: settings.servicePrice,
      activeFrom: today,
    },
  };
}

export const serviceRefUnder =
  (numbering: ServiceNumbering | null) =>
  (s: Service): ServiceRef => ({ id: s.id, status: s.status, statusLabel: statusLabel(s.status, numbering), name: s.name });

/**
 * Services whose status stops any replacement rather than be guessed at: with no numbering known, any of
 * the activation's own kind that is neither Active, Ended nor Suspended (Quoted or Deferred? it cannot tell);
 * with one, every service of the client when one of them has a status the numbering does not name (UISP
 * contradicts the numbering) and the plan would replace anything.
 */
function statusesInDoubt(same: Service[], all: Service[], numbering: ServiceNumbering | null): Service[] {
  if (!numbering) return same.filter((s) => !isSharedStatus(s.status));
  if (!same.some((s) => isReplaceable(s.status, numbering))) return [];
  return all.filter((s) => !isKnownStatus(s.status, numbering));
}

/**
 * An Active service that counts as the activation's own kind (the same plan type, or one UISP does not
 * say): a client's Active cable TV service is not its internet.
 */
export const isActiveOfKind =
  (reads: Pick<ActivationReads, 'servicePlans' | 'settings'>) =>
  (service: Service): boolean =>
    service.status === SHARED_STATUSES.active && serviceKind(service, reads) !== 'other';

/** The plan the configured period belongs to (the service an activation creates), or undefined. */
function configuredPlan({ servicePlans, settings }: Pick<ActivationReads, 'servicePlans' | 'settings'>): ServicePlan | undefined {
  return servicePlans.find((plan) => plan.periods.some((period) => period.id === settings.servicePlanPeriodId));
}

/**
 * Whether an existing service is of the kind this activation creates (the configured plan's type,
 * normally Internet): `same`, `other` (cable TV, VoIP: never touched), or `unknown` when neither the
 * service nor its plan says. An unknown one still counts as Active or Suspended (never a second service
 * beside it) but is never replaced.
 */
export function serviceKind(service: Service, reads: Pick<ActivationReads, 'servicePlans' | 'settings'>): 'same' | 'other' | 'unknown' {
  const target = (configuredPlan(reads)?.servicePlanType ?? 'Internet').toLowerCase();
  const plan = reads.servicePlans.find((p) => p.id === service.servicePlanId || p.periods.some((period) => period.id === service.servicePlanPeriodId));
  const type = service.servicePlanType ?? plan?.servicePlanType ?? (plan ? 'Internet' : null);
  if (type === null) return 'unknown';
  return type.toLowerCase() === target ? 'same' : 'other';
}

// ---------- site, authorization and the device move ----------

type SitePlan = Pick<ActivationPlan, 'site' | 'authorize' | 'move'>;

function planSite({ sites, settings, firstName, lastName, authorized, services }: ActivationReads, existing: Client | null, device: DeviceRef): SitePlan | { refusal: ActivationRefusal } {
  const client = existing && clientRef(existing);
  const own = existing ? ownSites(sites, existing.id, services) : [];
  const current = device.authorized && device.siteId ? sites.find((s) => s.id === device.siteId) : undefined;
  const onOwn = current !== undefined && own.includes(current);
  if (current && onOwn) {
    const site = siteRef(current);
    return { site: { action: 'reuse', site }, authorize: { action: 'skip', site }, move: null };
  }
  const move = moveOf(device, current, authorized);
  const chosen = keptSite(own, { devices: authorized, services, madeWith: clientActivation(existing) });
  if (chosen) return { site: { action: 'reuse', site: siteRef(chosen) }, authorize: { action: 'authorize' }, move };
  const parentSiteId = settings.parentSiteId ?? sites.find((s) => !s.identification.parent && (s.identification.type ?? 'site') === 'site')?.id ?? null;
  if (settings.parentSiteId && !sites.some((s) => s.id === parentSiteId)) return { refusal: { code: 'parent-site-not-found', parentSiteId: settings.parentSiteId } };
  return { site: { action: 'create', name: client?.name ?? `${firstName} ${lastName}`, parentSiteId }, authorize: { action: 'authorize' }, move };
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
    const ownerId = siteOwnerId(current);
    return { site: siteRef(current), client: { id: ownerId, name: ownerId === null ? null : (current.ucrm?.client?.name ?? null) } };
  }
  const reference = authorized.find((d) => d.identification.id === device.id)?.identification.site;
  if (reference?.type === 'site') return null;
  return { site: { id: device.siteId, name: reference?.name ?? device.siteId }, client: { id: null, name: null } };
}
