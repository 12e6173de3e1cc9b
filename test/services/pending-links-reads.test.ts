/**
 * What the link watch, Home's pending links, the digest and late duplicates ask UISP (issue #38), on
 * generated networks: in a stock UISP none reads the whole site or device list, and each costs the same
 * requests and bytes at 300 and at 3,000 customers (it used to read every site: a poll 10 times dearer);
 * a UISP that honours none of the NMS filters (the interface document's), or a stock one lacking one of
 * them, gives the same answers from the whole lists, and says so once.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { siteMarker } from '../../src/services/activation/markers.js';
import { SHARED_STATUSES } from '../../src/services/activation/service-status.js';
import { loadCoreConfig } from '../../src/config.js';
import { createServices, type Services } from '../../src/services/container.js';
import { readDigest } from '../../src/services/digest/read.js';
import { removalRequest } from '../../src/services/duplicates.js';
import { createEventServices } from '../../src/services/events/index.js';
import { buildData, generateDataSet, startSimulator, type RecordedRequest, type RunningSimulator, type SimulatorWorld } from '../../src/simulator/index.js';
import { WORLD_FILTERS, type SimulatorFilter } from '../../src/simulator/world.js';
import { createLogger } from '../../src/slack/logging.js';
import { nms } from '../simulator/helpers.js';
import { memoryClaims } from '../support/store.js';

const NOW = new Date('2026-11-28T12:00:00Z');
/** A day after the generated payments end: the digest's payments are none at any size. */
const DIGEST_DAY = '2026-11-30';
const ZONE = 'America/Guyana';
const NMS = '/nms/api/v2.1';
/** Clients whose sites SubOps made and nobody linked yet (each also has its bound site: a late duplicate). */
const PENDING = 3;

interface Network {
  sim: RunningSimulator;
  services: Services;
  notices: string[];
  /** The JSON bytes UISP answered since the start. */
  bytes(): number;
  close(): Promise<void>;
}

let opened: Network[] = [];
afterEach(async () => {
  await Promise.all(opened.map((n) => n.close()));
  opened = [];
});

async function network(customers: number, world: SimulatorWorld, filters?: readonly SimulatorFilter[]): Promise<Network> {
  const sim = await startSimulator({ data: buildData(generateDataSet({ customers, seed: 7, now: NOW }), NOW), world, ...(filters && { filters }) });
  let bytes = 0;
  const notices: string[] = [];
  const observer = { request: () => (outcome: { body?: unknown }) => void (bytes += JSON.stringify(outcome.body ?? null).length) };
  const config = loadCoreConfig({ UISP_URL: sim.url, UISP_TOKEN: sim.token, UISP_RETRY_BACKOFF_MS: '1', ISP_TIMEZONE: ZONE });
  const services = createServices(config, { observer, notice: (line) => notices.push(line) });
  const made: Network = { sim, services, notices, bytes: () => bytes, close: async () => (await services.close(), await sim.close()) };
  opened.push(made);
  return made;
}

/** SubOps sites for the first clients with a live service, under the first tower, never linked: their ids by client. */
async function pendingSites({ sim }: Network): Promise<Map<number, string>> {
  const tower = sim.data.sites.find((s) => s.identification.name === 'Tower 1')!.id;
  const clients = [...new Set(sim.data.services.filter((s) => s.unmsClientSiteId && s.status === sim.statuses.active).map((s) => s.clientId))].slice(0, PENDING);
  const sites = new Map<number, string>();
  for (const clientId of clients) {
    const made = await nms(sim, 'POST', '/sites', { name: `Pending ${clientId}`, type: 'endpoint', parentSiteId: tower, note: siteMarker(clientId, '7b2d4e6f') });
    sites.set(clientId, made.body.id as string);
  }
  return sites;
}

/** What someone does by hand in the CRM web interface: the NMS site now carries the client binding. */
function linkByHand(sim: RunningSimulator, siteId: string, clientId: number): void {
  const site = sim.data.sites.find((s) => s.id === siteId)!;
  site.ucrm = { client: { id: String(clientId), name: 'linked', isLead: false }, service: null };
}

interface Cost {
  requests: string[];
  bytes: number;
}

/** Each operation's answer (named by site name and client, ids differ between runs) and what it asked UISP. */
async function operations(net: Network) {
  const { sim, services } = net;
  const sites = await pendingSites(net);
  const costs: Record<string, Cost> = {};
  const measured = async <T>(name: string, run: () => Promise<T>): Promise<T> => {
    const [requests, bytes] = [sim.requests.length, net.bytes()];
    const answer = await run();
    costs[name] = { requests: sim.requests.slice(requests).map(shown), bytes: net.bytes() - bytes };
    return answer;
  };
  const events = createEventServices({ services, settings: EVENTS, statuses: SHARED_STATUSES, logger: createLogger('silent'), claims: memoryClaims() });
  const reported: string[] = [];
  events.links.subscribe((event) => void reported.push(`${event.kind} ${event.link.siteName}`));
  const [first, second] = [...sites.keys()] as [number, number];

  const rebuilt = await measured('rebuild', () => events.links.rebuild());
  await measured('poll', () => events.links.check());
  const missing = await measured('home', () => services.lookups.missingLinks());
  const digest = await measured('digest', () => readDigest({ ...services, timeZone: ZONE, audit: undefined }, DIGEST_DAY));
  const duplicates = await measured('find duplicates', () => services.duplicates.find(first));
  const site = duplicates.find((d) => d.record === 'site')!;
  const removed = await measured('remove duplicate', () => services.duplicates.remove(removalRequest(site, sites.get(first)!)));
  linkByHand(sim, sites.get(second)!, second);
  await measured('poll after a link', () => events.links.check());
  return {
    clients: [...sites.keys()],
    answers: {
      rebuilt,
      pending: missing.map((m) => `${m.siteName} for #${m.clientId}`),
      digest: digest.awaitingLink.map((m) => `${m.siteName} for #${m.clientId}`),
      duplicates: duplicates.map((d) => `${d.record}: kept ${d.kept.name}, late ${d.others.map((o) => o.name).join()}`),
      removed: removed.kind,
      reported,
      stillWatched: events.links.pending().map((l) => l.siteName),
    },
    costs,
  };
}

const EVENTS = { webhookPort: undefined, webhookToken: undefined, webhookRatePerMinute: 600, paymentWindowMs: 86_400_000, linkWatchIntervalMs: 60_000, linkReminderMs: 86_400_000, failureNotices: false, outagesChannelId: undefined, outagePollIntervalMs: 60_000, outageMinMs: 120_000 };

const shown = (r: RecordedRequest) => `${r.method} ${r.path}${Object.keys(r.query).length ? `?${new URLSearchParams(r.query).toString()}` : ''}`;
/** The whole lists: every site, every authorized device. */
const WHOLE_LISTS = [`GET ${NMS}/sites?ucrmDetails=true`, `GET ${NMS}/devices`];

/** What every UISP answers on the network `operations` made: the first client's late site removed, the second's site linked. */
function expectedAnswers([first, second, third]: number[]) {
  const pending = [first, second, third].map((id) => `Pending ${id} for #${id}`);
  return {
    rebuilt: PENDING,
    pending,
    digest: pending,
    duplicates: [expect.stringMatching(new RegExp(`^site: kept .+, late Pending ${first}$`))],
    removed: 'removed',
    reported: [`linked Pending ${second}`],
    stillWatched: [`Pending ${third}`],
  };
}

describe('in a stock UISP (every NMS filter honoured)', () => {
  it('a poll, Home, the digest and late duplicates read no whole list, and cost the same at 300 and 3,000 customers', async () => {
    const small = await operations(await network(300, 'stock'));
    const large = await operations(await network(3_000, 'stock'));
    expect(small.answers).toEqual(expectedAnswers(small.clients));
    expect(large.answers).toEqual(expectedAnswers(large.clients));
    for (const run of [small, large]) {
      for (const [name, cost] of Object.entries(run.costs)) expect(cost.requests.filter((r) => WHOLE_LISTS.includes(r)), name).toEqual([]);
    }
    for (const name of Object.keys(small.costs)) {
      expect(large.costs[name]!.requests.length, name).toBe(small.costs[name]!.requests.length);
      // The same records (names of other lengths aside): within a tenth, where the whole site list is ten times bigger.
      expect(large.costs[name]!.bytes, name).toBeLessThan(small.costs[name]!.bytes * 1.1 + 200);
    }
    // One poll: one request for the pending sites, by id.
    expect(large.costs.poll!.requests).toEqual([expect.stringMatching(new RegExp(`^GET ${NMS}/sites\\?id=[^&]+&ucrmDetails=true$`))]);
  }, 60_000);
});

describe('a UISP that does not honour the NMS filters', () => {
  it("the interface document's UISP (no NMS filter) gives the same answers from the whole lists, each filter said once", async () => {
    const net = await network(300, 'interface');
    const run = await operations(net);
    expect(run.answers).toEqual(expectedAnswers(run.clients));
    expect(net.notices.length).toBeGreaterThan(0);
    expect(new Set(net.notices).size).toBe(net.notices.length);
  }, 60_000);

  it.each<SimulatorFilter>(['sites.id', 'sites.ucrm', 'devices.siteId'])('a stock UISP without %s gives the same answers, and says so once', async (missing) => {
    const net = await network(300, 'stock', WORLD_FILTERS.stock.filter((f) => f !== missing));
    const run = await operations(net);
    expect(run.answers).toEqual(expectedAnswers(run.clients));
    expect(net.notices).toEqual([expect.stringContaining(`does not honour GET /${missing.replace('.', '?')}=`)]);
  }, 60_000);
});
