/**
 * Everyday lookups: a client's or a device's card from UISP, read-only. The first read decides what the
 * answer is (a card, a short list of matches, or nothing); the card's other parts are read together and
 * a part that cannot be read is reported as a gap instead of failing the whole card.
 */
import type { Logger } from 'pino';
import { findDevices, parseDeviceQuery } from '../activation/device-match.js';
import type { StatusNumbering } from '../activation/numbering.js';
import { SHARED_STATUSES, statusLabel, type ServiceNumbering } from '../activation/service-status.js';
import { awaitsLink, markedClientId, ownSites, siteOwnerId } from '../sites.js';
import { readClientKey, readLine, readPersonName, type ClientKey } from '../input/grammar.js';
import { InputError } from '../errors.js';
import { duplicatesOf } from '../duplicates.js';
import { clientActivation } from '../activation/keep.js';
import { applicableAction } from '../suspensions.js';
import type { CrmClient } from '../uisp/crm-client.js';
import { UispNotFoundError } from '../uisp/errors.js';
import type { NmsClient } from '../uisp/nms-client.js';
import type { Client, Device, Service, Site } from '../uisp/schemas.js';
import type { DeviceQuery } from '../activation/types.js';
import type { DeviceFinding, NetworkReads } from '../network.js';
import type { OutageNote, OutageService, OutageTarget } from '../outages.js';
import { TypeaheadIndex } from './typeahead.js';
import { activationName, clientMatch, deviceKey, deviceLine, linkedBy } from './lines.js';
import type { ActivationPrefill, CardGap, ClientCard, ClientLookup, DeviceCard, DeviceLine, DeviceLookup, MissingLink, ServiceLine, SiteOwnerLine } from './types.js';

export type * from './types.js';
export { clientMatch, deviceKey } from './lines.js';
export type { Suggestion, Suggestions } from './typeahead.js';

export interface LookupDeps {
  crm: CrmClient;
  nms: NmsClient;
  /** The NMS questions a card asks: the records it shows, not the lists (../network.ts). */
  network: NetworkReads;
  /** Names service statuses (Quoted, Deferred…) once UISP's numbering is known. */
  numbering: StatusNumbering;
  /** Which outages in progress affect a card's client or device. */
  outages: Pick<OutageService, 'affecting'>;
  /** Builds the CRM web interface's link to a client. */
  crmClientUrl: (clientId: number) => string;
  logger?: Logger | undefined;
}

type Gaps = { part: CardGap; problem: string }[];

const problemOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

export class LookupService {
  /** The forms' device suggestions (an index cached with a short TTL) and client suggestions (asked of the CRM as typed). */
  readonly typeahead: TypeaheadIndex;

  constructor(private readonly deps: LookupDeps) {
    this.typeahead = new TypeaheadIndex({ crm: deps.crm, nms: deps.nms, logger: deps.logger });
  }

  /** A client by id (`1001`, `#1001`) or by name (active and archived clients); throws InputError on bad input. */
  async client(text: string): Promise<ClientLookup> {
    const key = orRefuse('client', readClientKey(text, 'Client'));
    const found = await this.findClients(key);
    const query = text.trim();
    if (found.length === 1) return { kind: 'card', card: await this.clientCard(found[0]!) };
    if (found.length > 1) return { kind: 'matches', query, matches: found.map(clientMatch) };
    return { kind: 'none', query, activate: 'name' in key ? nameAsActivation(key.name) : null };
  }

  /** Clients whose name (or custom id) contains the text, archived ones too; by id, that client or none. */
  async findClients(key: ClientKey): Promise<Client[]> {
    const { crm } = this.deps;
    if ('id' in key) {
      try {
        return [await crm.getClient(key.id)];
      } catch (error) {
        if (error instanceof UispNotFoundError) return [];
        throw error;
      }
    }
    const [active, archived] = await Promise.all([crm.listClients({ query: key.name }), crm.listClients({ query: key.name, isArchived: true })]);
    return [...active, ...archived.filter((a) => !active.some((c) => c.id === a.id))];
  }

  /**
   * The client's services, newest payment and own sites with the devices on them. NMS is asked for the
   * sites the client may own (../network.ts `clientSites`) and the devices on its own ones, not for the lists;
   * without its services (a CRM read that failed), whose a bound site is can only be told from every
   * site, as before.
   */
  async clientCard(client: Client): Promise<ClientCard> {
    const { crm } = this.deps;
    const network = this.deps.network.oneRead();
    const servicesRead = crm.listServices(client.id);
    const candidates = servicesRead.then((list) => network.clientSites(list), () => network.everySite());
    const ownRead = Promise.all([candidates, servicesRead.catch(() => [])]).then(([sites, list]) => ownSites(sites, client.id, list));
    const devicesRead = ownRead.then((own) => network.devicesOn(own.map((site) => site.id)));
    // Without its own sites the card cannot tell which outages are its (the NMS gap says so).
    const outagesRead = ownRead.then((own) => this.outagesAffecting({ siteIds: own.map((site) => site.id) }), () => ({ notes: [], gaps: [] }));
    const [services, lastPayment, own, devices, numbering, outages] = await Promise.allSettled([
      servicesRead,
      firstOf(crm.payments({ clientId: client.id, direction: 'DESC' }, 1)),
      ownRead,
      devicesRead,
      this.deps.numbering.resolve(),
      outagesRead,
    ]);
    const gaps: Gaps = [];
    const gap = (part: CardGap, result: PromiseRejectedResult) => gaps.push({ part, problem: problemOf(result.reason) });
    if (services.status === 'rejected') gap('services', services);
    if (lastPayment.status === 'rejected') gap('payments', lastPayment);
    if (own.status === 'rejected') gap('nms', own);
    else if (devices.status === 'rejected') gap('nms', devices);
    if (outages.status === 'fulfilled') gaps.push(...outages.value.gaps);

    const serviceList = services.status === 'fulfilled' ? services.value : [];
    const lines = await this.serviceLines(serviceList, numbering.status === 'fulfilled' ? numbering.value.numbering : null);
    const ownedSites = own.status === 'fulfilled' ? own.value : [];
    const deviceList = devices.status === 'fulfilled' ? devices.value : [];
    const { active, suspended } = SHARED_STATUSES;
    const hasLiveService = serviceList.some((s) => s.status === active || s.status === suspended);
    // From what the card read: two SubOps-made Active services or sites (a late duplicate); none when a part is missing.
    // Its own sites and the devices on them are all the rule looks at (which own site is in use decides the kept one).
    const readAll = services.status === 'fulfilled' && own.status === 'fulfilled' && devices.status === 'fulfilled';
    const duplicates = readAll ? duplicatesOf({ id: client.id, name: clientMatch(client).name }, clientActivation(client), serviceList, ownedSites, deviceList) : [];
    return {
      client: clientMatch(client),
      crmUrl: this.deps.crmClientUrl(client.id),
      account: { balance: client.accountBalance ?? null, outstanding: client.accountOutstanding ?? null, currency: client.currencyCode ?? null },
      services: lines,
      lastPayment: lastPayment.status === 'fulfilled' ? lastPayment.value : null,
      sites: ownedSites.map((site) => ({
        id: site.id,
        name: site.identification.name,
        linkedBy: linkedBy(site, serviceList),
        devices: deviceList.filter((d) => d.identification.site?.id === site.id).map((d) => deviceLine(d, 'authorized')),
      })),
      outages: outages.status === 'fulfilled' ? outages.value.notes : [],
      gaps,
      duplicates,
      // Archived clients are restored in the CRM first; a client with a live service needs no activation.
      activate: client.isArchived || hasLiveService || services.status === 'rejected' ? null : { ...activationName(client), clientId: client.id },
    };
  }

  /**
   * A device by IP, MAC or exact name, in the authorized and discovered lists; else names that contain the
   * text. An IP or MAC is asked of NMS (../network.ts `findDevice`); a name is looked for in both whole
   * lists (NMS has no name filter). The discovered list is read whole: NMS filters none of it.
   */
  async device(text: string): Promise<DeviceLookup> {
    const typed = orRefuse('device', readLine()(text, 'Device'));
    const network = this.deps.network.oneRead();
    const query = parseDeviceQuery(typed);
    const [finding, discovered] = await Promise.all([this.authorizedMatching(query, network), this.deps.nms.listDiscoveredDevices()]);
    const { authorized } = finding;
    let found = findDevices(query, authorized, discovered).map((ref) => ref.id);
    if (!found.length && query.kind === 'name') found = devicesNamedLike(query.name, authorized, discovered);
    const lines = found.map((id) => lineOf(id, authorized, discovered));
    if (lines.length === 1) return { kind: 'card', card: await this.deviceCard(lines[0]!, finding, network) };
    if (lines.length > 1) return { kind: 'matches', query: typed, matches: lines };
    return { kind: 'none', query: typed };
  }

  /**
   * Activated sites whose manual CRM–NMS link is still missing (SubOps' marker, no CRM binding), oldest
   * site id first: asked among the endpoint sites not bound to the CRM, never the whole site list.
   */
  async missingLinks(): Promise<MissingLink[]> {
    const sites = (await this.deps.network.sitesNotBound()).filter((site) => awaitsLink(site));
    return sites.map((site) => {
      const clientId = markedClientId(site)!;
      return { siteId: site.id, siteName: site.identification.name, clientId, crmUrl: this.deps.crmClientUrl(clientId) };
    });
  }

  /**
   * The authorized devices that may match, with the sites read with them: by IP or MAC, what NMS names
   * for it; by name, the whole list, the card's site then read by its id (a failed site read stays a gap).
   */
  private authorizedMatching(query: DeviceQuery, network: NetworkReads): Promise<DeviceFinding> {
    if (query.kind === 'name') return this.deps.nms.listDevices().then((authorized) => ({ authorized, sites: [] }));
    return network.findDevice(query);
  }

  /** The device's site (read with it, else by its id) and the client that site belongs to. */
  private async deviceCard(device: DeviceLine, finding: DeviceFinding, network: NetworkReads): Promise<DeviceCard> {
    const gaps: Gaps = [];
    const reference = finding.authorized.find((d) => d.identification.id === device.id)?.identification.site ?? null;
    let site: Site | undefined;
    if (device.siteId) {
      const siteId = device.siteId;
      try {
        site = finding.sites.find((s) => s.id === siteId) ?? (await network.sitesById([siteId]))[0];
      } catch (error) {
        gaps.push({ part: 'nms', problem: problemOf(error) });
      }
    }
    const ownerId = site ? siteOwnerId(site) : null;
    const [client, outages] = await Promise.all([
      ownerId === null ? null : this.siteOwner(ownerId, gaps),
      this.outagesAffecting({ siteIds: device.siteId ? [device.siteId] : [], deviceId: device.id }),
    ]);
    gaps.push(...outages.gaps);
    return {
      device,
      site: device.siteId ? { id: device.siteId, name: site?.identification.name ?? reference?.name ?? device.siteId, type: site?.identification.type ?? reference?.type ?? null } : null,
      client,
      outages: outages.notes,
      activate: device.authorized ? null : { device: deviceKey(device) },
      gaps,
    };
  }

  /** The card's outages; UISP failing to answer is a gap, not a failed card. */
  private async outagesAffecting(target: OutageTarget): Promise<{ notes: OutageNote[]; gaps: Gaps }> {
    try {
      return { notes: (await this.deps.outages.affecting(target)) ?? [], gaps: [] };
    } catch (error) {
      return { notes: [], gaps: [{ part: 'outages', problem: problemOf(error) }] };
    }
  }

  private async siteOwner(clientId: number, gaps: Gaps): Promise<SiteOwnerLine> {
    try {
      const client = await this.deps.crm.getClient(clientId);
      return { id: clientId, name: clientMatch(client).name, archived: client.isArchived === true };
    } catch (error) {
      // A site naming a client the CRM no longer has is worth showing as it is.
      if (!(error instanceof UispNotFoundError)) gaps.push({ part: 'services', problem: problemOf(error) });
      return { id: clientId, name: null, archived: false };
    }
  }

  private async serviceLines(services: Service[], numbering: ServiceNumbering | null): Promise<ServiceLine[]> {
    const { crm } = this.deps;
    const statuses = SHARED_STATUSES;
    // Reasons are read only when a suspended service names one; a failed read leaves the reason unnamed.
    const needReasons = services.some((s) => s.status === statuses.suspended && s.suspensionReasonId != null);
    const reasons = needReasons ? await crm.listSuspensionReasons().catch(() => []) : [];
    return services.map((service) => ({
      id: service.id,
      name: service.name,
      plan: service.servicePlanName ?? null,
      status: service.status,
      statusLabel: statusLabel(service.status, numbering),
      suspensionReason: service.status === statuses.suspended ? (reasons.find((r) => r.id === service.suspensionReasonId)?.name ?? null) : null,
      price: service.price ?? null,
      currency: service.currencyCode,
      periodMonths: service.servicePlanPeriod ?? null,
      action: applicableAction(service.status, statuses) ?? null,
    }));
  }
}

function orRefuse<T>(field: string, read: { ok: true; value: T } | { ok: false; problem: string }): T {
  if (!read.ok) throw new InputError(field, read.problem);
  return read.value;
}

/** The first item, without reading further pages. */
async function firstOf<T>(items: AsyncGenerator<T>): Promise<T | null> {
  for await (const item of items) return item;
  return null;
}

/** A typed name that was not found, as the activation form's first and last name. */
function nameAsActivation(name: string): ActivationPrefill | null {
  const [firstName, ...rest] = name.split(/\s+/).filter(Boolean);
  const lastName = rest.join(' ');
  if (!readPersonName(firstName, 'First name').ok || (lastName && !readPersonName(lastName, 'Last name').ok)) return null;
  return { firstName: firstName!, ...(lastName && { lastName }) };
}

function devicesNamedLike(name: string, authorized: Device[], discovered: Device[]): string[] {
  const ids = new Set<string>();
  for (const device of [...authorized, ...discovered]) {
    const id = device.identification;
    if ([id.name, id.hostname, id.displayName].some((n) => n?.toLowerCase().includes(name))) ids.add(id.id);
  }
  return [...ids];
}

function lineOf(id: string, authorized: Device[], discovered: Device[]): DeviceLine {
  const inAuthorized = authorized.find((d) => d.identification.id === id);
  return inAuthorized ? deviceLine(inAuthorized, 'authorized') : deviceLine(discovered.find((d) => d.identification.id === id)!, 'discovered');
}
