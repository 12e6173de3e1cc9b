/**
 * The daily digest in Slack: at DIGEST_TIME on ISP_TIMEZONE's clock, the previous day's digest
 * (src/views/digest.ts) is posted to DIGEST_CHANNEL_ID, once per day whatever the number of replicas
 * and restarts:
 * - a process that starts after the day's time posts the digest if it is still missing (catch-up);
 * - before reading UISP it looks for the day's digest in the channel (a replica started later posts nothing);
 * - the post itself is a claim (src/slack/first-claim.ts): two replicas posting at the same moment
 *   read the channel back, and the later one deletes its message.
 * A digest that could not be read or posted is tried again after `retryMs`, until the next day's is due.
 */
import type { webApi } from '@slack/bolt';
import type { Logger } from 'pino';
import type { DigestConfig, LocalTime } from '../config.js';
import { dayBoundsIn, daysBefore, instantIn, todayIn } from '../services/dates.js';
import type { Digest } from '../services/digest/build.js';
import { readDigest, type DigestReadDeps } from '../services/digest/read.js';
import { DIGEST_EVENT_TYPE, digestMessage } from '../views/digest.js';
import { auditTrailSource } from './audit.js';
import { errorSummary } from './errors.js';
import { claimFirst, readClaims, type ClaimPlace } from './first-claim.js';
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
}

export interface DigestSchedule {
  /** Resolves when the run under way (if any) has finished: a signal for tests. */
  settled(): Promise<void>;
  stop(): void;
}

export interface DailyDigestOptions extends Omit<DigestScheduleOptions, 'channelId' | 'time' | 'read'> {
  settings: DigestConfig;
  services: Pick<DigestReadDeps, 'crm' | 'nms'>;
  /** AUDIT_CHANNEL_ID: where activations, suspensions and late duplicates are read from; without it they are left out. */
  auditChannelId: string | undefined;
}

/** The bot process's digest: UISP through the services, the audit trail from AUDIT_CHANNEL_ID. */
export function startDailyDigest({ settings, services, auditChannelId, ...options }: DailyDigestOptions): DigestSchedule {
  const audit = auditChannelId ? auditTrailSource(options.client, auditChannelId, options.identity) : undefined;
  const read = (date: string) => readDigest({ crm: services.crm, nms: services.nms, timeZone: options.timeZone, audit }, date);
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

/** Posts the day's digest unless SubOps already did; false when it could not (logged), to be tried again. */
async function postOnce({ client, identity, logger, channelId, timeZone, read }: DigestScheduleOptions, date: string, log: Logger): Promise<boolean> {
  // Any digest of the day is posted after the day began: older history is not read.
  const place: ClaimPlace = { channel: channelId, oldest: (dayBoundsIn(date, timeZone).start.getTime() / 1000).toFixed(6) };
  try {
    if ((await readClaims({ client, identity }, place, DIGEST_EVENT_TYPE, date)).length) {
      log.debug({ date }, "the day's digest is already posted");
      return true;
    }
    const digest = await read(date);
    const outcome = await claimFirst({ client, identity, logger }, place, DIGEST_EVENT_TYPE, date, { ...digestMessage(digest), payload: { date } });
    log.info({ date, channel: channelId, posted: outcome.won }, outcome.won ? "posted the day's digest" : "another SubOps process posted the day's digest first; this one's was deleted");
    return true;
  } catch (error) {
    log.error({ err: errorSummary(error), date, channel: channelId }, "could not post the day's digest (is the bot a member of DIGEST_CHANNEL_ID?); trying again later");
    return false;
  }
}
