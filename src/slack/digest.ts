/**
 * The daily digest in Slack: at DIGEST_TIME on ISP_TIMEZONE's clock, the previous day's digest
 * (src/views/digest.ts) is posted to DIGEST_CHANNEL_ID, once per day whatever the number of replicas
 * and restarts:
 * - a process that starts after the day's time posts the digest if it is still missing (catch-up);
 * - before reading UISP it claims the day in the store: a replica that comes second, at the same moment
 *   or started later, reads and posts nothing.
 * A digest that could not be read or posted releases its claim and is tried again after `retryMs`,
 * until the next day's is due.
 */
import type { webApi } from '@slack/bolt';
import type { Logger } from 'pino';
import type { DigestConfig, LocalTime } from '../config.js';
import { daysBefore, instantIn, todayIn } from '../services/dates.js';
import type { Digest } from '../services/digest/build.js';
import { readDigest, type DigestReadDeps } from '../services/digest/read.js';
import { DIGEST_EVENT_TYPE, digestMessage } from '../views/digest.js';
import type { ClaimLedger } from '../store/index.js';
import { auditTrailSource } from './audit.js';
import { errorSummary } from './errors.js';
import type { BotIdentity } from './startup.js';

/** Runs `run` once after `ms`; tests pass one they fire themselves. */
export interface Timer {
  after(ms: number, run: () => void): { cancel(): void };
}

const realTimer: Timer = {
  after(ms, run) {
    const timeout = setTimeout(run, ms);
    // The digest never keeps a stopping process alive.
    timeout.unref();
    return { cancel: () => clearTimeout(timeout) };
  },
};

export interface DigestScheduleOptions {
  client: webApi.WebClient;
  identity: BotIdentity;
  logger: Logger;
  channelId: string;
  time: LocalTime;
  timeZone: string;
  /** The digest of a calendar day (src/services/digest/read.ts). */
  read: (date: string) => Promise<Digest>;
  /** Counts each run as work in flight, so the SIGTERM drain waits for a digest being posted. */
  work?: { run(operation: () => Promise<void>): Promise<void> };
  /** Clock (ms since the epoch). */
  now?: () => number;
  timer?: Timer;
  /** Wait before trying a failed digest again. Default 10 minutes. */
  retryMs?: number;
  /** The store's claims: which days' digests a SubOps process has posted. */
  claims: ClaimLedger;
}

/** A day's claim is held while its digest is read and posted; a posted day is remembered this long. */
const HOLD_MS = 15 * 60_000;
const KEEP_MS = 60 * 24 * 3_600_000;

export interface DigestSchedule {
  /** Resolves when the run under way (if any) has finished: a signal for tests. */
  settled(): Promise<void>;
  stop(): void;
}

export interface DailyDigestOptions extends Omit<DigestScheduleOptions, 'channelId' | 'time' | 'read'> {
  settings: DigestConfig;
  services: Pick<DigestReadDeps, 'crm' | 'network' | 'outages'>;
  /** AUDIT_CHANNEL_ID: where activations, suspensions and late duplicates are read from; without it they are left out. */
  auditChannelId: string | undefined;
}

/** The bot process's digest: UISP through the services, the audit trail from AUDIT_CHANNEL_ID. */
export function startDailyDigest({ settings, services, auditChannelId, ...options }: DailyDigestOptions): DigestSchedule {
  const audit = auditChannelId ? auditTrailSource(options.client, auditChannelId, options.identity) : undefined;
  const read = (date: string) => readDigest({ crm: services.crm, network: services.network, outages: services.outages, timeZone: options.timeZone, audit }, date);
  return startDigestSchedule({ ...options, channelId: settings.channelId, time: settings.time, read });
}

/** Looks at once (catch-up), then at each day's DIGEST_TIME. */
export function startDigestSchedule(options: DigestScheduleOptions): DigestSchedule {
  const { time, timeZone, now = Date.now, timer = realTimer, retryMs = 600_000, work } = options;
  const log = options.logger.child({ flow: 'digest' });
  let pending: { cancel(): void } | undefined;
  let running: Promise<void> = Promise.resolve();
  let stopped = false;

  const tick = async () => {
    const at = now();
    const today = todayIn(timeZone, new Date(at));
    const due = instantIn(today, time, timeZone).getTime();
    const tomorrow = instantIn(daysBefore(today, -1), time, timeZone).getTime();
    let next = at < due ? due : tomorrow;
    if (at >= due && !(await postOnce(options, daysBefore(today, 1), log))) next = Math.min(tomorrow, at + retryMs);
    if (!stopped) pending = timer.after(next - now(), run);
  };
  const run = () => {
    running = work ? work.run(tick) : tick();
  };
  run();
  return {
    settled: () => running,
    stop() {
      stopped = true;
      pending?.cancel();
    },
  };
}

/** Posts the day's digest unless a SubOps process has (or is posting it); false when it could not (logged), to be tried again. */
async function postOnce({ client, channelId, read, claims }: DigestScheduleOptions, date: string, log: Logger): Promise<boolean> {
  let claimed;
  try {
    claimed = await claims.claim(`digest:${channelId}:${date}`, { holdMs: HOLD_MS });
  } catch (error) {
    log.error({ err: errorSummary(error), date }, "could not claim the day's digest in the store; trying again later");
    return false;
  }
  if (!claimed.won) {
    log.debug({ date, claim: claimed.state }, "the day's digest is posted, or being posted, by a SubOps process");
    return true;
  }
  try {
    const digest = await read(date);
    await client.chat.postMessage({ channel: channelId, ...digestMessage(digest), metadata: { event_type: DIGEST_EVENT_TYPE, event_payload: { date } }, unfurl_links: false });
  } catch (error) {
    await claimed.claim.release().catch(() => undefined);
    log.error({ err: errorSummary(error), date, channel: channelId }, "could not post the day's digest (is the bot a member of DIGEST_CHANNEL_ID?); trying again later");
    return false;
  }
  await claimed.claim.done(KEEP_MS).catch((error: unknown) => log.warn({ err: errorSummary(error), date }, "could not record the posted digest in the store"));
  log.info({ date, channel: channelId }, "posted the day's digest");
  return true;
}
