/**
 * The outages in progress and whom they affect (issue #40): what `subops outages` lists, and what the
 * outage threads will post. UISP's NMS lists them (`GET /outages?inProgress=true&grouped=true`); the
 * interface document's NMS has no such path (404), and then outages are unavailable, said as such.
 *
 * Who an outage affects: for a device at an infrastructure site (a tower, a POP), every customer
 * (endpoint) site anywhere below that site; for a customer's own radio (a device on an endpoint site),
 * that customer. Each customer is read from its site's CRM binding (`ucrm`: the client and the service
 * with its status), so no CRM request per customer. One site's devices down together are one outage
 * (UISP's `grouped` items, and items of one site joined here too).
 *
 * Cost (requests to UISP): the outages' pages (one in practice); per infrastructure outage one
 * `GET /sites/{id}/clients?recursive=true` and its customer sites by id, 40 a request, at most five
 * requests, else one `GET /sites?type=endpoint`; the customers' own radios' sites by id,
 * 40 a request. An NMS without `/sites/{id}/clients` is answered from one `GET /sites` for the reading.
 *
 * Also read here: which of them affect a card's client or device (`affecting`: one request when nothing
 * is down), and a digest day's outages with their customer-minutes (`during`).
 */
import type { StatusNumbering } from './activation/numbering.js';
import type { NetworkReads } from './network.js';
import { siteOwnership } from './sites.js';
import { UispNotFoundError } from './uisp/errors.js';
import type { NmsClient } from './uisp/nms-client.js';
import type { Outage, Site } from './uisp/schemas.js';

export interface OutageDevice {
  id: string;
  name: string;
  /** The model's name (e.g. Rocket 5AC Prism), else its code. */
  model: string | null;
  /** NMS role: ap, router, station… */
  role: string | null;
  ip: string | null;
}

export interface AffectedCustomer {
  /** The CRM client the site is bound to (or SubOps' note names); null for a customer site bound to nobody. */
  clientId: number | null;
  /** The client's name as the binding gives it, else the site's name. */
  name: string;
  siteId: string;
  service: { id: number; name: string | null; status: number | null; statusLabel: string | null } | null;
}

export interface OutageInProgress {
  /** UISP's outage id (the earliest one of the site's, when several are one). */
  id: string;
  /** When it began (ISO 8601, as UISP gives it). */
  since: string;
  /** The device that went down (the earliest, when several of one site did). */
  device: OutageDevice | null;
  /** How many devices are down in it (UISP's `affectedDevices`, summed over the site's items). */
  devicesDown: number;
  site: { id: string; name: string | null; kind: 'infrastructure' | 'customer' } | null;
  /** Every customer it affects, in name order. */
  affected: AffectedCustomer[];
}

/** An outage before whom it affects is read. */
export type SiteOutage = Omit<OutageInProgress, 'affected'>;

export type OutagesReading = { available: true; outages: OutageInProgress[] } | { available: false; why: string };

/** An outage in progress as a card names it: "affected by an outage since 14:02 (diamond-ap1 at Diamond Tower)". */
export interface OutageNote {
  id: string;
  since: string;
  /** The device that went down (the earliest of its site's), by name. */
  device: string | null;
  site: string | null;
}

/** Who a card is about: a client's own sites, or a device and its site. */
export interface OutageTarget {
  siteIds: readonly string[];
  deviceId?: string;
}

/** A day's outages for the digest: how many, how long in all, and the customer-minutes lost, within the day. */
export interface OutagesOfDay {
  count: number;
  /** Σ each outage's time within the day. */
  downSeconds: number;
  /** Σ customers affected × minutes within the day. */
  customerMinutes: number;
}

const CUSTOMER_SITE_TYPES = new Set(['endpoint', 'client', 'subscriber']);

const numeric = (id: string | null | undefined): number | null => (id != null && /^\d+$/.test(id) ? Number(id) : null);

export class OutageService {
  constructor(
    private readonly deps: {
      nms: Pick<NmsClient, 'outagesInProgress' | 'outages'>;
      network: NetworkReads;
      numbering: Pick<StatusNumbering, 'resolve' | 'label'>;
    },
  ) {}

  /** The outages in progress, newest first, each with whom it affects. */
  async inProgress(): Promise<OutagesReading> {
    const { nms, numbering } = this.deps;
    let items: Outage[];
    try {
      // The numbering names the services' statuses; asked once per process, alongside.
      [items] = await Promise.all([nms.outagesInProgress(), numbering.resolve()]);
    } catch (error) {
      if (!(error instanceof UispNotFoundError)) throw error;
      return { available: false, why: "UISP's NMS does not serve GET /outages (404; the interface document's NMS lists no outages), so SubOps cannot tell which devices are down." };
    }
    return { available: true, outages: await this.withAffected(outagesBySite(items)) };
  }

  /** Each outage with whom it affects, as read from UISP now (the sites below it, their CRM bindings). */
  async withAffected(outages: readonly SiteOutage[]): Promise<OutageInProgress[]> {
    const network = this.deps.network.oneRead();
    const ownRadioSites = await network.sitesById(outages.flatMap((o) => (o.site?.kind === 'customer' ? [o.site.id] : [])));
    const affected = await Promise.all(
      outages.map(async (outage) => {
        if (!outage.site) return [];
        if (outage.site.kind === 'customer') return ownRadioSites.filter((s) => s.id === outage.site!.id);
        return network.customerSitesBelow(outage.site.id);
      }),
    );
    const customers = (sites: Site[]) => sites.map((site) => this.customerOf(site)).sort((a, b) => a.name.localeCompare(b.name) || a.siteId.localeCompare(b.siteId));
    return outages.map((outage, i) => ({ ...outage, affected: customers(affected[i]!) }));
  }

  /**
   * The outages in progress that affect a card's client or device (null: the NMS has no GET /outages, so
   * the card says nothing). One request when nothing is down, the common case; else, per infrastructure
   * outage not at the target's own sites, its customer sites (`customerSitesBelow`). Affected: the outage
   * is at one of the target's sites, is the target device's own, or is at an infrastructure site the
   * target's sites are below. UISP failing is thrown: the card shows without the line and says so.
   */
  async affecting(target: OutageTarget): Promise<OutageNote[] | null> {
    let items: Outage[];
    try {
      items = await this.deps.nms.outagesInProgress();
    } catch (error) {
      if (error instanceof UispNotFoundError) return null;
      throw error;
    }
    const own = new Set(target.siteIds);
    const network = this.deps.network.oneRead();
    const outages = outagesBySite(items);
    const affects = await Promise.all(
      outages.map(async (outage) => {
        const ownDevice = target.deviceId !== undefined && outage.device?.id === target.deviceId;
        if (ownDevice || (outage.site && own.has(outage.site.id))) return true;
        if (outage.site?.kind !== 'infrastructure' || own.size === 0) return false;
        return (await network.customerSitesBelow(outage.site.id)).some((site) => own.has(site.id));
      }),
    );
    return outages
      .filter((_, i) => affects[i])
      .map((outage) => ({ id: outage.id, since: outage.since, device: outage.device?.name ?? null, site: outage.site?.name ?? outage.site?.id ?? null }));
  }

  /**
   * The outages of a window (a digest's day), clipped to it, with the customers each affected (as
   * `inProgress` counts them); null when the NMS has no GET /outages. One read of the window's outages,
   * then per infrastructure site that had one its customer sites once.
   */
  async during(window: { start: Date; end: Date }, now: Date): Promise<OutagesOfDay | null> {
    const start = window.start.getTime();
    const end = window.end.getTime();
    let items: Outage[];
    try {
      items = await this.deps.nms.outages({ start, period: end - start });
    } catch (error) {
      if (error instanceof UispNotFoundError) return null;
      throw error;
    }
    const network = this.deps.network.oneRead();
    const customersAt = new Map<string, Promise<number>>();
    const customersOf = (item: Outage): Promise<number> => {
      const site = item.site ?? item.device?.site ?? null;
      if (!site) return Promise.resolve(0);
      if (CUSTOMER_SITE_TYPES.has(site.type ?? '')) return Promise.resolve(1);
      let count = customersAt.get(site.id);
      if (!count) customersAt.set(site.id, (count = network.customerSitesBelow(site.id).then((sites) => sites.length)));
      return count;
    };
    const lasted = items.map((item) => {
      const ended = item.inProgress || !item.endTimestamp ? now.getTime() : Date.parse(item.endTimestamp);
      return Math.max(0, Math.min(end, ended) - Math.max(start, Date.parse(item.startTimestamp)));
    });
    const customers = await Promise.all(items.map(customersOf));
    return {
      count: items.length,
      downSeconds: Math.round(lasted.reduce((sum, ms) => sum + ms, 0) / 1000),
      customerMinutes: Math.round(lasted.reduce((sum, ms, i) => sum + (customers[i]! * ms) / 60_000, 0)),
    };
  }

  private customerOf(site: Site): AffectedCustomer {
    const owner = siteOwnership(site);
    const service = site.ucrm?.service;
    const serviceId = numeric(service?.id) ?? (owner?.by === 'binding' ? owner.serviceId : null);
    const status = service?.status ?? null;
    return {
      clientId: owner?.clientId ?? null,
      name: site.ucrm?.client?.name || site.identification.name,
      siteId: site.id,
      service: serviceId === null ? null : { id: serviceId, name: service?.name ?? null, status, statusLabel: status === null ? null : this.deps.numbering.label(status) },
    };
  }
}

/** UISP's items as outages, one per site (the earliest item's), newest first. */
export function outagesBySite(items: readonly Outage[]): SiteOutage[] {
  const joined = new Map<string, SiteOutage>();
  for (const item of [...items].sort((a, b) => Date.parse(a.startTimestamp) - Date.parse(b.startTimestamp))) {
    const site = item.site ?? item.device?.site ?? null;
    const key = site ? `site:${site.id}` : `outage:${item.id}`;
    const devices = Math.max(1, item.affectedDevices ?? 1);
    const earlier = joined.get(key);
    if (earlier) {
      earlier.devicesDown += devices;
      continue;
    }
    const device = item.device;
    joined.set(key, {
      id: item.id,
      since: item.startTimestamp,
      device: device ? { id: device.id, name: device.displayName || device.name || device.id, model: device.modelName || device.model || null, role: device.role || null, ip: device.ip || null } : null,
      devicesDown: devices,
      site: site ? { id: site.id, name: site.name, kind: CUSTOMER_SITE_TYPES.has(site.type ?? '') ? 'customer' : 'infrastructure' } : null,
    });
  }
  return [...joined.values()].sort((a, b) => Date.parse(b.since) - Date.parse(a.since));
}
