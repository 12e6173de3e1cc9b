/**
 * The NMS questions the services ask, each costing what it asks rather than what the network is big
 * (issue #38): a site by id, the devices on a site, the sites awaiting their CRM link, the towers, the
 * device an agent typed. Each asks with the NMS Swagger's filters and checks the answer against what it
 * asked; where the NMS does not honour a filter (./uisp/nms-filters.ts) it is answered from the whole
 * list, as before, and never wrongly.
 *
 * What a narrowed answer must cover for the rules that read it (docs/design.md, "What each operation
 * asks UISP"): an authorized device is always on a site (NMS authorizes onto a site), so the sites
 * holding a device of an IP, and the devices on them, include every authorized device of that IP; a
 * site is bound to the CRM through a service (`unmsClientSiteId`), so a client's bound sites are those
 * its services name, and every other site it may own (SubOps' note line) is among the endpoint sites
 * not bound to the CRM.
 */
import { findDevices, normalizeMac } from './activation/device-match.js';
import type { DeviceQuery } from './activation/types.js';
import { NmsFilters } from './uisp/nms-filters.js';
import { UispNotFoundError } from './uisp/errors.js';
import type { NmsClient } from './uisp/nms-client.js';
import type { Device, Service, Site } from './uisp/schemas.js';
import { isBound } from './sites.js';

/** An address no device has (TEST-NET-1, RFC 5737, documentation only): asked once, to learn whether `?ip=` is honoured. */
const UNUSED_ADDRESS = '192.0.2.1';
/** Ids per `GET /sites?id=…` (a URL stays well under any server's limit). */
const IDS_PER_REQUEST = 40;
/**
 * More customer sites below one site than this many requests of ids would name: the endpoint sites are
 * read in one request instead (`GET /sites?type=endpoint`), so a site of any size costs a bounded number.
 */
const MOST_ID_REQUESTS = 5;

/** The authorized devices a device question needs, and the sites they are on, as read with them. */
export interface DeviceFinding {
  /** Every authorized device matching the query (and possibly others). */
  authorized: Device[];
  /** The sites of those devices (with their CRM binding); possibly others. */
  sites: Site[];
}

const isEndpoint = (site: Site) => site.identification.type === 'endpoint';
const isTower = (site: Site) => site.identification.type === 'site';
const unbound = (site: Site) => !isBound(site);

export class NetworkReads {
  private wholeSites: Promise<Site[]> | undefined;
  private wholeDevices: Promise<Device[]> | undefined;

  constructor(
    readonly nms: NmsClient,
    private readonly filters: NmsFilters = new NmsFilters(),
    /** Whether a whole list, once read, answers the other questions of this object (`oneRead`). */
    private readonly keepsWholeLists = false,
  ) {}

  /**
   * The same questions for one decision's reads: a whole list read for one of them (a filter the NMS
   * does not honour) answers the others too, rather than being read again.
   */
  oneRead(): NetworkReads {
    return new NetworkReads(this.nms, this.filters, true);
  }

  /** Those sites, with their CRM binding; ids NMS does not know are left out. */
  async sitesById(ids: Iterable<string>): Promise<Site[]> {
    const wanted = [...new Set(ids)];
    if (wanted.length === 0) return [];
    const asked = new Set(wanted);
    if (!this.filters.honours('sites.id')) return (await this.allSites()).filter((s) => asked.has(s.id));
    const chunks = Array.from({ length: Math.ceil(wanted.length / IDS_PER_REQUEST) }, (_, i) => wanted.slice(i * IDS_PER_REQUEST, (i + 1) * IDS_PER_REQUEST));
    const answers = await Promise.all(chunks.map((id) => this.nms.listSites({ id })));
    const found = answers.flat();
    if (found.some((s) => !asked.has(s.id))) this.filters.lacks('sites.id', 'it answered sites that were not asked for');
    return uniqueSites(found.filter((s) => asked.has(s.id)));
  }

  /** The authorized devices on those sites. */
  async devicesOn(siteIds: Iterable<string>): Promise<Device[]> {
    const wanted = [...new Set(siteIds)];
    if (wanted.length === 0) return [];
    const on = (ids: Set<string>) => (d: Device) => ids.has(d.identification.site?.id ?? '');
    if (!this.filters.honours('devices.siteId')) return (await this.allDevices()).filter(on(new Set(wanted)));
    const answers = await Promise.all(wanted.map(async (siteId) => ({ siteId, devices: await this.nms.listDevices({ siteId }) })));
    if (answers.some(({ siteId, devices }) => devices.some((d) => d.identification.site?.id !== siteId))) this.filters.lacks('devices.siteId', 'it answered devices on other sites');
    return answers.flatMap(({ siteId, devices }) => devices.filter(on(new Set([siteId]))));
  }

  /** Every endpoint site not bound to the CRM (and possibly others): the ones that may await their link. */
  sitesNotBound(): Promise<Site[]> {
    return this.sitesOfKind({ type: 'endpoint', ucrm: false }, (s) => isEndpoint(s) && unbound(s));
  }

  /** Every infrastructure site (type `site`: towers, POPs), and possibly others. */
  towers(): Promise<Site[]> {
    return this.sitesOfKind({ type: 'site' }, isTower);
  }

  /**
   * The authorized devices matching a typed device, with their sites: by IP, the sites holding a device
   * of that IP and the devices on them; by MAC, the device NMS names for it; by name (NMS has no filter
   * for it), both whole lists. The discovered list is the caller's: it is read whole for every question.
   */
  async findDevice(query: DeviceQuery): Promise<DeviceFinding> {
    if (query.kind === 'ip' && this.filters.honours('sites.ip')) {
      const found = await this.byAddress(query);
      if (found) return found;
    }
    if (query.kind === 'mac' && this.filters.honours('devices.mac')) {
      const found = await this.byMac(query);
      if (found) return found;
    }
    return this.bothWholeLists();
  }

  /**
   * A client's own sites' candidates: those its services are bound to, and every site it may own by
   * SubOps' note line (../sites.ts `ownSites` decides which are its own). A site bound to the client
   * alone (`ucrm.client` without a service: linked by hand, or its service deleted) no CRM record names,
   * so for a client none of whose services names a site, every site.
   */
  async clientSites(services: readonly Service[]): Promise<Site[]> {
    const bound = services.flatMap((s) => (s.unmsClientSiteId ? [s.unmsClientSiteId] : []));
    if (bound.length === 0) return this.everySite();
    const [named, notBound] = await Promise.all([this.sitesById(bound), this.sitesNotBound()]);
    return uniqueSites([...named, ...notBound]);
  }

  /**
   * The customer (endpoint) sites anywhere below a site, with their CRM binding: `GET /sites/{id}/clients?
   * recursive=true` and those sites by id (at most MOST_ID_REQUESTS requests of ids, else every endpoint
   * site in one); an NMS without the path (404 for a site it lists) is answered by walking the
   * whole site list, and not asked again.
   */
  async customerSitesBelow(siteId: string): Promise<Site[]> {
    if (this.filters.honours('sites.clients')) {
      try {
        const ids = await this.nms.endpointSitesBelow(siteId);
        if (ids.length <= MOST_ID_REQUESTS * IDS_PER_REQUEST) return await this.sitesById(ids);
        const wanted = new Set(ids);
        return (await this.sitesOfKind({ type: 'endpoint' }, isEndpoint)).filter((s) => wanted.has(s.id));
      } catch (error) {
        if (!(error instanceof UispNotFoundError)) throw error;
      }
    }
    const sites = await this.allSites();
    if (this.filters.honours('sites.clients') && sites.some((s) => s.id === siteId)) this.filters.lacks('sites.clients', 'it answered 404 for a site it lists');
    return sitesBelow(sites, siteId).filter(isEndpoint);
  }

  /** GET /sites, every site (read once per `oneRead`). */
  everySite(): Promise<Site[]> {
    return this.allSites();
  }

  private async sitesOfKind(filter: { type: 'site' | 'endpoint'; ucrm?: boolean }, passes: (site: Site) => boolean): Promise<Site[]> {
    const ask = {
      ...(this.filters.honours('sites.type') && { type: filter.type }),
      ...(filter.ucrm !== undefined && this.filters.honours('sites.ucrm') && { ucrm: filter.ucrm }),
    };
    if (Object.keys(ask).length === 0) return (await this.allSites()).filter(passes);
    const answer = await this.nms.listSites(ask);
    const otherType = 'type' in ask && answer.some((s) => !(filter.type === 'endpoint' ? isEndpoint(s) : isTower(s)));
    const otherBinding = 'ucrm' in ask && answer.some((s) => unbound(s) === filter.ucrm);
    if (otherType) this.filters.lacks('sites.type', `it answered sites of another type than ${filter.type}`);
    if (otherBinding) this.filters.lacks('sites.ucrm', 'it answered sites bound otherwise than asked');
    // Every filter asked was ignored: the answer is GET /sites itself, the whole list, read once.
    if (this.keepsWholeLists && otherType === ('type' in ask) && otherBinding === ('ucrm' in ask)) this.wholeSites ??= Promise.resolve(answer);
    return answer.filter(passes);
  }

  /**
   * Undefined: the NMS did not narrow the question (then it is asked of the whole lists). Whether it
   * honours `?ip=` cannot be told from one answer (many unconfigured stations share a default address),
   * so the first question of a process also asks for an address no device has (TEST-NET-1, RFC 5737):
   * an NMS that honours the filter answers none, one that ignores it answers every site.
   */
  private async byAddress(query: Extract<DeviceQuery, { kind: 'ip' }>): Promise<DeviceFinding | undefined> {
    const [sites, probe] = await Promise.all([this.nms.listSites({ ip: query.ip }), this.filters.known('sites.ip') ? undefined : this.nms.listSites({ ip: UNUSED_ADDRESS })]);
    if (probe && probe.length > 0) {
      // The whole lists answer instead, devices and sites read together (`bothWholeLists`).
      this.filters.lacks('sites.ip', `it answered ${probe.length} sites for an address no device has`);
      return undefined;
    }
    if (probe) this.filters.honoured('sites.ip');
    const devices = await this.devicesOn(sites.map((s) => s.id));
    const holding = new Set(findDevices(query, devices, []).map((d) => d.siteId));
    // A site without the address: the device moved between the two reads. The whole lists answer instead.
    if (sites.some((s) => !holding.has(s.id))) return undefined;
    return { authorized: devices, sites };
  }

  private async byMac(query: Extract<DeviceQuery, { kind: 'mac' }>): Promise<DeviceFinding | undefined> {
    let id: string;
    try {
      id = await this.nms.deviceIdByMac(query.mac);
    } catch (error) {
      if (!(error instanceof UispNotFoundError)) throw error;
      // No such device, or no such path: the whole list tells, and an NMS that lacks the path is not asked again.
      const { authorized, sites } = await this.bothWholeLists();
      if (findDevices(query, authorized, []).length > 0) this.filters.lacks('devices.mac', 'it answered 404 for a device it lists');
      return { authorized, sites };
    }
    const device = await this.nms.getDevice(id).catch((error: unknown) => {
      if (error instanceof UispNotFoundError) return null;
      throw error;
    });
    if (device && normalizeMac(device.identification.mac ?? '') !== query.mac) {
      this.filters.lacks('devices.mac', 'it named a device with another MAC');
      return undefined;
    }
    const authorized = device && device.identification.authorized !== false && device.identification.site ? [device] : [];
    return { authorized, sites: await this.sitesById(authorized.map((d) => d.identification.site!.id)) };
  }

  /**
   * Both whole lists, read together: where a device is is judged from sites read with it, never from a
   * site list read before it (another run may have made the device's site since). The sites read become
   * this view's whole list.
   */
  private async bothWholeLists(): Promise<DeviceFinding> {
    const sites = this.nms.listSites();
    if (this.keepsWholeLists) this.wholeSites = sites;
    const [authorized, read] = await Promise.all([this.allDevices(), sites]);
    return { authorized, sites: read };
  }

  /** GET /sites, every site (once per `oneRead`). */
  private allSites(): Promise<Site[]> {
    if (!this.keepsWholeLists) return this.nms.listSites();
    return (this.wholeSites ??= this.nms.listSites());
  }

  /** GET /devices, every authorized device (once per `oneRead`). */
  private allDevices(): Promise<Device[]> {
    if (!this.keepsWholeLists) return this.nms.listDevices();
    return (this.wholeDevices ??= this.nms.listDevices());
  }
}

/** The sites anywhere below a site in a whole site list (parents first; a loop in the tree ends the walk). */
function sitesBelow(sites: readonly Site[], rootId: string): Site[] {
  const children = new Map<string, Site[]>();
  for (const site of sites) {
    const parent = site.identification.parent?.id;
    if (parent === undefined) continue;
    const siblings = children.get(parent);
    if (siblings) siblings.push(site);
    else children.set(parent, [site]);
  }
  const below: Site[] = [];
  const seen = new Set([rootId]);
  for (let pending = [rootId]; pending.length > 0; ) {
    const next = pending.flatMap((id) => children.get(id) ?? []).filter((s) => !seen.has(s.id));
    next.forEach((s) => seen.add(s.id));
    below.push(...next);
    pending = next.map((s) => s.id);
  }
  return below;
}

/** Each site once (the first read of it). */
export const uniqueSites = (sites: readonly Site[]): Site[] => [...new Map(sites.map((s) => [s.id, s])).values()];

/** Each device once (the first read of it). */
export const uniqueDevices = (devices: readonly Device[]): Device[] => [...new Map(devices.map((d) => [d.identification.id, d])).values()];
