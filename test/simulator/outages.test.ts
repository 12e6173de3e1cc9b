/**
 * GET /nms/api/v2.1/outages as the NMS Swagger gives it (src/simulator/outages.ts): devices a test takes
 * down and brings back, with the Swagger's parameters; the interface world answers 404 (its document
 * lists no outages) unless a test gives it the path.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { WORLD_FILTERS } from '../../src/simulator/world.js';
import { nms } from './helpers.js';

const DIAMOND_AP = '1c0f5e8b-2a3d-4b4c-9e6f-7d8a9b0c1d02';
const DIAMOND_STATION = 'd2e3f4a5-b6c7-4d8e-9fa0-1b2c3d4e5f13';
const ENMORE_AP = '2d1a6f9c-3b4e-4c5d-8f7a-8e9b0c1d2e03';
const DIAMOND = '7c1d9e2a-4b3f-4a6c-8e5d-2f9b0c1a7d12';

let sim: RunningSimulator;
afterEach(async () => sim.close());

const at = (time: string) => new Date(`2026-11-28T${time}:00Z`);
const outages = async (query: string) => (await nms(sim, 'GET', `/outages?count=50&page=1&${query}`)).body;

describe('GET /outages (stock world)', () => {
  it('lists a device taken down in progress, its end once back; the device says disconnected meanwhile', async () => {
    sim = await startSimulator({ world: 'stock' });
    sim.takeDown(DIAMOND_AP, at('14:02'));
    const device = sim.data.devices.find((d) => d.identification.id === DIAMOND_AP)!;
    expect(device.overview.status).toBe('disconnected');
    const answer = await outages('inProgress=true');
    expect(answer.pagination).toEqual({ count: 50, total: 1, page: 1, pages: 1 });
    expect(answer.aggregation).toEqual({ allCount: 1, outageCount: 1, unreachableCount: 0 });
    expect(answer.items[0]).toMatchObject({
      startTimestamp: '2026-11-28T14:02:00.000Z',
      type: 'outage',
      inProgress: true,
      site: { id: DIAMOND, name: 'Diamond Tower', type: 'site' },
      device: { id: DIAMOND_AP, name: 'diamond-ap1', model: 'R5AC-PRISM', modelName: 'Rocket 5AC Prism', role: 'ap', ip: '10.20.1.2/24' },
      affectedDevices: 1,
      children: [],
    });
    sim.bringBack(DIAMOND_AP, at('14:20'));
    expect(device.overview.status).toBe('active');
    expect((await outages('inProgress=true')).items).toEqual([]);
    const ended = await outages(`haveEnded=true&start=${at('14:00').getTime()}&period=3600000`);
    expect(ended.items).toMatchObject([{ inProgress: false, endTimestamp: '2026-11-28T14:20:00.000Z', aggregatedTime: 18 * 60_000 }]);
    // Outside the window asked: none.
    expect((await outages(`start=${at('15:00').getTime()}&period=3600000`)).items).toEqual([]);
  });

  it("grouped: one site's overlapping outages are one item (the earliest, the others as children); by site and device", async () => {
    sim = await startSimulator({ world: 'stock' });
    const first = sim.takeDown(DIAMOND_AP, at('14:02'));
    const second = sim.takeDown(DIAMOND_STATION, at('14:03'));
    sim.takeDown(ENMORE_AP, at('14:05'));
    expect((await outages('inProgress=true')).items).toHaveLength(3);
    const grouped = await outages('inProgress=true&grouped=true');
    expect(grouped.items.map((o: { device: { name: string }; affectedDevices: number }) => [o.device.name, o.affectedDevices])).toEqual([
      ['enmore-ap1', 1],
      ['diamond-ap1', 2],
    ]);
    expect(grouped.items[1]).toMatchObject({ id: first.id, children: [second.id] });
    expect((await outages(`siteId=${DIAMOND}`)).items).toHaveLength(2);
    expect((await outages(`deviceId=${ENMORE_AP}`)).items.map((o: { device: { id: string } }) => o.device.id)).toEqual([ENMORE_AP]);
    expect((await outages('count=1&page=2')).pagination).toMatchObject({ count: 1, page: 2, total: 3, pages: 3 });
  });

  it('count and page are required (400)', async () => {
    sim = await startSimulator({ world: 'stock' });
    expect((await nms(sim, 'GET', '/outages')).status).toBe(400);
    expect((await nms(sim, 'GET', '/outages?count=0&page=1')).status).toBe(400);
  });
});

describe('GET /outages (interface world)', () => {
  it('answers 404: the interface document lists no outages; given the path, it lists them as the stock world does', async () => {
    sim = await startSimulator({ world: 'interface' });
    sim.takeDown(DIAMOND_AP, at('14:02'));
    expect((await nms(sim, 'GET', '/outages?count=10&page=1')).status).toBe(404);
    sim.honourFilters([...WORLD_FILTERS.interface, 'outages']);
    expect((await outages('inProgress=true')).items).toMatchObject([{ device: { id: DIAMOND_AP }, inProgress: true }]);
  });
});
