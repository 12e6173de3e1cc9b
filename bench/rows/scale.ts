/**
 * Row 8 (issue 38): what each operation asks UISP at 1,000 and at 30,000 customers, side by side, on the
 * simulator in the stock world (which honours the official filters), each size a generated data set of
 * the same seed. A counting proxy in front of the simulator logs every request and the bytes of each
 * answer. The CLI operations run as processes (their peak RSS is their own); the link-watch poll, Home's
 * pending links and the client typeahead run in this process on the services layer.
 *
 * Both sizes are given the same day's activity and the same pending links: the generated year of payments
 * ends three days before the digest's day, which gets DAY_PAYMENTS payments of its own, and PENDING_LINKS
 * sites made by SubOps await their CRM link. So what the digest, the poll and Home read may grow with
 * what happened and what is pending, never with the network; the 1k figure is the baseline.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadCoreConfig } from '../../src/config.js';
import { createLogger } from '../../src/logging.js';
import { siteMarker } from '../../src/services/activation/markers.js';
import { createServices, type Services } from '../../src/services/container.js';
import { daysBefore, todayIn } from '../../src/services/dates.js';
import { LinkWatcher } from '../../src/services/events/link-watch.js';
import { buildData, generateDataSet, startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { openStore } from '../../src/store/index.js';
import { breakdown, readsOf, readsText, startCountingProxy, type CountingProxy, type Reads } from '../counting-proxy.js';
import { ms, record } from '../report.js';
import { ROOT, SUBOPS } from '../support.js';

const SMALL = 1_000;
const LARGE = 30_000;
const SEED = 1;
const PENDING_LINKS = 25;
const DAY_PAYMENTS = 40;
const TIME_ZONE = 'America/Guyana';
/** Ratio targets: what grows with the network may not; what grows with the day's activity is the same at both sizes. */
const SAME_AT_ANY_SIZE = 1.5;
const RSS_MB = 150;
const TYPEAHEAD_MS = 1_000;

interface CliFigure extends Reads {
  peakMb: number;
}

interface Figures {
  activate: CliFigure;
  deviceByIp: CliFigure;
  deviceByMac: CliFigure;
  client: CliFigure;
  payments: CliFigure;
  digest: CliFigure;
  linkPoll: Reads;
  home: Reads;
  typeaheadName: Reads & { ms: number };
  typeaheadId: Reads & { ms: number };
}

/** What the operations are asked about, chosen the same way at each size. */
interface Subjects {
  deviceIp: string;
  deviceMac: string;
  clientId: number;
  clientName: string;
  /** A discovered device nobody has: the new customer's. */
  discoveredIp: string;
  pendingSites: { siteId: string; siteName: string; clientId: number }[];
}

interface Dates {
  digest: string;
  /** The generated payments end the day before this. */
  generatedUntil: Date;
  exportFrom: string;
  exportTo: string;
}

type Raw = Record<string, unknown> & {
  clients: { id: number; firstName?: string; lastName?: string }[];
  sites: { id: string }[];
  devices: { identification: { name: string; ip: string; mac: string; authorized: boolean } }[];
  payments: { id: number; clientId: number }[];
  paymentMethods: { id: string }[];
};

function datesOfRun(): Dates {
  const digest = daysBefore(todayIn(TIME_ZONE), 1);
  return { digest, generatedUntil: new Date(`${daysBefore(digest, 2)}T00:00:00Z`), exportFrom: daysBefore(digest, 32), exportTo: daysBefore(digest, 3) };
}

/** The generated data set, plus the day's payments and the pending links both sizes share; and what to ask about. */
function dataSet(customers: number, dates: Dates): { raw: Raw; subjects: Subjects } {
  const raw = generateDataSet({ customers, seed: SEED, now: dates.generatedUntil }) as Raw;
  const hex = (n: number, width: number) => n.toString(16).padStart(width, '0');
  const tower = raw.sites[1]!.id;
  const pendingSites = Array.from({ length: PENDING_LINKS }, (_, k) => {
    const clientId = raw.clients[Math.floor(((k + 0.5) * customers) / PENDING_LINKS)]!.id;
    return { siteId: `be000000-0000-4000-8000-${hex(k, 12)}`, siteName: `Pending link ${k + 1}`, clientId };
  });
  pendingSites.forEach(({ siteId, siteName, clientId }, k) => {
    raw.sites.push({ id: siteId, identification: { name: siteName, type: 'endpoint', parent: { id: tower } }, description: { note: siteMarker(clientId, `be${hex(k, 6)}`) } } as never);
    raw.devices.push({
      identification: { id: `be000000-0000-4000-8000-${hex(k + 4096, 12)}`, name: `cpe-pending-${k + 1}`, mac: `02:be:00:00:${hex(k >> 8, 2)}:${hex(k & 255, 2)}`, ip: `10.200.0.${k + 1}`, model: 'LBE-5AC-Gen2', type: 'airMax', role: 'station', category: 'wireless', authorized: true, site: { id: siteId } },
      ipAddress: `10.200.0.${k + 1}/16`,
      mode: 'sta-ptmp',
      overview: { uptime: 1000, signal: -60 },
    } as never);
  });
  const dayStart = Date.parse(`${dates.digest}T12:00:00Z`);
  const nextPayment = raw.payments.reduce((last, p) => Math.max(last, p.id), 0) + 1;
  for (let k = 0; k < DAY_PAYMENTS; k++) {
    const createdDate = new Date(dayStart + k * 10 * 60_000).toISOString().replace(/\.\d{3}Z$/, '+0000');
    raw.payments.push({ id: nextPayment + k, createdDate, clientId: raw.clients[Math.floor((k * customers) / DAY_PAYMENTS)]!.id, amount: 10_000, methodId: raw.paymentMethods[0]!.id } as never);
  }
  // A person in the middle of the client list, with a station on the endpoint site of a live service.
  const devices = new Map(raw.devices.map((d) => [d.identification.name, d.identification]));
  const client = raw.clients.slice(Math.floor(customers / 2)).find((c) => c.firstName && devices.has(`cpe-${c.id}`))!;
  const station = devices.get(`cpe-${client.id}`)!;
  const discovered = raw.devices.find((d) => !d.identification.authorized)!.identification;
  return { raw, subjects: { deviceIp: station.ip, deviceMac: station.mac, clientId: client.id, clientName: `${client.firstName} ${client.lastName}`, discoveredIp: discovered.ip, pendingSites } };
}

/** The requests and bytes of what `run` asked through the proxy; what it asked is printed (not in the table). */
async function counted<T>(proxy: CountingProxy, label: string, run: () => Promise<T>): Promise<{ reads: Reads; result: T }> {
  const first = proxy.log.length;
  const result = await run();
  const entries = proxy.log.slice(first);
  console.log(`[8] ${label}: ${breakdown(entries)}`);
  return { reads: readsOf(entries), result };
}

/** `subops …` as a process against the proxy, with its peak RSS; a failed run throws with its last line. */
function runCli(args: string[], env: Record<string, string>): Promise<{ stdout: string; peakMb: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', `${ROOT}bench/peak-rss.js`, SUBOPS, ...args], { env: { PATH: process.env.PATH ?? '', SUBOPS_ENV_FILE: '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      const peak = /peak-rss-kb (\d+)/.exec(stderr);
      if (code !== 0 || !peak) return reject(new Error(`subops ${args.join(' ')} exited ${code}: ${stderr.trim().split('\n').filter((line) => !line.startsWith('peak-rss-kb')).at(-1) ?? ''}`));
      resolve({ stdout, peakMb: Number(peak[1]) / 1024 });
    });
  });
}

/**
 * A card that is not the subject's, or came with a gap (a part UISP did not answer in time), is not a
 * complete answer: said in the row, which then fails.
 */
const cardProblem = (clientId: number) => (stdout: string): string | undefined => {
  const card = JSON.parse(stdout.trim().split('\n').at(-1)!) as { type?: string; client?: { id?: number } | null; gaps?: { part: string; problem: string }[] };
  if (card.type !== 'device' && card.type !== 'client') return `answered ${card.type ?? 'no card'}`;
  if (card.gaps?.length) return `a card with a gap: ${card.gaps.map((gap) => `${gap.part}: ${gap.problem}`).join('; ')}`;
  if (card.client?.id !== clientId) return `a card without its client #${clientId}`;
  return undefined;
};

/** ms from the first keystroke's question to the first answer that is complete and has suggestions, on fresh services (no cache). */
async function typeahead(proxy: CountingProxy, customers: number, services: Services, typed: string, expected?: string): Promise<Reads & { ms: number }> {
  const { reads, result } = await counted(proxy, `${customers}: client typeahead "${typed}"`, async () => {
    const started = performance.now();
    for (;;) {
      const answer = await services.lookups.typeahead.client(typed);
      if (answer.complete && (expected ? answer.suggestions.some((s) => s.value === expected) : answer.suggestions.length > 0)) return performance.now() - started;
      if (performance.now() - started > 60_000) throw new Error(`the client typeahead gave no complete answer for "${typed}" within 60 s`);
    }
  });
  return { ...reads, ms: result };
}

async function measureSize(customers: number, dates: Dates, problems: Map<string, string>): Promise<Figures> {
  const { raw, subjects } = dataSet(customers, dates);
  const sim: RunningSimulator = await startSimulator({ data: buildData(raw), world: 'stock' });
  const proxy = await startCountingProxy(sim.url);
  const state = mkdtempSync(join(tmpdir(), 'subops-bench-scale-'));
  const env = { UISP_URL: proxy.url, UISP_TOKEN: sim.token, ISP_TIMEZONE: TIME_ZONE, XDG_STATE_HOME: state, HOME: state };
  const config = loadCoreConfig(env);
  const fresh: Services[] = [];
  const freshServices = () => {
    const services = createServices(config);
    fresh.push(services);
    return services;
  };
  const cli = async (name: string, args: string[], check?: (stdout: string) => string | undefined): Promise<CliFigure> => {
    const { reads, result } = await counted(proxy, `${customers}: subops ${args.join(' ')}`, () => runCli(args, env));
    const problem = check?.(result.stdout);
    if (problem) problems.set(`${name}@${customers}`, problem);
    return { ...reads, peakMb: result.peakMb };
  };
  try {
    const deviceByIp = await cli('deviceByIp', ['device', subjects.deviceIp, '--json'], cardProblem(subjects.clientId));
    const deviceByMac = await cli('deviceByMac', ['device', subjects.deviceMac, '--json'], cardProblem(subjects.clientId));
    const client = await cli('client', ['client', String(subjects.clientId), '--json'], cardProblem(subjects.clientId));
    const payments = await cli('payments', ['payments', '--csv', '--from', dates.exportFrom, '--to', dates.exportTo]);
    const digest = await cli('digest', ['digest', '--date', dates.digest, '--json'], (stdout) => {
      const read = JSON.parse(stdout.trim().split('\n').at(-1)!) as { payments?: { count?: number }; awaitingLink?: unknown[] };
      return read.payments?.count === DAY_PAYMENTS && read.awaitingLink?.length === PENDING_LINKS ? undefined : `digest of ${read.payments?.count} payments, ${read.awaitingLink?.length} sites awaiting the link`;
    });

    const services = freshServices();
    const watcher = new LinkWatcher({ network: services.network, logger: createLogger('silent'), reminderMs: 86_400_000, crmClientUrl: (id) => services.activation.crmClientUrl(id), claims: openStore({ engine: 'memory' }).claims });
    subjects.pendingSites.forEach((site) => watcher.watch({ ...site, thread: null }));
    const linkPoll = (await counted(proxy, `${customers}: link-watch poll`, () => watcher.check())).reads;
    if (watcher.pending().length !== PENDING_LINKS) problems.set(`linkPoll@${customers}`, `${watcher.pending().length} links still pending after the poll`);
    const home = await counted(proxy, `${customers}: Home's pending links`, () => services.lookups.missingLinks());
    if (home.result.length !== PENDING_LINKS) problems.set(`home@${customers}`, `${home.result.length} pending links shown`);

    const typeaheadName = await typeahead(proxy, customers, freshServices(), subjects.clientName);
    const typeaheadId = await typeahead(proxy, customers, freshServices(), String(subjects.clientId), String(subjects.clientId));

    // Last: it adds a site awaiting its link.
    const activate = await cli('activate', ['activate', '--device', subjects.discoveredIp, '--first-name', 'Ada', '--last-name', 'Lovelace', '--yes', '--json']);
    return { activate, deviceByIp, deviceByMac, client, payments, digest, linkPoll, home: home.reads, typeaheadName, typeaheadId };
  } finally {
    await Promise.all(fresh.map((services) => services.close()));
    await proxy.close();
    await sim.close();
    rmSync(state, { recursive: true, force: true });
  }
}

export async function scaleReads(): Promise<void> {
  const dates = datesOfRun();
  const problems = new Map<string, string>();
  const small = await measureSize(SMALL, dates, problems);
  const large = await measureSize(LARGE, dates, problems);
  const at = `at ${LARGE.toLocaleString('en-US')} customers`;
  const problemsOf = (key: keyof Figures) => [problems.get(`${key}@${SMALL}`), problems.get(`${key}@${LARGE}`)].filter(Boolean).join('; ');

  /** A row of requests and bytes read, 30k against 1k; the ratio is of the bytes unless `ratioOf` says requests. */
  const readsRow = (key: keyof Figures, name: string, goal: string, passes: (large: Reads, ratios: { bytes: number; requests: number }) => boolean, ratioOf: 'bytes' | 'requests' = 'bytes') => {
    const [one, two] = [small[key], large[key]];
    const ratios = { bytes: two.bytes / one.bytes, requests: two.requests / one.requests };
    const problem = problemsOf(key);
    record({ target: '8', name: `${name}: requests and bytes read ${at}`, figure: `${readsText(two)}${problem ? ` (${problem})` : ''}`, baseline: `${readsText(one)} (1,000 customers)`, ratio: ratios[ratioOf], goal, pass: !problem && passes(two, ratios) });
  };
  const sameAtAnySize = (_: Reads, ratios: { bytes: number; requests: number }) => ratios.bytes <= SAME_AT_ANY_SIZE && ratios.requests <= SAME_AT_ANY_SIZE;
  readsRow('activate', '`activate` a new customer on a discovered device', '≤ 20 requests, ≤ 1 MB', (r) => r.requests <= 20 && r.bytes <= 1e6);
  readsRow('deviceByIp', '`device <ip>` card', '≤ 0.5 MB', (r) => r.bytes <= 0.5e6);
  readsRow('deviceByMac', '`device <mac>` card', '≤ 0.5 MB', (r) => r.bytes <= 0.5e6);
  readsRow('client', '`client <id>` card', '≤ 0.5 MB', (r) => r.bytes <= 0.5e6);
  readsRow('payments', '`payments --csv`, 30 days', '≤ 200 requests', (r) => r.requests <= 200, 'requests');
  readsRow('digest', `\`digest\` (${DAY_PAYMENTS} payments that day, ${PENDING_LINKS} sites awaiting the link, at both sizes)`, `≤ ${SAME_AT_ANY_SIZE}× (bytes and requests)`, sameAtAnySize);
  readsRow('linkPoll', `one link-watch poll, ${PENDING_LINKS} pending links at both sizes`, `≤ ${SAME_AT_ANY_SIZE}× (bytes and requests)`, sameAtAnySize);
  readsRow('home', `Home's pending links, ${PENDING_LINKS} at both sizes`, `≤ ${SAME_AT_ANY_SIZE}× (bytes and requests)`, sameAtAnySize);

  for (const [key, name] of [
    ['typeaheadName', 'a typed name'],
    ['typeaheadId', 'a typed id'],
  ] as const) {
    const [one, two] = [small[key], large[key]];
    record({ target: '8', name: `client typeahead, ${name}: time to the first complete answer ${at}`, figure: `${ms(two.ms)} (${readsText(two)})`, baseline: `${ms(one.ms)} (${readsText(one)}; 1,000 customers)`, ratio: two.ms / one.ms, goal: `≤ ${TYPEAHEAD_MS} ms`, pass: two.ms <= TYPEAHEAD_MS });
  }

  for (const [key, name] of [
    ['activate', '`activate`'],
    ['deviceByIp', '`device <ip>`'],
    ['deviceByMac', '`device <mac>`'],
    ['client', '`client <id>`'],
    ['payments', '`payments --csv`, 30 days'],
    ['digest', '`digest`'],
  ] as const) {
    const [one, two] = [small[key], large[key]];
    record({ target: '8', name: `${name}: peak RSS of the CLI process ${at}`, figure: `${two.peakMb.toFixed(0)} MB`, baseline: `${one.peakMb.toFixed(0)} MB (1,000 customers)`, ratio: two.peakMb / one.peakMb, goal: `≤ ${RSS_MB} MB`, pass: two.peakMb <= RSS_MB });
  }
}
