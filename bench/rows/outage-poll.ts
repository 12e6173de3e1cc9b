/**
 * Row 9 (issue 40): what one outage-watch poll costs when nothing changed, at 10,000 customers against
 * the same at 100, and what reporting a new outage at a tower costs. Each size is a data set generated
 * by the simulator (the seed of row 8), served in the stock world (which has GET /outages), behind the
 * counting proxy of row 8. The watch runs in this process on the services layer with a claims ledger in
 * memory; its reports go nowhere (what Slack does with them is not UISP's cost).
 */
import { createLogger } from '../../src/logging.js';
import { loadCoreConfig } from '../../src/config.js';
import { createServices } from '../../src/services/container.js';
import { OutageWatch, type OutageEvent } from '../../src/services/events/outage-watch.js';
import { generateDataSet, buildData, startSimulator } from '../../src/simulator/index.js';
import { openStore } from '../../src/store/index.js';
import { breakdown, readsOf, readsText, startCountingProxy, type CountingProxy, type ProxiedRequest, type Reads } from '../counting-proxy.js';
import { median, ms, record } from '../report.js';

const SMALL = 100;
const LARGE = 10_000;
const SEED = 1;
/** Polls timed per size, after one untimed first poll (it takes the watch's lease). */
const POLLS = 25;
const MIN_MS = 2 * 60_000;
/** The time of a poll with nothing changed may grow this much from 100 to 10,000 customers. */
const TIME_FACTOR = 2;
/** Requests to report a new outage at a tower, the poll's two included: docs/design.md says at most 6 for whom it affects. */
const NEW_OUTAGE_REQUESTS = 8;

interface Figures {
  /** One poll with nothing changed (every timed poll asks the same). */
  quiet: Reads;
  quietMs: number;
  /** The poll that reports a tower AP down. */
  newOutage: Reads;
  affected: number;
}

/** Requests and bytes per poll of what the proxy logged; what was asked is printed (not in the table). */
function perPoll(entries: readonly ProxiedRequest[], label: string, polls: number): Reads {
  console.log(`[9] ${label}: ${breakdown(entries)}`);
  const reads = readsOf(entries);
  return { requests: reads.requests / polls, bytes: reads.bytes / polls };
}

interface Network {
  customers: number;
  proxy: CountingProxy;
  watch: OutageWatch;
  events: OutageEvent[];
  takeDownTowerAp(): void;
  close(): Promise<void>;
}

/** A generated network of `customers` behind the proxy, and a watch on it that has polled once (it holds the lease). */
async function network(customers: number): Promise<Network> {
  const raw = generateDataSet({ customers, seed: SEED }) as { devices: { identification: { id: string; name: string } }[] };
  const sim = await startSimulator({ data: buildData(raw), world: 'stock' });
  const proxy = await startCountingProxy(sim.url);
  const services = createServices(loadCoreConfig({ UISP_URL: proxy.url, UISP_TOKEN: sim.token, ISP_TIMEZONE: 'America/Guyana' }));
  const events: OutageEvent[] = [];
  const watch = new OutageWatch({ nms: services.nms, outages: services.outages, claims: openStore({ engine: 'memory' }).claims, logger: createLogger('silent'), minMs: MIN_MS });
  watch.reportTo(
    async (event) => void events.push(event),
    async () => [],
  );
  const close = async () => {
    await watch.handOver();
    await services.close();
    await proxy.close();
    await sim.close();
  };
  await watch.poll();
  if (watch.health().state !== 'watching') {
    await close();
    throw new Error(`the watch does not poll at ${customers} customers: ${watch.health().line}`);
  }
  const ap = raw.devices.find((device) => device.identification.name === 'tower-1-ap')!.identification;
  // Down for twice the minimum already: the next poll reports it.
  return { customers, proxy, watch, events, takeDownTowerAp: () => void sim.takeDown(ap.id, new Date(Date.now() - 2 * MIN_MS)), close };
}

/** The timed polls alternate between the sizes, so a busy machine or a warming JIT weighs on both alike. */
async function measure(small: Network, large: Network): Promise<[Figures, Figures]> {
  const times = new Map<Network, number[]>([
    [small, []],
    [large, []],
  ]);
  const firsts = new Map([small, large].map((net) => [net, net.proxy.log.length]));
  for (let k = 0; k < POLLS; k++) {
    for (const net of [small, large]) {
      const started = performance.now();
      await net.watch.poll();
      times.get(net)!.push(performance.now() - started);
    }
  }
  return Promise.all(
    [small, large].map(async (net): Promise<Figures> => {
      const quiet = perPoll(net.proxy.log.slice(firsts.get(net)), `${net.customers}: a poll with nothing changed`, POLLS);
      if (net.events.length > 0) throw new Error(`a poll with nothing changed reported ${net.events.length} event(s) at ${net.customers} customers`);
      net.takeDownTowerAp();
      const first = net.proxy.log.length;
      await net.watch.poll();
      const newOutage = perPoll(net.proxy.log.slice(first), `${net.customers}: the poll that reports tower 1's AP down`, 1);
      const began = net.events.find((event) => event.kind === 'began');
      if (!began || began.kind !== 'began') throw new Error(`tower 1's AP down was not reported at ${net.customers} customers`);
      return { quiet, quietMs: median(times.get(net)!), newOutage, affected: began.outage.affected.length };
    }),
  ) as Promise<[Figures, Figures]>;
}

export async function outagePoll(): Promise<void> {
  const nets: Network[] = [];
  let small: Figures;
  let large: Figures;
  try {
    nets.push(await network(SMALL), await network(LARGE));
    [small, large] = await measure(nets[0]!, nets[1]!);
  } finally {
    for (const net of nets) await net.close();
  }
  const at = `at ${LARGE.toLocaleString('en-US')} customers`;
  const baseline = (text: string) => `${text} (${SMALL} customers)`;
  record({
    target: '9',
    name: `one outage-watch poll with nothing changed: requests and bytes per poll ${at}`,
    figure: readsText(large.quiet),
    baseline: baseline(readsText(small.quiet)),
    ratio: large.quiet.requests / small.quiet.requests,
    goal: 'the same requests at both sizes',
    pass: large.quiet.requests === small.quiet.requests,
  });
  record({
    target: '9',
    name: `one outage-watch poll with nothing changed: time per poll (median of ${POLLS}) ${at}`,
    figure: ms(large.quietMs),
    baseline: baseline(ms(small.quietMs)),
    ratio: large.quietMs / small.quietMs,
    goal: `≤ ${TIME_FACTOR}×`,
    pass: large.quietMs <= TIME_FACTOR * small.quietMs,
  });
  record({
    target: '9',
    name: `the poll that reports a tower AP down (${large.affected} customers below it; ${small.affected} at 100): requests and bytes ${at}`,
    figure: readsText(large.newOutage),
    baseline: baseline(readsText(small.newOutage)),
    ratio: large.newOutage.requests / small.newOutage.requests,
    goal: `≤ ${NEW_OUTAGE_REQUESTS} requests`,
    pass: large.newOutage.requests <= NEW_OUTAGE_REQUESTS,
  });
}
