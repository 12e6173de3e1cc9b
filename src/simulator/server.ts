/**
 * The simulator's HTTP plumbing on plain node:http: the request log, latency, fault injection, token
 * checks and JSON in and out. What each endpoint does lives in crm-routes.ts and nms-routes.ts.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { crmApi } from './crm-routes.js';
import { inWorld, sampleData, type SimulatorData } from './data.js';
import { FaultInjector, faultPhase, type FaultRule } from './faults.js';
import { indexesOf } from './indexes.js';
import { Gate, type GateMatch, type SimulatorGate } from './gates.js';
import { nmsApi } from './nms-routes.js';
import { bringBack, takeDown } from './outages.js';
import type { OutageRecord } from './records.js';
import { ApiError, type Api, type Reply } from './router.js';
import { WebhookSender, type WebhookChange, type WebhookDelivery, type WebhookEventRecord } from './webhooks.js';
import { WORLD_FILTERS, WORLD_STATUSES, worldFromEnv, type SimulatorFilter, type SimulatorWorld, type WorldStatuses } from './world.js';

export type { FaultRule } from './faults.js';
export type { GateMatch, Release, SimulatorGate } from './gates.js';
export type { WebhookDelivery, WebhookEventRecord } from './webhooks.js';

export interface SimulatorOptions {
  /** 0 = an ephemeral port (default). */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** The token both systems accept; default 'sim-token'. */
  token?: string;
  /** The live state; default a fresh copy of the sample data. A given object is used (and mutated) as is. */
  data?: SimulatorData;
  /** Delay before every response, in ms; default 0. */
  latencyMs?: number;
  faults?: FaultRule[];
  /** Seed of the PRNG behind fault rates; default 1. */
  seed?: number;
  /** Where the CRM POSTs its webhooks (e.g. SubOps' /uisp/webhook); none by default. */
  webhookUrl?: string;
  /** Which UISP to play (./world.ts); default SUBOPS_SIMULATOR_WORLD, else the interface document's. */
  world?: SimulatorWorld;
  /** The official list filters it honours (./world.ts); default the world's. */
  filters?: readonly SimulatorFilter[];
}

export interface RecordedRequest {
  method: string;
  /** The pathname, without the query string. */
  path: string;
  /** The query string's parameters (the last value of a repeated one). */
  query: Record<string, string>;
  /** Parsed JSON body, or undefined when there was none or it was not JSON. */
  body: unknown;
  /** The status answered; 0 while in flight and for requests that got no answer (hang, reset, close). */
  status: number;
  /** performance.now() ms at arrival. */
  startedAt: number;
  /** performance.now() ms when the response was sent or the connection closed; NaN while in flight. */
  endedAt: number;
}

export interface RunningSimulator {
  /** e.g. http://127.0.0.1:43123 (no trailing slash): CRM at url + '/crm/api/v1.0', NMS at url + '/nms/api/v2.1'. */
  url: string;
  token: string;
  /** The live, mutable state: tests may inspect and arrange it. */
  data: SimulatorData;
  /** Which UISP it plays, and the status numbers that world uses (for records a test adds). */
  world: SimulatorWorld;
  statuses: WorldStatuses;
  /** Every request in arrival order, including refused and faulted ones. */
  requests: RecordedRequest[];
  /** Replaces the official list filters it honours (./world.ts): a test plays a UISP that ignores one. */
  honourFilters(filters: readonly SimulatorFilter[]): void;
  /**
   * How many stored records the handlers have looked at so far (index checks and builds, scans): tests
   * assert an answer's complexity with it, never its wall time.
   */
  recordsVisited(): number;
  /**
   * The device (authorized) stops answering at `at` (default now): an outage in progress that
   * `GET /nms/api/v2.1/outages` lists, and the device `disconnected`. Already down: its open outage.
   */
  takeDown(deviceId: string, at?: Date): OutageRecord;
  /** The device answers again at `at` (default now): its outage ends. Undefined when it was not down. */
  bringBack(deviceId: string, at?: Date): OutageRecord | undefined;
  /** Replaces the fault rules (their `times` counters and the PRNG start over). */
  setFaults(rules: FaultRule[]): void;
  setLatency(ms: number): void;
  /**
   * Resolves once every request received so far has been fully handled, late and trickled ones
   * included (their clients may have given up long before): a signal to wait on instead of a sleep.
   */
  settled(): Promise<void>;
  /** Resolves once `count` requests have arrived in all (a signal for tests that must not sleep). */
  received(count: number): Promise<void>;
  /** Holds the requests that match until the test releases them (./gates.ts): interleavings without timing. */
  gate(match: GateMatch): SimulatorGate;
  /**
   * The ids the next sites created get, in the order UISP applies their POSTs (then random again): NMS
   * site ids are random, so a test that needs one site's id below another's chooses them.
   */
  nextSiteIds(...ids: string[]): void;
  /** Every webhook event the CRM recorded (GET /crm/api/v1.0/webhook-events/{uuid} answers them), oldest first. */
  webhookEvents: WebhookEventRecord[];
  /** Every webhook POST and the status it got. */
  webhookDeliveries: WebhookDelivery[];
  /** Sets (or, with undefined, clears) the URL the CRM POSTs its webhooks to. */
  setWebhookUrl(url: string | undefined): void;
  /** POSTs a recorded event again, as UISP does when an attempt failed. */
  resendWebhook(uuid: string): void;
  /** Resolves when every webhook POST started so far has been answered. */
  webhooksSettled(): Promise<void>;
  /** Stops listening and ends every open connection, hung requests included. */
  close(): Promise<void>;
}

const APIS: readonly Api[] = [crmApi, nmsApi];

/** Answers requests outside both systems, in the NMS (front server) shape. */
const fallbackApi = nmsApi;

export async function startSimulator(options: SimulatorOptions = {}): Promise<RunningSimulator> {
  const token = options.token ?? 'sim-token';
  const world = options.world ?? worldFromEnv();
  const data = inWorld(options.data ?? sampleData(), world);
  const host = options.host ?? '127.0.0.1';
  const requests: RecordedRequest[] = [];
  const faults = new FaultInjector(options.faults ?? [], options.seed ?? 1);
  let latencyMs = checkedLatency(options.latencyMs ?? 0);
  const webhooks = new WebhookSender(options.webhookUrl);
  const closing = new AbortController();
  /** Settles when each open request's response is sent or its connection closes. */
  const inFlight = new Set<Promise<void>>();
  /** Settles when each request's handling ends, which for a late write is after its client has gone. */
  const handling = new Set<Promise<void>>();
  const arrivalWaiters: { count: number; resolve: () => void }[] = [];
  const gates: Gate[] = [];
  const siteIds: string[] = [];
  let honoured = new Set(options.filters ?? WORLD_FILTERS[world]);
  const indexes = indexesOf(data);
  /** Every value of each request's query parameters (`record.query` keeps the last of a repeated one). */
  const searches = new WeakMap<RecordedRequest, URLSearchParams>();

  async function serve(req: IncomingMessage, res: ServerResponse, record: RecordedRequest, fault: FaultRule | undefined): Promise<void> {
    const text = await readBody(req);
    const json = parseJson(text);
    record.body = json.value;
    if (latencyMs > 0) await sleep(latencyMs, undefined, { signal: closing.signal });
    const api = APIS.find((candidate) => record.path === candidate.base || record.path.startsWith(`${candidate.base}/`));
    const parked = gates.map((gate) => gate.hold(record)).find((held) => held !== undefined);
    if (parked) {
      try {
        const first = await Promise.race([parked.how, parked.dropping]);
        if (first === 'dropped') {
          req.socket.destroy();
          parked.dropped();
          // Applied late, once released, when its client is long gone.
          if ((await parked.how) !== 'unavailable') dispatch(req, record, json, api);
          return;
        }
        const how = first;
        if (how === 'unavailable') return fail(req, res, { kind: 'status', status: 503, path: record.path }, api);
        const reply = dispatch(req, record, json, api);
        if (how === 'lose-answer') return void req.socket.destroy();
        return send(res, reply);
      } finally {
        parked.done();
      }
    }
    if (fault && faultPhase(fault) === 'before') return fail(req, res, fault, api);
    if (fault?.kind === 'late') await sleep(fault.delayMs ?? 1000, undefined, { signal: closing.signal });
    const reply = dispatch(req, record, json, api);
    if (!fault || fault.kind === 'late') return send(res, reply);
    if (fault.kind === 'trickle') return trickle(res, reply, fault.intervalMs ?? 100, closing.signal);
    return fail(req, res, fault, api);
  }

  /** Authentication, body and route: the reply UISP would give. */
  function dispatch(req: IncomingMessage, record: RecordedRequest, json: { ok: boolean; value: unknown }, api: Api | undefined): Reply {
    if (!api) return fallbackApi.error(404);
    if (!api.authenticates(req.headers, token)) return api.error(401);
    if (!json.ok) return api.error(400, 'Invalid request payload JSON format.');
    const route = api.router.match(record.method, record.path.slice(api.base.length));
    if (!route) return api.error(404);
    const changes: WebhookChange[] = [];
    indexes.newRequest();
    const reply = answer(
      () =>
        route.handler({
          data,
          world,
          params: route.params,
          query: record.query,
          queryValues: (name) => searches.get(record)?.getAll(name) ?? [],
          honours: (filter) => honoured.has(filter),
          indexes,
          body: json.value,
          emit: (change) => changes.push(change),
          webhookEvents: webhooks.events,
          newSiteId: () => siteIds.shift() ?? randomUUID(),
        }),
      api,
    );
    // Like UISP, webhooks go out once the change is made and answered.
    if (reply.status < 300) queueMicrotask(() => changes.forEach((change) => webhooks.record(change)()));
    return reply;
  }

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://simulator');
    const record: RecordedRequest = {
      method: (req.method ?? 'GET').toUpperCase(),
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      body: undefined,
      status: 0,
      startedAt: performance.now(),
      endedAt: Number.NaN,
    };
    requests.push(record);
    searches.set(record, url.searchParams);
    for (const waiter of arrivalWaiters.filter((w) => w.count <= requests.length)) {
      arrivalWaiters.splice(arrivalWaiters.indexOf(waiter), 1);
      waiter.resolve();
    }
    const ended = new Promise<void>((resolve) =>
      res.on('close', () => {
        record.endedAt = performance.now();
        record.status = res.writableFinished ? res.statusCode : 0;
        resolve();
      }),
    );
    inFlight.add(ended);
    void ended.then(() => inFlight.delete(ended));
    // Drawn on arrival, so concurrent requests meet the PRNG in arrival order.
    const fault = faults.pick(record.method, record.path);
    const handled = serve(req, res, record, fault).catch((error: unknown) => {
      if (closing.signal.aborted || res.headersSent) return void res.destroy();
      send(res, fallbackApi.error(500, error instanceof Error ? error.message : String(error)));
    });
    handling.add(handled);
    void handled.then(() => handling.delete(handled));
  });

  // As UISP's nginx (its default keepalive_timeout): Node's 5 s closed idle connections under clients whose
  // event loop ran late under load, which then reused the closed socket and got ECONNRESET.
  server.keepAliveTimeout = 75_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;

  async function shutDown(): Promise<void> {
    closing.abort();
    const stopped = new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    server.closeAllConnections();
    await stopped;
    await Promise.all(inFlight);
  }

  let closed: Promise<void> | undefined;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    token,
    data,
    world,
    statuses: WORLD_STATUSES[world],
    requests,
    honourFilters: (filters) => {
      honoured = new Set(filters);
    },
    recordsVisited: () => indexes.visited,
    takeDown: (deviceId, at = new Date()) => takeDown(data, deviceId, at),
    bringBack: (deviceId, at = new Date()) => bringBack(data, deviceId, at),
    setFaults: (rules) => faults.set(rules),
    setLatency: (ms) => {
      latencyMs = checkedLatency(ms);
    },
    nextSiteIds: (...ids) => void siteIds.push(...ids),
    gate: (match) => {
      const gate = new Gate(match);
      gates.push(gate);
      return gate;
    },
    received: (count) => (requests.length >= count ? Promise.resolve() : new Promise((resolve) => arrivalWaiters.push({ count, resolve }))),
    settled: async () => {
      await Promise.all([...handling]);
    },
    webhookEvents: webhooks.events,
    webhookDeliveries: webhooks.deliveries,
    setWebhookUrl: (url) => {
      webhooks.url = url;
    },
    resendWebhook: (uuid) => webhooks.send(uuid),
    webhooksSettled: () => webhooks.settled(),
    close: () => (closed ??= shutDown()),
  };
}

function fail(req: IncomingMessage, res: ServerResponse, fault: FaultRule, api: Api | undefined): void {
  if (fault.kind === 'hang') return;
  if (fault.kind === 'reset') {
    req.socket.destroy();
    return;
  }
  send(res, (api ?? fallbackApi).error(fault.status ?? 500), fault.retryAfter === undefined ? {} : { 'retry-after': String(fault.retryAfter) });
}

/** The real answer, one byte per interval, until it is sent or the client goes away. */
async function trickle(res: ServerResponse, reply: Reply, intervalMs: number, signal: AbortSignal): Promise<void> {
  const payload = Buffer.from(reply.body === undefined ? '' : JSON.stringify(reply.body));
  res.writeHead(reply.status, { 'content-type': 'application/json; charset=utf-8', 'content-length': payload.length });
  for (const byte of payload) {
    if (res.destroyed) return;
    res.write(Buffer.of(byte));
    await sleep(intervalMs, undefined, { signal });
  }
  res.end();
}

/** A handler's reply; ApiError is an early error reply, anything else thrown is a 500 in the system's shape. */
function answer(handle: () => Reply, api: Api): Reply {
  try {
    return handle();
  } catch (error) {
    if (error instanceof ApiError) return error.reply;
    return api.error(500, error instanceof Error ? error.message : String(error));
  }
}

function send(res: ServerResponse, reply: Reply, headers: Record<string, string> = {}): void {
  const payload = reply.body === undefined ? '' : JSON.stringify(reply.body);
  res.writeHead(reply.status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(payload), ...headers });
  res.end(payload);
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function parseJson(text: string): { ok: boolean; value: unknown } {
  if (text.trim() === '') return { ok: true, value: undefined };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false, value: undefined };
  }
}

function checkedLatency(ms: number): number {
  if (!(Number.isFinite(ms) && ms >= 0)) throw new RangeError(`latency must be a number of ms ≥ 0 (got ${ms})`);
  return ms;
}
