/**
 * What the client and device cards ask UISP (issue #38): the records they show, not the lists. In the
 * stock world a card by client id, device IP or device MAC never reads the whole site or device list,
 * and asks as many requests at 3,000 customers as at 300; a stock UISP lacking one of the NMS Swagger's
 * filters (or all of them, as the interface document's) still shows the very same cards, said once.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { loadCoreConfig } from '../../src/config.js';
import { siteMarker } from '../../src/services/activation/markers.js';
import { createServices, type Services } from '../../src/services/container.js';
import type { ClientLookup } from '../../src/services/lookups/index.js';
import { buildData, generateDataSet, startSimulator, type RecordedRequest, type RunningSimulator, type SimulatorData } from '../../src/simulator/index.js';
import { WORLD_FILTERS, type SimulatorFilter } from '../../src/simulator/world.js';

const NOW = new Date('2026-11-28T12:00:00Z');

let sim: RunningSimulator | undefined;
const containers: Services[] = [];
afterEach(async () => {
  await Promise.all(containers.splice(0).map((services) => services.close()));
  await sim?.close();
  sim = undefined;
});

/** A fresh SubOps process's services against `sim`, with the notices it says. */
function subops(on: RunningSimulator): { services: Services; notices: string[] } {
  const notices: string[] = [];
  const config = loadCoreConfig({ UISP_URL: on.url, UISP_TOKEN: on.token, UISP_RETRY_BACKOFF_MS: '1', ISP_TIMEZONE: 'America/Guyana' });
  const services = createServices(config, { now: () => NOW, notice: (line) => notices.push(line) });
  containers.push(services);
  return { services, notices };
}

/** A read of a whole NMS list: every site (with the bindings), or every authorized device. */
const wholeList = (r: RecordedRequest) =>
  (r.path === '/nms/api/v2.1/sites' && !('id' in r.query || 'ip' in r.query || 'type' in r.query || 'ucrm' in r.query)) || (r.path === '/nms/api/v2.1/devices' && !('siteId' in r.query));

/** The requests `ask` made, by method and path (ids left out). */
async function requestsOf(on: RunningSimulator, ask: () => Promise<unknown>): Promise<RecordedRequest[]> {
  const before = on.requests.length;
  await ask();
  return on.requests.slice(before);
}

const shape = (requests: RecordedRequest[]) => requests.map((r) => `${r.method} ${r.path.replace(/\/mac\/[^/]+/, '/mac/{mac}').replace(/\/[0-9a-f-]{8,}|\/\d+/g, '/{id}')}`).sort();

describe('the cards in the stock world, on a generated data set', () => {
  /** The cards of a live client and of its radio (by IP and by MAC): what each asked. */
  async function cardsAt(customers: number) {
    const data: SimulatorData = buildData(generateDataSet({ customers, seed: 7, now: NOW }), NOW);
    sim = await startSimulator({ data, world: 'stock' });
    const { services } = subops(sim);
    const service = data.services.find((s) => s.unmsClientSiteId && data.devices.some((d) => d.identification.site?.id === s.unmsClientSiteId))!;
    const radio = data.devices.find((d) => d.identification.site?.id === service.unmsClientSiteId)!;
    const client = await requestsOf(sim, async () => {
      const found = await services.lookups.client(`#${service.clientId}`);
      expect(found.kind === 'card' && found.card.sites.map((s) => [s.id, s.devices.map((d) => d.id)])).toEqual([[service.unmsClientSiteId, data.devices.filter((d) => d.identification.site?.id === service.unmsClientSiteId).map((d) => d.identification.id)]]);
    });
    const byIp = await requestsOf(sim, async () => {
      const found = await services.lookups.device(radio.ipAddress);
      expect(found.kind === 'card' && [found.card.device.id, found.card.site?.id, found.card.client?.id]).toEqual([radio.identification.id, service.unmsClientSiteId, service.clientId]);
    });
    const byMac = await requestsOf(sim, async () => {
      const found = await services.lookups.device(radio.identification.mac!);
      expect(found.kind === 'card' && [found.card.device.id, found.card.site?.id, found.card.client?.id]).toEqual([radio.identification.id, service.unmsClientSiteId, service.clientId]);
    });
    await sim.close();
    sim = undefined;
    return { client, byIp, byMac };
  }

  it('asks NMS for the client\'s sites and devices and the device typed, never the whole lists, as many requests at 3,000 customers as at 300', async () => {
    const small = await cardsAt(300);
    const large = await cardsAt(3_000);
    for (const requests of [large.client, large.byIp, large.byMac]) expect(requests.filter(wholeList).map((r) => r.path)).toEqual([]);
    expect(shape(large.client)).toEqual(shape(small.client));
    expect(shape(large.byIp)).toEqual(shape(small.byIp));
    expect(shape(large.byMac)).toEqual(shape(small.byMac));
  }, 60_000);
});

describe('the same cards from a stock UISP lacking NMS filters', () => {
  const CLIENTS = ['#1001', '#1002', '#1003', '#1004', '#1005', '#1006', '#1007', '#1008', '#1009', '#4242'];
  const DEVICES = ['10.20.1.21', '10.20.2.44', '10.20.1.88', '10.20.1.77', 'b4fb.e41a.2b21', '78:8A:20:4C:1E:51', 'diamond-ap1', 'cpe-hope', 'ap1', '10.99.0.1', '00:00:00:00:00:01'];

  /** Every card above, in order, from a fresh process. */
  async function cards(on: RunningSimulator) {
    const { services, notices } = subops(on);
    const shown: unknown[] = [];
    for (const client of CLIENTS) shown.push(await services.lookups.client(client));
    for (const device of DEVICES) shown.push(await services.lookups.device(device));
    return { shown, notices };
  }

  const nmsFilters = WORLD_FILTERS.stock.filter((f) => !WORLD_FILTERS.interface.includes(f));
  const lacking: [string, SimulatorFilter[]][] = [
    ...(['sites.id', 'sites.ip', 'sites.type', 'sites.ucrm', 'devices.siteId', 'devices.mac'] as const).map((f): [string, SimulatorFilter[]] => [f, [f]]),
    ['every NMS filter (the interface document\'s NMS)', nmsFilters],
  ];

  /** A second site SubOps made for Marcus Baptiste (1001), not linked: the card names it a late duplicate. */
  function addLateSite(on: RunningSimulator) {
    const endpoint = structuredClone(on.data.sites.find((site) => site.identification.name === 'Marcus Baptiste')!);
    endpoint.id = endpoint.identification.id = '9f8e7d6c-5b4a-4c3d-8e2f-1a0b9c8d7e6f';
    endpoint.ucrm = null;
    endpoint.description = { ...endpoint.description, ucrmId: null, note: siteMarker(1001, '0a1b2c3d') };
    on.data.sites.push(endpoint);
  }

  it.each(lacking)('without %s', async (_name, missing) => {
    sim = await startSimulator({ world: 'stock' });
    addLateSite(sim);
    const narrowed = await cards(sim);
    expect(narrowed.notices).toEqual([]);
    const baptiste = narrowed.shown[0] as ClientLookup;
    expect(baptiste.kind === 'card' && [baptiste.card.sites.map((site) => site.linkedBy), baptiste.card.duplicates.map((d) => [d.record, d.others.map((o) => o.id)])]).toEqual([
      ['crm', 'marker'],
      [['site', ['9f8e7d6c-5b4a-4c3d-8e2f-1a0b9c8d7e6f']]],
    ]);
    sim.honourFilters(WORLD_FILTERS.stock.filter((f) => !missing.includes(f)));
    const whole = await cards(sim);
    expect(whole.shown).toEqual(narrowed.shown);
    // Said once each, and only for a filter it lacks.
    expect(new Set(whole.notices).size).toBe(whole.notices.length);
    expect(whole.notices.length).toBeGreaterThan(0);
  });

  it('a device by name reads its site by id, not every site', async () => {
    sim = await startSimulator({ world: 'stock' });
    const { services } = subops(sim);
    const requests = await requestsOf(sim, () => services.lookups.device('cpe-baptiste'));
    expect(requests.filter(wholeList).map((r) => `${r.method} ${r.path}`)).toEqual(['GET /nms/api/v2.1/devices']);
  });
});
