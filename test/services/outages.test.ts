/**
 * The outages in progress and whom each affects (issue #40): a tower's AP down affects exactly the
 * customers below that tower, a customer's own radio that customer, one site's devices down together
 * are one outage, and a UISP without GET /outages (the interface document's NMS) says outages are
 * unavailable. In both worlds: the stock NMS answers GET /sites/{id}/clients, the interface world's does
 * not (404), and SubOps walks the site list instead.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { buildData, generateDataSet } from '../../src/simulator/index.js';
import { WORLD_FILTERS, worldFromEnv, type SimulatorFilter } from '../../src/simulator/world.js';
import { startUisp, type UispFixture } from '../support/uisp.js';

const NMS = '/nms/api/v2.1';
const DIAMOND_AP = '1c0f5e8b-2a3d-4b4c-9e6f-7d8a9b0c1d02';
const DIAMOND_STATION = 'd2e3f4a5-b6c7-4d8e-9fa0-1b2c3d4e5f13';
const ENMORE_AP = '2d1a6f9c-3b4e-4c5d-8f7a-8e9b0c1d2e03';
const CPE_PERSAUD = '5a4d9c2f-6e7b-4f8a-9c0d-1b2e3f4a5b06';
const DIAMOND = '7c1d9e2a-4b3f-4a6c-8e5d-2f9b0c1a7d12';

const world = worldFromEnv();
/** The world's NMS with GET /outages (the stock world has it; the interface world is given it here). */
const withOutages: readonly SimulatorFilter[] = [...new Set([...WORLD_FILTERS[world], 'outages' as const])];

const fixtures: UispFixture[] = [];
afterEach(async () => {
  for (const fixture of fixtures.splice(0)) await fixture.close();
});

async function start(filters: readonly SimulatorFilter[] = withOutages, data?: ReturnType<typeof buildData>): Promise<UispFixture> {
  const fixture = await startUisp({ simulator: { world, filters, ...(data && { data }) } });
  fixtures.push(fixture);
  return fixture;
}

const at = (time: string) => new Date(`2026-11-28T${time}:00Z`);
const names = (affected: { name: string }[]) => affected.map((c) => c.name).sort();

describe(`outages in progress (${world} world)`, () => {
  it('a tower AP down affects exactly the customers below that tower, each with the service and its status', async () => {
    const { sim, services } = await start();
    sim.takeDown(DIAMOND_AP, at('14:02'));
    const reading = await services.outages.inProgress();
    expect(reading.available).toBe(true);
    if (!reading.available) return;
    expect(reading.outages).toHaveLength(1);
    const [outage] = reading.outages;
    expect(outage).toMatchObject({
      since: '2026-11-28T14:02:00.000Z',
      device: { id: DIAMOND_AP, name: 'diamond-ap1', model: 'Rocket 5AC Prism', role: 'ap', ip: '10.20.1.2/24' },
      devicesDown: 1,
      site: { id: DIAMOND, name: 'Diamond Tower', kind: 'infrastructure' },
    });
    expect(outage!.affected.sort((a, b) => a.name.localeCompare(b.name))).toEqual([
      { clientId: 1007, name: 'Leon Hope', siteId: '4d5e6f7a-8b9c-4dae-9f10-3b4c5d6e7f89', service: null },
      { clientId: 1001, name: 'Marcus Baptiste', siteId: '1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c56', service: { id: 101, name: 'Standard Monthly', status: 1, statusLabel: 'Active' } },
    ]);
  });

  it("a neighbour tower's outage is its own, with its own customers only", async () => {
    const { sim, services } = await start();
    sim.takeDown(DIAMOND_AP, at('14:02'));
    sim.takeDown(ENMORE_AP, at('14:05'));
    const reading = await services.outages.inProgress();
    if (!reading.available) throw new Error(reading.why);
    // Newest first.
    expect(reading.outages.map((o) => [o.device?.name, names(o.affected)])).toEqual([
      ['enmore-ap1', ['Ravi Persaud']],
      ['diamond-ap1', ['Leon Hope', 'Marcus Baptiste']],
    ]);
  });

  it("a customer's own radio affects that customer", async () => {
    const { sim, services } = await start();
    sim.takeDown(CPE_PERSAUD, at('09:30'));
    const reading = await services.outages.inProgress();
    if (!reading.available) throw new Error(reading.why);
    expect(reading.outages).toHaveLength(1);
    expect(reading.outages[0]).toMatchObject({ device: { name: 'cpe-persaud', role: 'station' }, site: { name: 'Ravi Persaud', kind: 'customer' } });
    expect(reading.outages[0]!.affected).toEqual([
      { clientId: 1005, name: 'Ravi Persaud', siteId: '2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d67', service: { id: 104, name: 'Standard Monthly', status: 3, statusLabel: 'Suspended' } },
    ]);
  });

  it("one site's devices down together are one outage, since the first went down; back, there is none", async () => {
    const { sim, services } = await start();
    sim.takeDown(DIAMOND_STATION, at('14:03'));
    sim.takeDown(DIAMOND_AP, at('14:02'));
    const reading = await services.outages.inProgress();
    if (!reading.available) throw new Error(reading.why);
    expect(reading.outages.map((o) => ({ device: o.device?.name, devicesDown: o.devicesDown, since: o.since }))).toEqual([{ device: 'diamond-ap1', devicesDown: 2, since: '2026-11-28T14:02:00.000Z' }]);
    sim.bringBack(DIAMOND_AP, at('14:20'));
    sim.bringBack(DIAMOND_STATION, at('14:21'));
    expect(await services.outages.inProgress()).toEqual({ available: true, outages: [] });
  });

  it('asks UISP a bounded number of requests per outage whatever the size of the site', async () => {
    const data = buildData(generateDataSet({ customers: 600 }));
    const { sim, services } = await start(withOutages, data);
    // The NOC's router: every customer of the network is below it.
    const noc = data.sites.find((s) => s.identification.parent === null)!;
    const router = data.devices.find((d) => d.identification.site?.id === noc.id)!;
    sim.takeDown(router.identification.id);
    const before = sim.requests.length;
    const reading = await services.outages.inProgress();
    if (!reading.available) throw new Error(reading.why);
    expect(reading.outages[0]!.affected.length).toBe(data.sites.filter((s) => s.identification.type === 'endpoint').length);
    const nms = sim.requests.slice(before).filter((r) => r.path.startsWith(NMS));
    // Stock: the outages, the customer sites' ids, and (more than five requests of ids) the endpoint sites in
    // one. Interface: the outages, the customer sites' path (404, not asked again), every site once.
    const asked = nms.map((r) => `${r.path}${r.query.type ? `?type=${r.query.type}` : ''}`);
    const sites = world === 'stock' ? [`${NMS}/sites/${noc.id}/clients`, `${NMS}/sites?type=endpoint`] : [`${NMS}/sites/${noc.id}/clients`, `${NMS}/sites`];
    expect(asked).toEqual([`${NMS}/outages`, ...sites]);
  });
});

describe('an NMS without GET /outages (the interface document)', () => {
  it('says outages are unavailable rather than that none is in progress', async () => {
    const { sim, services } = await start(WORLD_FILTERS.interface);
    sim.takeDown(DIAMOND_AP);
    const reading = await services.outages.inProgress();
    expect(reading).toEqual({ available: false, why: expect.stringContaining('does not serve GET /outages') });
  });
});
