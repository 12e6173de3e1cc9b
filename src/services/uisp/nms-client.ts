/**
 * NMS v2.1 client: devices (authorized and discovered), sites, and device authorization.
 * Endpoints the spec leaves out come from the UISP NMS API Swagger (origin in test/fixtures/SOURCES.md).
 */
import { z } from 'zod';
import { UispRejectedError } from './errors.js';
import type { UispHttp } from './http.js';
import { DeviceSchema, NmsStatusSchema, SiteSchema, type Device, type Site } from './schemas.js';

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

export class NmsClient {
  constructor(private readonly http: UispHttp) {}

  /** GET /devices: every device UISP manages (the authorized list). */
  listDevices(): Promise<Device[]> {
    return this.http.get('devices', z.array(DeviceSchema));
  }

  /** GET /devices/discovered: devices seen on the network but not yet authorized (pending). */
  listDiscoveredDevices(): Promise<Device[]> {
    return this.http.get('devices/discovered', z.array(DeviceSchema));
  }

  getDevice(id: string): Promise<Device> {
    return this.http.get(`devices/${encodeURIComponent(id)}`, DeviceSchema);
  }

  listSites(): Promise<Site[]> {
    return this.http.get('sites', z.array(SiteSchema));
  }

  createSite(site: NewSite): Promise<Site> {
    return this.http.post('sites', site, SiteSchema);
  }

  /** DELETE /sites/{id}: NMS deletes only an empty site (used only for SubOps' own duplicates). */
  async deleteSite(id: string): Promise<void> {
    await this.http.delete(`sites/${encodeURIComponent(id)}`, z.unknown());
  }

  /** POST /devices/{id}/authorize with {siteId}: admits the device onto the network under that site. */
  async authorizeDevice(deviceId: string, siteId: string): Promise<void> {
    const path = `devices/${encodeURIComponent(deviceId)}/authorize`;
    const status = await this.http.post(path, { siteId }, NmsStatusSchema.nullable());
    // NMS can answer 200 with {result: false}: that is a refusal, not a success.
    if (status?.result === false) {
      throw new UispRejectedError({ system: 'nms', method: 'POST', path: `/nms/api/v2.1/${path}` }, 200, status.message ?? 'device authorization refused');
    }
  }
}
