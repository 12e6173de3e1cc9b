/**
 * GET /healthz: whether UISP (both systems) and Slack answer, as JSON. 200 when both do, 503 otherwise or
 * while the process drains for a restart, so a load balancer's readiness check stops sending it work.
 * Errors are summaries, never tokens. Served on the ops listener (OPS_HOST:OPS_PORT, loopback by
 * default), and on the Slack port only with HEALTHZ_ON_SLACK_PORT.
 *
 * Cheap whatever the traffic: every request is answered from one shared probe result, refreshed at most
 * once per `cacheMs` (HEALTH_CACHE_MS); requests that come while a probe runs wait for that one. A burst of
 * any size therefore makes at most one probe per interval. A probe is one CRM read, one NMS read (PROBE_READS) and one
 * Slack auth.test, on connections of its own (never the UISP pool that agents' work uses), never
 * retried, each cut off at `timeoutMs` (HEALTH_TIMEOUT_MS) by aborting its request: the connection is
 * closed, nothing of it keeps running after the answer.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { z } from 'zod';
import type { SlackConfig, UispConfig } from '../config.js';
import { createUispDispatcher, UispHttp } from '../services/uisp/http.js';
import { webApi } from './bolt.js';
import { errorSummary } from './errors.js';
import { boltLogger } from './logging.js';
import type { OutageWatchHealth } from '../services/events/outage-watch.js';
import type { WorkTracker } from './work.js';

/** How long one probe may take, UISP and Slack each. */
export const HEALTH_TIMEOUT_MS = 3_000;
/** How long a probe result answers /healthz before the next request probes again. */
export const HEALTH_CACHE_MS = 5_000;

/**
 * What a probe reads: small lists SubOps itself reads, on endpoints that exist, so a healthy UISP answers
 * 200 (never a 404 in UISP's logs or SubOps' metrics) and the answer proves each system takes its token:
 * the CRM's suspension reasons (a handful) and the NMS's discovered devices (only those waiting to be
 * authorized; the activation reads the same list). Any error answer, 404 included, is a failed probe.
 */
export const PROBE_READS = { crm: 'service-suspension-reasons', nms: 'devices/discovered' } as const;

export interface ProbeResult {
  ok: boolean;
  ms: number;
  error?: string;
}

/** What one probe found, shared by every request until the next. */
export interface ProbeResults {
  uisp: ProbeResult;
  slack: ProbeResult;
  /** When the probe started (ISO 8601). */
  checkedAt: string;
}

export interface HealthReport extends ProbeResults {
  status: 'ok' | 'degraded' | 'draining';
  inFlight: number;
  /** Audit records kept in the store until Slack takes them; null when the store did not answer (or the process has none). */
  auditWaiting: number | null;
  /** The outage watch, in the bot process: whether it polls, and since when it cannot read ("outage watch: UISP not answering since …"). */
  outageWatch?: OutageWatchHealth;
}

/** How the outage watch stands (the bot process's watch). */
export type OutageWatchState = () => OutageWatchHealth | undefined;

/** How many audit records wait in the store (src/slack/audit-outbox.ts); null while the store is not open (never waited for). */
export type AuditWaiting = () => Promise<number | null>;

export interface HealthProbeOptions {
  /** UISP's URL and tokens (the embedded simulator's, once resolved). */
  uisp: Pick<UispConfig, 'url' | 'crmToken' | 'nmsToken' | 'connectTimeoutMs'>;
  slack: Pick<SlackConfig, 'botToken' | 'apiUrl'>;
  logger: Logger;
  timeoutMs?: number;
  cacheMs?: number;
  /** Clock (ms), for tests. */
  now?: () => number;
}

/** The shared, cached probe behind every /healthz answer. */
export class HealthProbe {
  private readonly crm: UispHttp;
  private readonly nms: UispHttp;
  private readonly slackClient: InstanceType<typeof webApi.WebClient>;
  private readonly dispatcher: ReturnType<typeof createUispDispatcher>;
  private readonly timeoutMs: number;
  private readonly cacheMs: number;
  private readonly now: () => number;
  private last: { startedAt: number; results: ProbeResults } | undefined;
  private running: Promise<ProbeResults> | undefined;
  private made = 0;

  constructor({ uisp, slack, logger, timeoutMs = HEALTH_TIMEOUT_MS, cacheMs = HEALTH_CACHE_MS, now = Date.now }: HealthProbeOptions) {
    if (!uisp.url || !uisp.crmToken || !uisp.nmsToken) throw new Error('the health probe needs a UISP URL and tokens');
    this.timeoutMs = timeoutMs;
    this.cacheMs = cacheMs;
    this.now = now;
    // Two connections of its own (one per system): a probe never waits behind, or takes a connection from, agents' work.
    // The deadline is the probe's one bound (it aborts the request): the per-attempt timer is set past it,
    // so the two never race to say the same thing in two wordings.
    const timeouts = { connectMs: Math.min(uisp.connectTimeoutMs, timeoutMs), requestMs: timeoutMs * 2, deadlineMs: timeoutMs };
    this.dispatcher = createUispDispatcher(timeouts, 2);
    // No retries; the deadline aborts the request (UispHttp's own AbortController), closing its connection.
    const common = { dispatcher: this.dispatcher, timeouts, retry: { retries: 0, backoffMs: 0 } };
    this.crm = new UispHttp({ ...common, system: 'crm', baseUrl: `${uisp.url}/crm/api/v1.0`, headers: { 'X-Auth-Token': uisp.crmToken, 'X-Auth-App-Key': uisp.crmToken } });
    this.nms = new UispHttp({ ...common, system: 'nms', baseUrl: `${uisp.url}/nms/api/v2.1`, headers: { 'X-Auth-Token': uisp.nmsToken } });
    // No retries, and `timeout` aborts the call.
    this.slackClient = new webApi.WebClient(slack.botToken, {
      ...(slack.apiUrl && { slackApiUrl: `${slack.apiUrl}/` }),
      retryConfig: { retries: 0 },
      timeout: timeoutMs,
      rejectRateLimitedCalls: true,
      logger: boltLogger(logger),
    });
  }

  /** Probes made so far (each is one CRM read, one NMS read and one auth.test). */
  get probes(): number {
    return this.made;
  }

  /** The current result: the cached one while fresh, else the probe running now, else a new probe. */
  results(): Promise<ProbeResults> {
    if (this.running) return this.running;
    if (this.last && this.now() - this.last.startedAt < this.cacheMs) return Promise.resolve(this.last.results);
    const startedAt = this.now();
    this.made += 1;
    const running = this.probe(startedAt).then((results) => {
      this.last = { startedAt, results };
      return results;
    });
    this.running = running;
    void running.finally(() => {
      if (this.running === running) this.running = undefined;
    });
    return running;
  }

  async close(): Promise<void> {
    await this.dispatcher.destroy();
  }

  private async probe(startedAt: number): Promise<ProbeResults> {
    const [uisp, slack] = await Promise.all([
      timed(() => Promise.all([this.crm.get(PROBE_READS.crm, z.unknown()), this.nms.get(PROBE_READS.nms, z.unknown())]), this.timeoutMs),
      timed(() => this.slackClient.auth.test(), this.timeoutMs),
    ]);
    return { uisp, slack, checkedAt: new Date(startedAt).toISOString() };
  }
}

/**
 * Runs a check, answering by `timeoutMs` at the latest. The check's own request is aborted at the same
 * deadline (UispHttp's deadline, the WebClient's timeout); this bound only keeps the answer on time, and
 * says it in the UISP client's words, so the report reads the same whichever timer fires first.
 */
async function timed(check: () => Promise<unknown>, timeoutMs: number): Promise<ProbeResult> {
  const started = performance.now();
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), timeoutMs);
  const timedOut = new Promise<never>((_, reject) => deadline.signal.addEventListener('abort', () => reject(new Error(`no complete answer within ${timeoutMs} ms`)), { once: true }));
  try {
    await Promise.race([check(), timedOut]);
    return { ok: true, ms: Math.round(performance.now() - started) };
  } catch (error) {
    const summary = errorSummary(error);
    return { ok: false, ms: Math.round(performance.now() - started), error: summary.slackError ?? summary.message };
  } finally {
    clearTimeout(timer);
  }
}

/** The report for one request: the shared probe result, with the process's own state. */
export async function checkHealth(probe: HealthProbe, work: Pick<WorkTracker, 'acceptingWork' | 'inFlight'>, auditWaiting?: AuditWaiting, outageWatch?: OutageWatchState): Promise<HealthReport> {
  const [{ uisp, slack, checkedAt }, waiting] = await Promise.all([probe.results(), auditWaiting ? auditWaiting().catch(() => null) : null]);
  const status = !work.acceptingWork ? 'draining' : uisp.ok && slack.ok ? 'ok' : 'degraded';
  const watch = outageWatch?.();
  return { status, uisp, slack, checkedAt, inFlight: work.inFlight, auditWaiting: waiting, ...(watch && { outageWatch: watch }) };
}

/**
 * GET /livez: liveness, beside /healthz's readiness. 200 whenever the process's event loop answers, draining
 * included (a restart then would cut the drain short); it asks neither UISP nor Slack, so an outage of
 * theirs, which a restart cannot fix, never makes a supervisor restart the bot.
 */
export function livenessRoute(): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
    res.end('{"status":"alive"}');
  };
}

/** GET /healthz. `work` is read at each request (a getter object is fine: tests swap trackers on restart). */
export function healthRoute(probe: HealthProbe, work: Pick<WorkTracker, 'acceptingWork' | 'inFlight'>, auditWaiting?: AuditWaiting, outageWatch?: OutageWatchState): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    req.resume();
    void checkHealth(probe, work, auditWaiting, outageWatch).then((report) => {
      res.writeHead(report.status === 'ok' ? 200 : 503, { 'content-type': 'application/json', 'cache-control': 'no-store' });
      res.end(JSON.stringify(report));
    });
  };
}
