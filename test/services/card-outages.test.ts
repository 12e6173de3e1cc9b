/**
 * The /client and /device cards during an outage (issue #40): a customer below a downed tower AP, its
 * radio and the AP itself say "affected by an outage since …"; a neighbour tower's customer does not;
 * with nothing down the card asks one request more (GET /outages) and nothing else; UISP failing that
 * read leaves the card whole, saying the outages were not read; an NMS without GET /outages (the
 * interface document's) says nothing. In both worlds, the interface world given the path.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ClientCard, DeviceCard } from '../../src/services/lookups/index.js';
import type { NetworkReads } from '../../src/services/network.js';
import { OutageService } from '../../src/services/outages.js';
import { WORLD_FILTERS, worldFromEnv, type SimulatorFilter } from '../../src/simulator/world.js';
import { startUisp, type UispFixture } from '../support/uisp.js';

const OUTAGES = '/nms/api/v2.1/outages';
const DIAMOND_AP = '1c0f5e8b-2a3d-4b4c-9e6f-7d8a9b0c1d02';

const world = worldFromEnv();
const withOutages: readonly SimulatorFilter[] = [...new Set([...WORLD_FILTERS[world], 'outages' as const])];

const fixtures: UispFixture[] = [];
afterEach(async () => {
  for (const fixture of fixtures.splice(0)) await fixture.close();
});

async function start(filters: readonly SimulatorFilter[] = withOutages): Promise<UispFixture> {
  const fixture = await startUisp({ simulator: { world, filters } });
  fixtures.push(fixture);
  return fixture;
}

async function clientCard({ services }: UispFixture, text: string): Promise<ClientCard> {
  const found = await services.lookups.client(text);
  if (found.kind !== 'card') throw new Error(`no card for ${text}`);
  return found.card;
}

async function deviceCard({ services }: UispFixture, text: string): Promise<DeviceCard> {
  const found = await services.lookups.device(text);
  if (found.kind !== 'card') throw new Error(`no card for ${text}`);
  return found.card;
}

const diamondOutage = { since: '2026-11-28T14:02:00.000Z', device: 'diamond-ap1', site: 'Diamond Tower' };

describe(`cards during an outage (${world} world)`, () => {
  it("a customer below the downed tower AP, its radio and the AP itself are affected; a neighbour tower's customer is not", async () => {
    const uisp = await start();
    uisp.sim.takeDown(DIAMOND_AP, new Date('2026-11-28T14:02:00Z'));
    const marcus = await clientCard(uisp, '#1001');
    expect(marcus.outages).toEqual([{ id: expect.any(String), ...diamondOutage }]);
    expect(marcus.gaps).toEqual([]);
    expect((await deviceCard(uisp, 'cpe-baptiste')).outages).toEqual([expect.objectContaining(diamondOutage)]);
    expect((await deviceCard(uisp, 'diamond-ap1')).outages).toEqual([expect.objectContaining(diamondOutage)]);
    // Ravi Persaud is below Enmore Tower.
    expect((await clientCard(uisp, '#1005')).outages).toEqual([]);
    expect((await deviceCard(uisp, 'cpe-persaud')).outages).toEqual([]);
  });

  it('costs one request more when nothing is down: GET /outages, nothing else about outages', async () => {
    const uisp = await start();
    const before = uisp.sim.requests.length;
    const card = await clientCard(uisp, '#1001');
    expect(card.outages).toEqual([]);
    const asked = uisp.sim.requests.slice(before);
    expect(asked.filter((r) => r.path === OUTAGES)).toHaveLength(1);
    expect(asked.filter((r) => r.path.endsWith('/clients'))).toEqual([]);
  });

  it('UISP failing the outages read: the card shows without the line and says the outages were not read', async () => {
    const uisp = await start();
    uisp.sim.takeDown(DIAMOND_AP);
    uisp.sim.setFaults([{ method: 'GET', path: OUTAGES, kind: 'status', status: 503 }]);
    const marcus = await clientCard(uisp, '#1001');
    expect(marcus.services.map((s) => s.id)).toEqual([101]);
    expect(marcus.outages).toEqual([]);
    expect(marcus.gaps).toEqual([{ part: 'outages', problem: expect.any(String) }]);
    const radio = await deviceCard(uisp, 'cpe-baptiste');
    expect(radio.client?.id).toBe(1001);
    expect(radio.gaps).toEqual([{ part: 'outages', problem: expect.any(String) }]);
  });
});

describe('cards from an NMS without GET /outages (the interface document)', () => {
  it('say nothing of outages, and no gap', async () => {
    const uisp = await start(WORLD_FILTERS.interface);
    uisp.sim.takeDown(DIAMOND_AP);
    const marcus = await clientCard(uisp, '#1001');
    expect([marcus.outages, marcus.gaps]).toEqual([[], []]);
    const radio = await deviceCard(uisp, 'cpe-baptiste');
    expect([radio.outages, radio.gaps]).toEqual([[], []]);
  });
});

describe('OutageService.affecting', () => {
  it("an outage UISP names no device or site for affects no client's card", async () => {
    const outages = new OutageService({
      nms: { outagesInProgress: async () => [{ id: 'o-1', startTimestamp: '2026-11-28T14:02:00Z', inProgress: true, device: null, site: null }], outages: async () => [] },
      network: { oneRead: () => ({}) as NetworkReads } as NetworkReads,
      numbering: { resolve: async () => ({ numbering: null }) as never, label: () => '' },
    });
    expect(await outages.affecting({ siteIds: ['s-1'] })).toEqual([]);
    expect(await outages.affecting({ siteIds: [], deviceId: 'dev-1' })).toEqual([]);
  });
});
