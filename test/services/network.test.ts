/**
 * The activation asks NMS for the records its rules need, not the lists (issue #38): the device typed
 * (sites by IP and the devices on them; the device by MAC), the sites that may await their link, the
 * towers, the client's bound sites by id. Each narrowed answer is checked; a UISP that does not honour a
 * filter (the interface document's NMS honours none; a stock one may lack some) is asked the whole list
 * instead, said once, and decides the same.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { loadCoreConfig } from '../../src/config.js';
import type { ReadDecision } from '../../src/services/activation/workflow.js';
import { createServices, type Services } from '../../src/services/container.js';
import { buildData, generateDataSet, startSimulator, type RecordedRequest, type RunningSimulator, type SimulatorData } from '../../src/simulator/index.js';
import { WORLD_FILTERS, type SimulatorFilter } from '../../src/simulator/world.js';

const NMS = '/nms/api/v2.1';
const NARROWING = ['id', 'ip', 'deviceId', 'type', 'ucrm'];

/** A whole NMS list: GET /sites with no narrowing filter, or GET /devices with no site. */
const wholeLists = (requests: readonly RecordedRequest[]) =>
  requests.filter((r) => r.method === 'GET' && ((r.path === `${NMS}/sites` && !NARROWING.some((key) => key in r.query)) || (r.path === `${NMS}/devices` && !('siteId' in r.query)))).map((r) => r.path);

interface Running {
  sim: RunningSimulator;
  services: Services;
  notices: string[];
  /** Bytes of the JSON bodies SubOps received. */
  bytes: () => number;
}

const running: Running[] = [];
afterEach(async () => {
  for (const { sim, services } of running.splice(0)) {
    await services.close();
    await sim.close();
  }
});

async function start(options: { filters?: readonly SimulatorFilter[]; data?: SimulatorData; env?: Record<string, string> } = {}): Promise<Running> {
  const { env, ...simulator } = options;
  const sim = await startSimulator({ world: 'stock', ...simulator });
  const notices: string[] = [];
  let bytes = 0;
  const services = createServices(loadCoreConfig({ UISP_URL: sim.url, UISP_TOKEN: sim.token, ISP_TIMEZONE: 'America/Guyana', ...env }), {
    notice: (line) => notices.push(line),
    // The discovered list is read whole by every device question: it grows with the devices awaiting authorization, not with the customers.
    observer: { request: ({ path }) => (outcome) => void (bytes += path.endsWith('/devices/discovered') || outcome.body == null ? 0 : JSON.stringify(outcome.body).length) },
  });
  const started = { sim, services, notices, bytes: () => bytes };
  running.push(started);
  return started;
}

/** What the agent sees of a decision: everything but the reads it was made from. */
const seen = ({ reads: _reads, ...decision }: ReadDecision) => decision;

const REQUESTS = [
  { name: 'a new customer on a discovered station, by IP', request: { device: '10.20.1.88', firstName: 'Ada', lastName: 'Lovelace' } },
  { name: 'the same station by MAC', request: { device: '74-83-C2-0F-AB-88', firstName: 'Ada', lastName: 'Lovelace' } },
  // None of Priya's services is bound to a site: a site bound to her alone would be named by no CRM record, so every site is read.
  { name: "a client's Quoted service replaced, its station discovered", request: { device: '10.20.1.51', firstName: 'Priya', lastName: 'Ramnarine' }, whole: [`${NMS}/sites`] },
  { name: 'an already active customer, by MAC', request: { device: 'b4fb.e41a.2b21', firstName: 'Marcus', lastName: 'Baptiste' } },
  { name: 'an already active customer, by IP', request: { device: '10.20.1.21', firstName: 'Marcus', lastName: 'Baptiste' } },
] as const;

describe('the activation on a stock UISP', () => {
  it.each(REQUESTS)('$name: asks for no whole NMS list but what it must, and decides as from the whole lists', async (each) => {
    const narrowed = await start();
    const decision = await narrowed.services.activation.decide(each.request);
    expect(wholeLists(narrowed.sim.requests)).toEqual('whole' in each ? each.whole : []);
    expect(narrowed.notices).toEqual([]);

    const whole = await start({ filters: [] });
    expect(seen(await whole.services.activation.decide(each.request))).toEqual(seen(decision));
  });

  it('a new customer runs to the end without a whole NMS list, and the site is found again by its read-back', async () => {
    const { sim, services } = await start();
    let outcome: string | undefined;
    for await (const event of services.activation.run(REQUESTS[0].request)) if (event.type === 'result') outcome = event.outcome;
    expect(outcome).toBe('activated');
    expect(wholeLists(sim.requests)).toEqual([]);
    const sites = sim.data.sites.filter((s) => s.identification.name === 'Ada Lovelace');
    expect(sites).toHaveLength(1);
    expect(sim.data.devices.find((d) => d.identification.ip === '10.20.1.88')!.identification.site?.id).toBe(sites[0]!.id);
  });
});

describe('a UISP that does not honour a filter', () => {
  const lacking: { filter: SimulatorFilter; request: { device: string; firstName: string; lastName: string }; said: RegExp }[] = [
    { filter: 'sites.ip', request: REQUESTS[2].request, said: /does not honour GET \/sites\?ip=/ },
    { filter: 'devices.mac', request: REQUESTS[3].request, said: /does not honour GET \/devices\/mac\/\{mac\}/ },
    { filter: 'sites.id', request: REQUESTS[3].request, said: /does not honour GET \/sites\?id=/ },
    { filter: 'sites.ucrm', request: REQUESTS[0].request, said: /does not honour GET \/sites\?ucrm=/ },
    { filter: 'sites.type', request: REQUESTS[0].request, said: /does not honour GET \/sites\?type=/ },
    { filter: 'devices.siteId', request: REQUESTS[4].request, said: /does not honour GET \/devices\?siteId=/ },
  ];

  it.each(lacking)('without $filter: decides the same from the whole list, and says so once', async ({ filter, request, said }) => {
    const expected = seen(await (await start()).services.activation.decide(request));
    const { services, notices } = await start({ filters: WORLD_FILTERS.stock.filter((f) => f !== filter) });
    expect(seen(await services.activation.decide(request))).toEqual(expected);
    expect(seen(await services.activation.decide(request))).toEqual(expected);
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatch(said);
  });

  it("the interface document's NMS (no filter at all): every decision is the stock one's, each lack said once", async () => {
    const { services, notices } = await start({ filters: WORLD_FILTERS.interface });
    for (const { request } of REQUESTS) {
      const expected = seen(await (await start()).services.activation.decide(request));
      expect(seen(await services.activation.decide(request))).toEqual(expected);
    }
    expect(new Set(notices).size).toBe(notices.length);
  });

  it('a MAC NMS does not know (404) is looked for in the whole list, and the path is still trusted afterwards', async () => {
    const { services, sim, notices } = await start();
    const decision = await services.activation.decide({ device: '00:11:22:33:44:55', firstName: 'Ada', lastName: 'Lovelace' });
    expect(decision).toMatchObject({ kind: 'refused', refusal: { code: 'device-not-found' } });
    expect(notices).toEqual([]);
    const before = sim.requests.length;
    await services.activation.decide(REQUESTS[1].request);
    expect(wholeLists(sim.requests.slice(before))).toEqual([]);
  });
});

describe('what an activation costs does not grow with the ISP', () => {
  it('a decision for a new customer and for an existing one: the same requests, about the same bytes (the discovered list aside), at 300 and 3,000 customers', async () => {
    const now = new Date('2026-11-28T12:00:00Z');
    const costs = [];
    for (const customers of [300, 3_000]) {
      const data = buildData(generateDataSet({ customers, seed: 3, now }), now);
      // With a parent site set, the towers (one per 150 customers) are not read to pick one.
      const { sim, services, bytes } = await start({ data, env: { NMS_PARENT_SITE_ID: data.sites.find((s) => !s.identification.parent)!.id } });
      const { clients, services: all, devices } = sim.data;
      const discovered = devices.find((d) => !d.identification.authorized)!;
      // A person with one service, bound to a site, and nobody else of that name: the same question at both sizes.
      const named = (c: (typeof clients)[number]) => `${c.firstName} ${c.lastName}`;
      const live = all.find((s) => {
        const client = clients.find((c) => c.id === s.clientId)!;
        return s.unmsClientSiteId !== null && client.firstName && all.filter((t) => t.clientId === s.clientId).length === 1 && clients.filter((c) => named(c) === named(client)).length === 1;
      })!;
      const client = clients.find((c) => c.id === live.clientId)!;
      const station = devices.find((d) => d.identification.site?.id === live.unmsClientSiteId && d.identification.role === 'station')!;
      const before = sim.requests.length;
      const fresh = await services.activation.decide({ device: discovered.identification.ip!, firstName: 'Ada', lastName: 'Lovelace' });
      const existing = await services.activation.decide({ device: station.identification.mac!, firstName: client.firstName!, lastName: client.lastName! });
      expect(fresh.kind).toBe('plan');
      expect(existing).toMatchObject({ kind: 'plan', plan: { service: { action: 'reuse' }, site: { action: 'reuse' } } });
      costs.push({ requests: sim.requests.length - before, bytes: bytes(), whole: wholeLists(sim.requests) });
    }
    const [small, large] = costs;
    expect(large!.whole).toEqual([]);
    expect(large!.requests).toBe(small!.requests);
    expect(large!.bytes).toBeLessThan(1.5 * small!.bytes);
  }, 60_000);
});
