/**
 * GET /healthz (HTTP mode): whether UISP (both systems) and Slack answer, each with a short timeout,
 * as JSON. 200 when both are reachable, 503 otherwise or while the process drains for a restart, so a
 * load balancer's readiness check stops sending it work. Errors are summaries, never tokens.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { webApi } from '@slack/bolt';
import type { Services } from '../services/container.js';
import { UispError } from '../services/uisp/errors.js';
import { errorSummary } from './errors.js';
import type { WorkTracker } from './work.js';

export const HEALTH_TIMEOUT_MS = 3_000;

// No device has this id: the NMS answers 404 quickly, which proves it is there and takes the token.
const NO_SUCH_DEVICE = '00000000-0000-0000-0000-000000000000';

export interface ProbeResult {
  ok: boolean;
  ms: number;
  error?: string;
}

export interface HealthReport {
  status: 'ok' | 'degraded' | 'draining';
  uisp: ProbeResult;
  slack: ProbeResult;
  inFlight: number;
}

export interface HealthDeps {
  services: Pick<Services, 'crm' | 'nms'>;
  /** A Slack client without retries, with `timeout` set. */
  slackClient: webApi.WebClient;
  work: WorkTracker;
  timeoutMs?: number;
}

async function probe(check: () => Promise<unknown>, timeoutMs: number): Promise<ProbeResult> {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
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

/** A UISP answer that refuses only this request (404 and the like) still shows the system is up. */
async function uispAnswers(read: () => Promise<unknown>): Promise<void> {
  try {
    await read();
  } catch (error) {
    if (error instanceof UispError && (error.kind === 'not_found' || error.kind === 'rejected')) return;
    throw error;
  }
}

export async function checkHealth({ services, slackClient, work, timeoutMs = HEALTH_TIMEOUT_MS }: HealthDeps): Promise<HealthReport> {
  const [uisp, slack] = await Promise.all([
    probe(() => Promise.all([uispAnswers(() => services.crm.listSuspensionReasons()), uispAnswers(() => services.nms.getDevice(NO_SUCH_DEVICE))]), timeoutMs),
    probe(() => slackClient.auth.test(), timeoutMs),
  ]);
  const status = !work.acceptingWork ? 'draining' : uisp.ok && slack.ok ? 'ok' : 'degraded';
  return { status, uisp, slack, inFlight: work.inFlight };
}

export function healthRoute(deps: HealthDeps): (req: IncomingMessage, res: ServerResponse) => void {
  return (_req, res) => {
    void checkHealth(deps).then((report) => {
      res.writeHead(report.status === 'ok' ? 200 : 503, { 'content-type': 'application/json', 'cache-control': 'no-store' });
      res.end(JSON.stringify(report));
    });
  };
}
