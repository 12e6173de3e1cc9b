/**
 * NMS v2.1 client: devices (authorized and discovered), sites, and device authorization.
 * Endpoints the spec leaves out come from the UISP NMS API Swagger (origin in test/fixtures/SOURCES.md).
 */
import { z } from 'zod';
import { UispNotFoundError, UispRejectedError } from './errors.js';
import type { UispHttp } from './http.js';
import { DeviceSchema, NmsStatusSchema, OutagesPageSchema, SiteSchema, type Device, type Outage, type Site } from './schemas.js';

export interface NewSite {
  name: string;
  parentSiteId?: string;
  /** `endpoint` is a customer site in UISP's hierarchy. */
  type: 'site' | 'endpoint';
  note?: string;
  contactName?: string;
  contactEmail?: string;
  contactPhone?: string;
}

/** GET /sites filters (NMS Swagger); every one given must hold. */
export interface SiteFilter {
  /** Those sites. */
  id?: readonly string[];
  /** Sites holding a device with this IP address. */
  ip?: string;
  /** The site of this device. */
  deviceId?: string;
  type?: 'site' | 'endpoint';
  /** Bound to the CRM (true) or not (false). */
  ucrm?: boolean;
}

/** What GET /outages is asked (NMS Swagger parameters); `period` is at least 3,600 ms. */
export interface OutagesQuery {
  inProgress?: boolean;
  haveEnded?: boolean;
  siteId?: string;
  deviceId?: string;
  /** The window's start, ms since the epoch. */
  start?: number;
  /** The window's length in ms (the Swagger's minimum: 3,600). */
  period?: number;
}

/** Outages in progress per page: more than a network has at once, so one request in practice. */
const OUTAGES_PER_PAGE = 100;
const nmsId = z.union([z.string(), z.number()]).transform(String);

export class NmsClient {
  /** False once the NMS answered 404 to POST /devices/authorize: an older NMS, asked the old way from then on. */
  private bulkAuthorize = true;

  constructor(private readonly http: UispHttp) {}

  /**
   * GET /devices: every device UISP manages (the authorized list); with `siteId`, the NMS Swagger's filter,
   * those on that site. An NMS may ignore the filter: ../network.ts checks the answer.
   */
  listDevices(filter: { siteId?: string } = {}): Promise<Device[]> {
    return this.http.get('devices', z.array(DeviceSchema), filter);
  }

  /**
   * GET /devices/mac/{mac} (NMS Swagger): the id of the device with that MAC, in any state. `mac`: 12 hex
   * digits; asked as NMS lists MACs, `aa:bb:cc:dd:ee:ff` (a colon needs no escaping in a path).
   */
  async deviceIdByMac(mac: string): Promise<string> {
    if (!/^[0-9a-f]{12}$/i.test(mac)) throw new RangeError(`not a MAC address: ${mac}`);
    const colons = mac.toLowerCase().match(/../g)!.join(':');
    return (await this.http.get(`devices/mac/${colons}`, z.looseObject({ id: z.string().min(1) }))).id;
  }

  /** GET /devices/discovered: devices seen on the network but not yet authorized (pending). */
  listDiscoveredDevices(): Promise<Device[]> {
    return this.http.get('devices/discovered', z.array(DeviceSchema));
  }

  getDevice(id: string): Promise<Device> {
    return this.http.get(`devices/${encodeURIComponent(id)}`, DeviceSchema);
  }

  /**
   * GET /sites?ucrmDetails=true: every site with its CRM binding (`ucrm.client`, `ucrm.service`) where one
   * exists. Always with the details: without them stock UISP leaves `ucrm` out, and whose site it is cannot
   * be told (../sites.ts). `filter`: the NMS Swagger's filters, which an NMS may ignore (../network.ts
   * checks the answer).
   */
  listSites(filter: SiteFilter = {}): Promise<Site[]> {
    return this.http.get('sites', z.array(SiteSchema), { ...filter, ucrmDetails: true });
  }

  /**
   * GET /sites/{id}/clients?recursive=true (NMS Swagger): the ids of the endpoint (customer) sites
   * anywhere below the site. An NMS without the path answers 404 (../network.ts walks the site list).
   */
  endpointSitesBelow(siteId: string): Promise<string[]> {
    return this.http.get(`sites/${encodeURIComponent(siteId)}/clients`, z.array(nmsId), { recursive: true });
  }

  /**
   * GET /outages?inProgress=true&grouped=true (NMS Swagger), every page of `OUTAGES_PER_PAGE`: the outages
   * in progress, one site's devices down together as one. An NMS without the path answers 404.
   */
  outagesInProgress(): Promise<Outage[]> {
    return this.outages({ inProgress: true });
  }

  /**
   * GET /outages (NMS Swagger), grouped, every page of `OUTAGES_PER_PAGE`: the outages the query selects.
   * `start` and `period` (ms) are the window the outages overlap; `siteId`/`deviceId` narrow it to one
   * site or device. An NMS without the path answers 404.
   */
  async outages(query: OutagesQuery): Promise<Outage[]> {
    const outages: Outage[] = [];
    for (let page = 1; ; page++) {
      const answer = await this.http.get('outages', OutagesPageSchema, { ...query, grouped: true, count: OUTAGES_PER_PAGE, page });
      outages.push(...answer.items);
      if (page >= answer.pagination.pages || answer.items.length === 0) return outages;
    }
  }

  createSite(site: NewSite): Promise<Site> {
    return this.http.post('sites', site, SiteSchema);
  }

  /** DELETE /sites/{id}: NMS deletes only an empty site (used only for SubOps' own duplicates). */
  async deleteSite(id: string): Promise<void> {
    await this.http.delete(`sites/${encodeURIComponent(id)}`, z.unknown());
  }

  /**
   * Admits the device onto the network under that site: `POST /devices/authorize` with `{siteId,
   * deviceIds}`, the NMS's current endpoint. An NMS without it (404) is asked with the per-device
   * `POST /devices/{id}/authorize` and `{siteId}`, which the current Swagger marks deprecated.
   */
  async authorizeDevice(deviceId: string, siteId: string): Promise<void> {
    if (this.bulkAuthorize) {
      try {
        await authorize(this.http, 'devices/authorize', { siteId, deviceIds: [deviceId] });
        return;
      } catch (error) {
        if (!(error instanceof UispNotFoundError)) throw error;
        this.bulkAuthorize = false;
      }
    }
    await authorize(this.http, `devices/${encodeURIComponent(deviceId)}/authorize`, { siteId });
  }
}

async function authorize(http: UispHttp, path: string, body: object): Promise<void> {
  const status = await http.post(path, body, NmsStatusSchema.nullable());
  // NMS can answer 200 with {result: false}: that is a refusal, not a success.
  if (status?.result === false) {
    throw new UispRejectedError({ system: 'nms', method: 'POST', path: `/nms/api/v2.1/${path}` }, 200, status.message ?? 'device authorization refused');
  }
}
