/**
 * The official list filters (NMS Swagger, CRM Blueprint) in both worlds: the stock world honours every
 * one, the interface world the CRM's only (its NMS lists everything and has no by-MAC, search or
 * client-sites paths), as src/simulator/world.ts says. The indexes behind them follow records a test
 * changes by hand.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { crm, ids, nms } from './helpers.js';

const NOC = '3f6b2c1e-8d4a-4e7b-9c2d-5a1e0f7b3c01';
const DIAMOND = '7c1d9e2a-4b3f-4a6c-8e5d-2f9b0c1a7d12';
const BAPTISTE = '1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c56';
const PERSAUD = '2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d67';
const BARTICA = '3c4d5e6f-7a8b-4c9d-8e1f-2a3b4c5d6e78';
const HOPE = '4d5e6f7a-8b9c-4dae-9f10-3b4c5d6e7f89';

let sim: RunningSimulator;
afterEach(async () => sim.close());

const siteIds = (list: { id: string }[]) => list.map((site) => site.id);
const device = (name: string) => sim.data.devices.find((d) => d.identification.name === name)!;
const allSiteIds = () => sim.data.sites.map((site) => site.id);
const authorizedNames = () => sim.data.devices.filter((d) => d.identification.authorized).map((d) => d.identification.name);

describe('the stock world honours every official filter', () => {
  beforeEach(async () => {
    sim = await startSimulator({ world: 'stock' });
  });

  it('GET /devices/mac/{mac}: the device (Model40: id, type, series) in either MAC form, a discovered one too; 404 unknown, 400 not a MAC', async () => {
    const cpe = device('cpe-baptiste');
    expect((await nms(sim, 'GET', '/devices/mac/b4:fb:e4:1a:2b:21')).body).toEqual({ id: cpe.identification.id, type: 'airMax', series: '' });
    expect((await nms(sim, 'GET', '/devices/mac/B4FBE41A2B21')).body.id).toBe(cpe.identification.id);
    expect((await nms(sim, 'GET', '/devices/mac/78:8A:20:4C:1E:51')).body.id).toBe(device('LBE-Ramnarine').identification.id);
    expect((await nms(sim, 'GET', '/devices/mac/00:00:00:00:00:01')).status).toBe(404);
    expect((await nms(sim, 'GET', '/devices/mac/not-a-mac')).status).toBe(400);
  });

  it('GET /sites?ip= and ?deviceId=: the site holding that device (the prefix ignored); none for a discovered or unknown one', async () => {
    expect(siteIds((await nms(sim, 'GET', '/sites?ip=10.20.1.21')).body)).toEqual([BAPTISTE]);
    expect(siteIds((await nms(sim, 'GET', '/sites?ip=10.20.2.44%2F24')).body)).toEqual([PERSAUD]);
    expect(siteIds((await nms(sim, 'GET', '/sites?ip=10.20.1.88')).body)).toEqual([]);
    expect(siteIds((await nms(sim, 'GET', `/sites?deviceId=${device('cpe-bartica-marine').identification.id}`)).body)).toEqual([BARTICA]);
    expect(siteIds((await nms(sim, 'GET', `/sites?deviceId=${device('LBE-Ramnarine').identification.id}`)).body)).toEqual([]);
  });

  it('GET /sites?id=&id= with ucrmDetails: those sites with their binding', async () => {
    const { body } = await nms(sim, 'GET', `/sites?id=${BAPTISTE}&id=${BARTICA}&id=00000000-0000-4000-8000-000000000000&ucrmDetails=true`);
    expect(siteIds(body)).toEqual([BAPTISTE, BARTICA]);
    expect(body[0].ucrm).toMatchObject({ client: { id: '1001' }, service: { id: '101' } });
  });

  it('GET /sites?type=endpoint&ucrm=false: the endpoints bound to no CRM service or client', async () => {
    sim.data.sites.find((site) => site.id === HOPE)!.ucrm = null;
    expect(siteIds((await nms(sim, 'GET', '/sites?type=endpoint&ucrm=false')).body)).toEqual([HOPE]);
    expect(siteIds((await nms(sim, 'GET', '/sites?type=endpoint&ucrm=true')).body)).toEqual([BAPTISTE, PERSAUD, BARTICA]);
    expect((await nms(sim, 'GET', '/sites?type=tower')).status).toBe(400);
  });

  it('GET /devices?siteId=: the authorized devices on that site', async () => {
    expect((await nms(sim, 'GET', `/devices?siteId=${DIAMOND}`)).body.map((d: { identification: { name: string } }) => d.identification.name)).toEqual(['diamond-ap1', 'LBE-Stock-Diamond']);
  });

  it('GET /sites/search?query=&count=&page=: by name, address, a device MAC or IP on the site, one page at a time', async () => {
    const search = async (query: string, count = 10, page = 1) => siteIds((await nms(sim, 'GET', `/sites/search?query=${encodeURIComponent(query)}&count=${count}&page=${page}`)).body);
    expect(await search('baptiste')).toEqual([BAPTISTE]);
    expect(await search('B4:FB:E4:1A:2B:21')).toEqual([BAPTISTE]);
    expect(await search('10.20.3.30')).toEqual([BARTICA]);
    expect(await search('tower', 2, 2)).toHaveLength(2);
    expect(await search('tower', 4, 2)).toEqual([]);
    expect((await nms(sim, 'GET', '/sites/search?query=tower')).status).toBe(400);
  });

  it('GET /sites/{id}/clients: the endpoint site ids under it, its whole subtree with recursive=true', async () => {
    expect((await nms(sim, 'GET', `/sites/${DIAMOND}/clients`)).body).toEqual([BAPTISTE, HOPE]);
    expect((await nms(sim, 'GET', `/sites/${NOC}/clients`)).body).toEqual([]);
    expect([...(await nms(sim, 'GET', `/sites/${NOC}/clients?recursive=true`)).body].sort()).toEqual([BAPTISTE, PERSAUD, BARTICA, HOPE].sort());
    expect((await nms(sim, 'GET', '/sites/00000000-0000-4000-8000-000000000000/clients')).status).toBe(404);
  });

  it('follows records a test changes by hand: a device moved, a MAC changed, a service bound or pushed', async () => {
    const cpe = device('cpe-hope');
    await nms(sim, 'GET', `/devices?siteId=${PERSAUD}`);
    cpe.identification.site = { id: PERSAUD };
    cpe.identification.mac = '00:11:22:33:44:55';
    expect((await nms(sim, 'GET', `/devices?siteId=${PERSAUD}`)).body.map((d: { identification: { name: string } }) => d.identification.name)).toEqual(['cpe-persaud', 'cpe-hope']);
    expect(siteIds((await nms(sim, 'GET', `/sites?deviceId=${cpe.identification.id}`)).body)).toEqual([PERSAUD]);
    expect((await nms(sim, 'GET', '/devices/mac/00:11:22:33:44:55')).body.id).toBe(cpe.identification.id);

    sim.data.sites.find((site) => site.id === HOPE)!.ucrm = null;
    expect(siteIds((await nms(sim, 'GET', '/sites?type=endpoint&ucrm=false')).body)).toEqual([HOPE]);
    sim.data.services.find((service) => service.id === 103)!.unmsClientSiteId = HOPE;
    const [hope] = (await nms(sim, 'GET', `/sites?id=${HOPE}&ucrmDetails=true`)).body;
    expect(hope.ucrm).toMatchObject({ client: { id: '1003' }, service: { id: '103' } });
    expect(siteIds((await nms(sim, 'GET', '/sites?type=endpoint&ucrm=false')).body)).toEqual([]);
    sim.data.services.push({ ...structuredClone(sim.data.services.find((service) => service.id === 103)!), id: 150, clientId: 1004 });
    expect(ids((await crm(sim, 'GET', '/clients/services?clientId=1004')).body)).toEqual([150]);
  });

  it('a test can make it ignore a filter, as a UISP without it would', async () => {
    sim.honourFilters([]);
    expect(siteIds((await nms(sim, 'GET', '/sites?ip=10.20.1.21')).body)).toEqual(allSiteIds());
    expect((await nms(sim, 'GET', '/devices/mac/b4:fb:e4:1a:2b:21')).status).toBe(404);
    expect((await crm(sim, 'GET', '/clients?query=kevin')).body.length).toBeGreaterThan(2);
  });
});

describe('the interface world honours the CRM filters only', () => {
  beforeEach(async () => {
    sim = await startSimulator({ world: 'interface' });
  });

  it('ignores the NMS list filters: every site, every authorized device', async () => {
    for (const query of ['ip=10.20.1.21', `deviceId=${device('cpe-baptiste').identification.id}`, `id=${BAPTISTE}&ucrmDetails=true`, 'type=endpoint&ucrm=false']) {
      expect(siteIds((await nms(sim, 'GET', `/sites?${query}`)).body)).toEqual(allSiteIds());
    }
    expect((await nms(sim, 'GET', `/devices?siteId=${DIAMOND}`)).body.map((d: { identification: { name: string } }) => d.identification.name)).toEqual(authorizedNames());
  });

  it('answers 404 for the by-MAC, search and client-sites paths', async () => {
    expect((await nms(sim, 'GET', '/devices/mac/b4:fb:e4:1a:2b:21')).status).toBe(404);
    expect((await nms(sim, 'GET', '/sites/search?query=baptiste&count=10&page=1')).status).toBe(404);
    expect((await nms(sim, 'GET', `/sites/${DIAMOND}/clients`)).status).toBe(404);
  });
});

describe.each(['interface', 'stock'] as const)('the CRM filters in the %s world', (world) => {
  beforeEach(async () => {
    sim = await startSimulator({ world });
  });

  it('GET /clients?query= and limit/offset; GET /clients/services?clientId=', async () => {
    expect(ids((await crm(sim, 'GET', '/clients?query=kevin')).body)).toEqual([1008, 1009]);
    expect(ids((await crm(sim, 'GET', '/clients?limit=2&offset=1')).body)).toEqual([1002, 1003]);
    expect(ids((await crm(sim, 'GET', '/clients/services?clientId=1001')).body)).toEqual([101]);
    expect(ids((await crm(sim, 'GET', '/clients/services?clientId=1004')).body)).toEqual([]);
  });
});
