/**
 * The outage watch (issue #40): UISP's NMS polled for devices down, each outage reported once (a thread
 * in the outages channel, src/commands/outages), its recovery once, and a device that keeps dropping for
 * less than `minMs` once as flapping. No Slack knowledge: the front end reports what this decides.
 *
 * One process polls at a time: the owner holds `outage-watch` in the store on a lease of three intervals,
 * renewed at each poll; another process (a replica, a restarted one) takes over when the owner lets go
 * (a stop) or its lease runs out, first finding the outages already reported and their threads again
 * (`OpenOutageLookup`: the front end reads its own sealed messages), so it neither reports them again nor
 * loses where their recoveries go. Each report is claimed in the store before it is made: a takeover in
 * the middle of one never makes it twice.
 *
 * Each poll asks two questions whatever the network's size: the outages in progress, and those that
 * ended since the last poll (`GET /outages?inProgress=true` and `?haveEnded=true&start=&period=`, grouped,
 * one page in practice). An outage is reported once it has lasted `minMs` (shorter: flapping, counted);
 * reporting it reads whom it affects (OutageService.withAffected: a bounded number of requests whatever
 * the site's size, docs/design.md). A recovery is reported only when UISP lists the outage as no longer
 * in progress: a poll that could not read UISP reports nothing and says so once (`health()`); the next
 * poll that can read it catches up from the last good one. When the watch starts, outages in progress
 * are reported with their real start; those that began and ended while no SubOps polled are not.
 */
import type { Logger } from 'pino';
import type { ClaimLedger } from '../../store/index.js';
import { outagesBySite, type OutageInProgress, type OutageService, type SiteOutage } from '../outages.js';
import { UispNotFoundError } from '../uisp/errors.js';
import type { NmsClient } from '../uisp/nms-client.js';
import type { Outage } from '../uisp/schemas.js';
import type { ThreadRef } from './link-watch.js';

/** An outage SubOps reported (or found reported), with where: what a recovery needs. */
export interface ReportedOutage {
  /** The outage's key: its site and start (`site:<id>@<ms>`), the same in every process. */
  key: string;
  outage: SiteOutage;
  /** Its thread; null when it is not known (the recovery then goes to the channel). */
  thread: ThreadRef | null;
}

export type OutageEvent =
  | { kind: 'began'; key: string; outage: OutageInProgress }
  | { kind: 'ended'; key: string; outage: SiteOutage; thread: ThreadRef | null; end: string; /** False: UISP no longer lists it as down, but gave no end; `end` is when SubOps saw that. */ endKnown: boolean }
  | { kind: 'flapping'; key: string; outage: SiteOutage; times: number; downMs: number; windowMs: number };

/** Reports an event; for `began`, returns the thread it started (null when it started none). */
export type OutageReporter = (event: OutageEvent) => Promise<ThreadRef | null | void>;

/** The outages the front end has reported and not yet marked recovered (after a takeover or restart). */
export type OpenOutageLookup = () => Promise<ReportedOutage[]>;

export interface OutageWatchHealth {
  /** watching: this process polls; standby: another one does; failing: UISP (or the store) does not answer; unavailable: the NMS has no GET /outages. */
  state: 'stopped' | 'standby' | 'watching' | 'failing' | 'unavailable';
  /** Since when it fails (ISO 8601). */
  since?: string;
  /** The sentence /healthz shows. */
  line: string;
}

export interface OutageWatchOptions {
  nms: Pick<NmsClient, 'outages'>;
  outages: Pick<OutageService, 'withAffected'>;
  claims: ClaimLedger;
  logger: Logger;
  /** OUTAGE_MIN_MINUTES in ms: an outage shorter than this is not reported (flapping). */
  minMs: number;
  now?: () => number;
}

export const OUTAGE_WATCH_KEY = 'outage-watch';
/** A device down `FLAP_TIMES` times within `FLAP_WINDOW_MS`, each time shorter than `minMs`, is reported once as flapping. */
export const FLAP_TIMES = 3;
export const FLAP_WINDOW_MS = 3_600_000;
/** How long a report is remembered as made: well past any outage's length. */
const KEEP_MS = 90 * 24 * 3_600_000;
/** Read further back than the last poll by this much, for UISP's clock against ours and a poll's own length. */
const OVERLAP_MS = 60_000;
/** GET /outages' smallest `period` (NMS Swagger). */
const MIN_PERIOD_MS = 3_600;

const siteKeyOf = (outage: SiteOutage): string => (outage.site ? `site:${outage.site.id}` : `outage:${outage.id}`);
const keyOf = (outage: SiteOutage): string => `${siteKeyOf(outage)}@${Date.parse(outage.since)}`;
const message = (error: unknown): string => (error instanceof Error ? error.message : String(error));

interface Episode extends ReportedOutage {
  reported: boolean;
}

interface ShortOutage {
  /** The outage as UISP named it (the flapping notice names the latest). */
  outage: SiteOutage;
  start: number;
  end: number;
}

export class OutageWatch {
  /** The outages in progress this process knows, by site. */
  private readonly open = new Map<string, Episode>();
  /** Keys of outages already closed (reported or counted), pruned after an hour. */
  private readonly closed = new Map<string, number>();
  /** Short outages per site within the flapping window, and until when a site's flapping was reported. */
  private readonly short = new Map<string, ShortOutage[]>();
  private readonly flapReported = new Map<string, number>();
  private reporter: OutageReporter = async () => null;
  private lookup: OpenOutageLookup = async () => [];
  private readonly now: () => number;
  private owner = false;
  private lastRead: number | undefined;
  private state: OutageWatchHealth = { state: 'stopped', line: 'outage watch: not started' };
  private polling: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private holdMs = 3 * 60_000;
  private intervalMs = 60_000;

  constructor(private readonly options: OutageWatchOptions) {
    this.now = options.now ?? Date.now;
  }

  /** Where events go (the Slack app), and how it finds the outages it reported after a takeover. */
  reportTo(reporter: OutageReporter, lookup: OpenOutageLookup): void {
    this.reporter = reporter;
    this.lookup = lookup;
  }

  health(): OutageWatchHealth {
    return this.state;
  }

  /** The outages this process knows to be in progress and reported (for tests and the Home tab's owner). */
  reported(): ReportedOutage[] {
    return [...this.open.values()].filter((e) => e.reported).map(({ key, outage, thread }) => ({ key, outage, thread }));
  }

  /** Polls every `intervalMs` until stopped; the first poll at once. */
  start(intervalMs: number): void {
    this.stop();
    this.intervalMs = intervalMs;
    this.holdMs = 3 * intervalMs;
    if (this.state.state === 'stopped') this.state = { state: 'standby', line: 'outage watch: starting' };
    const tick = () => void this.poll();
    this.timer = setInterval(tick, intervalMs);
    this.timer.unref();
    tick();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Gives up the watch for another process to take at its next poll (a stop). */
  async handOver(): Promise<void> {
    this.stop();
    await this.polling?.catch(() => undefined);
    if (this.owner) await this.options.claims.letGo(OUTAGE_WATCH_KEY).catch(() => undefined);
    this.owner = false;
  }

  /** One poll; a second call while one runs waits for it instead. Never rejects: what failed is logged and in `health()`. */
  poll(): Promise<void> {
    return (this.polling ??= this.pollOnce()
      .catch((error: unknown) => this.options.logger.error({ err: message(error) }, 'the outage watch failed; trying again next interval'))
      .finally(() => {
        this.polling = undefined;
      }));
  }

  private async pollOnce(): Promise<void> {
    const { logger } = this.options;
    const now = this.now();
    let owns: boolean;
    try {
      owns = await this.options.claims.hold(OUTAGE_WATCH_KEY, this.holdMs);
    } catch (error) {
      // Without the store nothing can be claimed, so nothing is reported: said once, like UISP failing.
      return this.failing(now, `the store does not answer (${message(error)})`);
    }
    if (!owns) {
      if (this.owner) logger.info('another SubOps process watches the outages now');
      this.owner = false;
      this.open.clear();
      this.lastRead = undefined;
      this.state = { state: 'standby', line: 'outage watch: another SubOps process polls UISP' };
      return;
    }
    if (!this.owner) {
      try {
        await this.takeOver();
      } catch (error) {
        // Not polled until the reported outages are known: else one of them could be reported twice.
        return this.failing(now, `could not find the outages already reported (${message(error)})`);
      }
      this.owner = true;
      logger.info({ open: this.open.size }, 'this process watches the outages');
    }
    const from = (this.lastRead ?? now - this.intervalMs) - OVERLAP_MS;
    let down: Outage[];
    let ended: Outage[];
    try {
      [down, ended] = await Promise.all([this.options.nms.outages({ inProgress: true }), this.options.nms.outages({ haveEnded: true, start: from, period: Math.max(MIN_PERIOD_MS, now - from) })]);
    } catch (error) {
      if (error instanceof UispNotFoundError) {
        // What this UISP is (the interface document lists no outages), not a fault: said once, as the NMS filters are.
        if (this.state.state !== 'unavailable') logger.info("UISP's NMS does not serve GET /outages (404): outages are not watched");
        this.state = { state: 'unavailable', line: "outage watch: UISP's NMS does not serve GET /outages" };
        return;
      }
      return this.failing(now, `UISP not answering (${message(error)})`);
    }
    if (this.state.state === 'failing') logger.info({ since: this.state.since }, 'the outage watch reads UISP again; catching up');
    this.state = { state: 'watching', line: 'outage watch: polling UISP' };
    // The first poll of a start or a takeover: what ended before it happened while no SubOps watched (the digest's).
    const watchedBefore = this.lastRead !== undefined;
    this.lastRead = now;
    await this.follow(outagesBySite(down), ended, now, watchedBefore);
  }

  /** UISP or the store failing: said once in the log, and in `health()` until a poll succeeds. */
  private failing(now: number, why: string): void {
    if (this.state.state !== 'failing') {
      this.options.logger.warn({ why }, 'the outage watch cannot read; nothing is reported until it can');
      this.state = { state: 'failing', since: new Date(now).toISOString(), line: `outage watch: ${why} since ${new Date(now).toISOString()}` };
    }
  }

  /** After a takeover or a start: the outages the front end reported and did not mark recovered are open again. */
  private async takeOver(): Promise<void> {
    const found = await this.lookup();
    this.open.clear();
    for (const reported of found) this.open.set(siteKeyOf(reported.outage), { ...reported, reported: true });
  }

  private async follow(down: SiteOutage[], endedItems: Outage[], now: number, watchedBefore: boolean): Promise<void> {
    const downBySite = new Map(down.map((outage) => [siteKeyOf(outage), outage]));
    const endedBySite = this.endedBySite(endedItems);
    for (const [site, outage] of downBySite) if (!this.open.has(site)) this.open.set(site, { key: keyOf(outage), outage, thread: null, reported: false });
    for (const [site, episode] of [...this.open]) {
      if (downBySite.has(site)) continue;
      this.open.delete(site);
      this.closed.set(episode.key, now);
      const end = await this.endOf(episode, endedBySite.get(site), now);
      if (episode.reported) await this.report({ kind: 'ended', key: episode.key, outage: episode.outage, thread: episode.thread, ...end }, `outage-ended:${episode.key}`);
      else this.countShort(episode.outage, Date.parse(episode.outage.since), Date.parse(end.end));
    }
    // Outages that began and ended between two polls: short ones count towards flapping; a longer one
    // (read after UISP failed to answer for a while) is reported, begun and ended, as it was, unless no
    // SubOps was watching when it ended (the first poll after a start or a takeover): the digest has it.
    for (const [site, spans] of endedBySite) {
      for (const span of spans) {
        const key = keyOf(span.outage);
        if (this.closed.has(key) || this.open.get(site)?.key === key) continue;
        this.closed.set(key, now);
        if (span.end - span.start < this.options.minMs) this.countShort(span.outage, span.start, span.end);
        else if (watchedBefore && await this.reportBegan({ key, outage: span.outage, thread: null, reported: false })) {
          await this.report({ kind: 'ended', key, outage: span.outage, thread: null, end: new Date(span.end).toISOString(), endKnown: true }, `outage-ended:${key}`);
        }
      }
    }
    for (const episode of this.open.values()) {
      if (!episode.reported && now - Date.parse(episode.outage.since) >= this.options.minMs) await this.reportBegan(episode);
    }
    for (const [site, spans] of this.short) await this.reportFlapping(site, spans, now);
    for (const [key, at] of this.closed) if (now - at > FLAP_WINDOW_MS) this.closed.delete(key);
  }

  /** The ended items by site, each with its start and end (ms). */
  private endedBySite(items: Outage[]): Map<string, { outage: SiteOutage; start: number; end: number }[]> {
    const bySite = new Map<string, { outage: SiteOutage; start: number; end: number }[]>();
    for (const item of items) {
      if (item.inProgress || !item.endTimestamp) continue;
      const [outage] = outagesBySite([item]);
      const spans = bySite.get(siteKeyOf(outage!)) ?? [];
      spans.push({ outage: outage!, start: Date.parse(item.startTimestamp), end: Date.parse(item.endTimestamp) });
      bySite.set(siteKeyOf(outage!), spans);
    }
    return bySite;
  }

  /**
   * When an outage no longer in progress ended: the latest end UISP lists for its site since it began
   * (this poll's read, else the site's own: an outage found open after a takeover may have ended long ago);
   * else now, said as not known.
   */
  private async endOf(episode: Episode, spans: { start: number; end: number }[] | undefined, now: number): Promise<{ end: string; endKnown: boolean }> {
    const since = Date.parse(episode.outage.since);
    const latest = (found: { end: number }[]) => found.reduce<number | undefined>((at, span) => (at === undefined || span.end > at ? span.end : at), undefined);
    let end = latest((spans ?? []).filter((span) => span.end >= since));
    if (end === undefined && episode.outage.site) {
      try {
        const items = await this.options.nms.outages({ siteId: episode.outage.site.id, haveEnded: true, start: since, period: Math.max(MIN_PERIOD_MS, now - since) });
        end = latest(items.flatMap((item) => (item.endTimestamp ? [{ end: Date.parse(item.endTimestamp) }] : [])).filter((span) => span.end >= since));
      } catch (error) {
        this.options.logger.info({ err: message(error), key: episode.key }, 'could not read when an outage ended; its recovery says when SubOps saw it');
      }
    }
    return end === undefined ? { end: new Date(now).toISOString(), endKnown: false } : { end: new Date(end).toISOString(), endKnown: true };
  }

  /** Reports an outage that began, with whom it affects as read now; whether it is reported (now or before). */
  private async reportBegan(episode: Episode): Promise<boolean> {
    const claim = await this.claim(`outage-began:${episode.key}`);
    if (claim === 'held') return false;
    if (claim === 'done') {
      // Reported before (by a process whose messages the takeover did not find): its thread is not known.
      episode.reported = true;
      return true;
    }
    try {
      const [outage] = await this.options.outages.withAffected([episode.outage]);
      const thread = await this.reporter({ kind: 'began', key: episode.key, outage: outage! });
      episode.thread = thread ?? null;
      episode.reported = true;
      await claim.done(KEEP_MS).catch((error: unknown) => this.options.logger.warn({ err: message(error), key: episode.key }, 'could not record a reported outage in the store'));
      return true;
    } catch (error) {
      await claim.release().catch(() => undefined);
      this.options.logger.warn({ err: message(error), key: episode.key }, 'could not report an outage; trying again next poll');
      return false;
    }
  }

  /** Reports an event once across processes; a failure releases its claim, for the next poll to try. */
  private async report(event: Exclude<OutageEvent, { kind: 'began' }>, claimKey: string): Promise<void> {
    const claim = await this.claim(claimKey);
    if (claim === 'held' || claim === 'done') return;
    try {
      await this.reporter(event);
      await claim.done(KEEP_MS).catch(() => undefined);
    } catch (error) {
      await claim.release().catch(() => undefined);
      this.options.logger.warn({ err: message(error), key: event.key, kind: event.kind }, 'could not report an outage event');
    }
  }

  private async claim(key: string) {
    try {
      const outcome = await this.options.claims.claim(key);
      return outcome.won ? outcome.claim : outcome.state;
    } catch (error) {
      this.options.logger.warn({ err: message(error), key }, 'could not claim an outage report in the store; trying again next poll');
      return 'held' as const;
    }
  }

  private countShort(outage: SiteOutage, start: number, end: number): void {
    const site = siteKeyOf(outage);
    const spans = this.short.get(site) ?? [];
    spans.push({ outage, start, end });
    this.short.set(site, spans);
  }

  /** A site whose short outages within the window reach FLAP_TIMES: reported once per window, with their total. */
  private async reportFlapping(site: string, spans: ShortOutage[], now: number): Promise<void> {
    const recent = spans.filter((span) => now - span.end <= FLAP_WINDOW_MS);
    if (recent.length === 0) {
      this.short.delete(site);
      return;
    }
    this.short.set(site, recent);
    if (recent.length < FLAP_TIMES || (this.flapReported.get(site) ?? 0) > now) return;
    const first = Math.min(...recent.map((span) => span.start));
    this.flapReported.set(site, first + FLAP_WINDOW_MS);
    const { outage } = recent.at(-1)!;
    const downMs = recent.reduce((sum, span) => sum + (span.end - span.start), 0);
    await this.report({ kind: 'flapping', key: `${site}@${first}`, outage, times: recent.length, downMs, windowMs: FLAP_WINDOW_MS }, `outage-flapping:${site}@${first}`);
  }
}
