/** NMS devices, authorization and sites. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { nms } from './helpers.js';

interface DeviceBody {
  identification: { id: string; name: string; authorized: boolean; status: string; site: { id: string; name: string; type: string; parent: { id: string } | null } | null };
  ipAddress: string;
  overview: { status: string };
}

let sim: RunningSimulator;
beforeEach(async () => {
  sim = await startSimulator();
});
afterEach(() => sim.close());

const PRIMARY = '3f6b2c1e-8d4a-4e7b-9c2d-5a1e0f7b3c01';
const DIAMOND = '7c1d9e2a-4b3f-4a6c-8e5d-2f9b0c1a7d12';
const names = (devices: DeviceBody[]) => devices.map((d) => d.identification.name);
const deviceId = (name: string) => sim.data.devices.find((d) => d.identification.name === name)!.identification.id;
const authorized = async () => (await nms(sim, 'GET', '/devices')).body as DeviceBody[];
const discovered = async () => (await nms(sim, 'GET', '/devices/discovered')).body as DeviceBody[];

describe('devices', () => {
  it('GET /devices lists the authorized devices, each on a site', async () => {
    const devices = await authorized();
    expect(names(devices)).toEqual(['noc-er8', 'diamond-ap1', 'enmore-ap1', 'parika-ap1', 'cpe-baptiste', 'cpe-persaud', 'cpe-bartica-marine', 'cpe-hope', 'LBE-Stock-Diamond']);
    expect(devices.every((d) => d.identification.authorized && d.identification.site !== null)).toBe(true);
    // Every one is up but the radio still on the roof of archived client Leon Hope (sample-data doc table).
    expect(devices.filter((d) => d.identification.status !== 'active').map((d) => [d.identification.name, d.identification.status, d.overview.status])).toEqual([['cpe-hope', 'disconnected', 'disconnected']]);
    expect(devices.find((d) => d.identification.name === 'cpe-baptiste')!.identification.site).toMatchObject({
      name: 'Marcus Baptiste',
      type: 'endpoint',
      parent: { id: DIAMOND, name: 'Diamond Tower' },
    });
  });

  it('GET /devices/discovered lists the pending ones: not authorized, no site', async () => {
    const devices = await discovered();
    expect(names(devices)).toEqual(['LBE-Ramnarine', 'NS-Fraser', 'LiteBeam-Williams', 'PowerBeam 5AC']);
    expect(devices.every((d) => !d.identification.authorized && d.identification.site === null)).toBe(true);
  });

  it('GET /devices/{id} finds a device in either list; 404 otherwise', async () => {
    expect((await nms(sim, 'GET', `/devices/${deviceId('NS-Fraser')}`)).body.identification.name).toBe('NS-Fraser');
    expect((await nms(sim, 'GET', `/devices/${deviceId('noc-er8')}`)).body.ipAddress).toBe('10.20.0.1/24');
    expect(await nms(sim, 'GET', '/devices/00000000-0000-4000-8000-000000000000')).toMatchObject({ status: 404, body: { statusCode: 404, error: 'Not Found' } });
  });
});

describe('POST /devices/{id}/authorize', () => {
  it('moves a discovered device into the authorized list, on the site', async () => {
    const id = deviceId('PowerBeam 5AC');
    expect(await nms(sim, 'POST', `/devices/${id}/authorize`, { siteId: DIAMOND })).toEqual({ status: 200, body: { result: true, message: 'Device authorized.' } });
    expect(names(await discovered())).not.toContain('PowerBeam 5AC');
    const device = (await authorized()).find((d) => d.identification.id === id)!;
    expect(device.identification).toMatchObject({ authorized: true, status: 'active', site: { id: DIAMOND, name: 'Diamond Tower', type: 'site', parent: { id: PRIMARY } } });
    expect(device.overview.status).toBe('active');
  });

  it('re-homes an already authorized device onto the site', async () => {
    const id = deviceId('cpe-baptiste');
    expect((await nms(sim, 'POST', `/devices/${id}/authorize`, { siteId: DIAMOND })).status).toBe(200);
    expect((await nms(sim, 'GET', `/devices/${id}`)).body.identification.site.id).toBe(DIAMOND);
  });

  it('404s an unknown device; refuses an unknown or missing site (400, NMS error)', async () => {
    expect((await nms(sim, 'POST', '/devices/00000000-0000-4000-8000-000000000000/authorize', { siteId: DIAMOND })).status).toBe(404);
    const unknownSite = await nms(sim, 'POST', `/devices/${deviceId('NS-Fraser')}/authorize`, { siteId: 'no-such-site' });
    expect(unknownSite).toMatchObject({ status: 400, body: { statusCode: 400, error: 'Bad Request', message: expect.stringContaining('no-such-site') } });
    expect((await nms(sim, 'POST', `/devices/${deviceId('NS-Fraser')}/authorize`, {})).body).toMatchObject({ statusCode: 400, validation: { keys: ['siteId'] } });
    expect(names(await discovered())).toContain('NS-Fraser');
  });
});

describe('POST /devices/authorize (the current endpoint)', () => {
  it('authorizes every listed device onto the site', async () => {
    const ids = [deviceId('PowerBeam 5AC'), deviceId('NS-Fraser')];
    expect(await nms(sim, 'POST', '/devices/authorize', { siteId: DIAMOND, deviceIds: ids })).toEqual({ status: 200, body: { result: true, message: 'Devices authorized.' } });
    expect(names(await discovered())).toEqual(['LBE-Ramnarine', 'LiteBeam-Williams']);
    for (const id of ids) expect((await nms(sim, 'GET', `/devices/${id}`)).body.identification).toMatchObject({ authorized: true, site: { id: DIAMOND } });
  });

  it('authorizes none when one device is unknown (404), and needs siteId and deviceIds (400)', async () => {
    const answer = await nms(sim, 'POST', '/devices/authorize', { siteId: DIAMOND, deviceIds: [deviceId('NS-Fraser'), '00000000-0000-4000-8000-000000000000'] });
    expect(answer.status).toBe(404);
    expect(names(await discovered())).toContain('NS-Fraser');
    expect((await nms(sim, 'POST', '/devices/authorize', { siteId: DIAMOND })).body).toMatchObject({ statusCode: 400, validation: { keys: ['deviceIds'] } });
  });
});

describe('sites', () => {
  it('the sample has one primary site, towers under it, and endpoint sites linked to CRM clients', async () => {
    const sites = (await nms(sim, 'GET', '/sites')).body as { id: string; identification: { name: string; type: string; parent: { id: string } | null }; ucrm: { client: { id: string } } | null; description: { ucrmId: string | null } }[];
    expect(sites.filter((s) => s.identification.parent === null).map((s) => s.id)).toEqual([PRIMARY]);
    expect(sites.filter((s) => s.identification.parent?.id === PRIMARY).map((s) => s.identification.name)).toEqual(['Diamond Tower', 'Enmore Tower', 'Parika Tower', 'Linden Tower']);
    const baptiste = sites.find((s) => s.identification.name === 'Marcus Baptiste')!;
    expect(baptiste).toMatchObject({ identification: { type: 'endpoint', parent: { id: DIAMOND, name: 'Diamond Tower' } }, ucrm: { client: { id: '1001' } }, description: { ucrmId: '1001' } });
  });

  it('POST /sites creates a site under its parent and returns it; GET finds it', async () => {
    const answer = await nms(sim, 'POST', '/sites', { name: 'Priya Ramnarine', parentSiteId: DIAMOND, type: 'endpoint', note: 'subops:client:1002', contactName: 'Priya Ramnarine', contactPhone: '+592 611 2233' });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      identification: { name: 'Priya Ramnarine', type: 'endpoint', status: 'active', parent: { id: DIAMOND, name: 'Diamond Tower' } },
      description: { note: 'subops:client:1002', contact: { name: 'Priya Ramnarine', phone: '+592 611 2233', email: null }, ucrmId: null },
      ucrm: null,
    });
    expect(answer.body.identification.id).toBe(answer.body.id);
    expect((await nms(sim, 'GET', `/sites/${answer.body.id}`)).body.identification.name).toBe('Priya Ramnarine');
    expect((await nms(sim, 'GET', '/sites')).body).toHaveLength(sim.data.sites.length);
  });

  it('defaults the type to site and the parent to none', async () => {
    expect((await nms(sim, 'POST', '/sites', { name: 'Bartica Tower' })).body.identification).toMatchObject({ type: 'site', parent: null });
  });

  it.each([
    ['no name', {}, 'name'],
    ['a blank name', { name: '  ' }, 'name'],
    ['a name over 100 characters', { name: 'x'.repeat(101) }, 'name'],
    ['an unknown type', { name: 'A', type: 'tower' }, 'type'],
    ['an unknown parent', { name: 'A', parentSiteId: 'no-such-site' }, 'parentSiteId'],
  ])('refuses %s (400 naming %s)', async (_case, body, key) => {
    const before = sim.data.sites.length;
    expect(await nms(sim, 'POST', '/sites', body)).toMatchObject({ status: 400, body: { statusCode: 400, error: 'Bad Request', validation: { keys: [key] } } });
    expect(sim.data.sites).toHaveLength(before);
  });

  it('GET /sites/{id} 404s an unknown site', async () => {
    expect(await nms(sim, 'GET', '/sites/nope')).toMatchObject({ status: 404, body: { statusCode: 404 } });
  });
});
