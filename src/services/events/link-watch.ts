/**
 * The manual CRM–NMS link, watched to the end. After an activation SubOps watches the new site until
 * someone links it to the CRM client by hand (the NMS site then carries the CRM binding): each interval
 * asks NMS for the pending sites by id (`GET /sites?id=…&ucrmDetails=true`, one request per 40 of them),
 * so a check costs what is pending, not what the network is big (issue #38). A linked site is bound, so it
 * is read by its id rather than looked for among the sites not bound. A linked site is reported and
 * forgotten; one that stays unlinked for `reminderMs` gets one reminder.
 *
 * After a restart `rebuild` finds the pending sites again in UISP among the endpoint sites not bound to
 * the CRM (`GET /sites?type=endpoint&ucrm=false`: those carrying SubOps' marker) and asks the front end where each one's activation was shown (the Slack app reads its audit
 * messages' metadata). Several processes may know the same pending site (replicas, a restarted one):
 * one at a time owns its watch, held in the store on a lease renewed at each check (three intervals
 * long); the others leave it alone until the owner hands it over (`handOver`, when it stops) or its lease
 * runs out (it died). Each "linked" and each reminder is also claimed before it is reported, so a
 * takeover in the middle of one never reports it twice.
 */
import type { Logger } from 'pino';
import { awaitsLink, markedClientId, siteOwnership } from '../sites.js';
import type { NetworkReads } from '../network.js';
import type { ClaimLedger } from '../../store/index.js';

/** Where an activation is shown, as the front end names it (a Slack channel and thread). */
export interface ThreadRef {
  channel: string;
  ts: string;
}

export interface PendingLink {
  siteId: string;
  siteName: string;
  clientId: number;
  /** The client's page in the CRM web interface, where the link is made. */
  crmClientUrl: string;
  /** Since when the link has been awaited (ms since the epoch): the activation, or the restart that found it. */
  since: number;
  thread: ThreadRef | null;
  reminded: boolean;
}

export type LinkEvent =
  | { kind: 'linked'; link: PendingLink; /** The CRM client the site is now bound to. */ boundClientId: number | null }
  | { kind: 'reminder'; link: PendingLink };

export type LinkListener = (event: LinkEvent) => Promise<void> | void;

/** What the front end knows of a site's activation: its thread, when it ran, whether the reminder was posted. */
export interface ActivationRecord {
  thread: ThreadRef;
  since: number;
  reminded: boolean;
}

export type ActivationLookup = (siteIds: string[]) => Promise<Map<string, ActivationRecord>>;

export interface LinkWatcherOptions {
  /** The NMS questions narrowed to the records asked for (../network.ts). */
  network: NetworkReads;
  logger: Logger;
  /** LINK_REMINDER_HOURS in ms. */
  reminderMs: number;
  crmClientUrl: (clientId: number) => string;
  /** The store's claims: which link events a SubOps process has reported. */
  claims: ClaimLedger;
  now?: () => number;
}

const ownerKey = (siteId: string) => `link-watch:${siteId}`;

/** How long a reported link event is remembered: well past any site's wait for its link. */
const KEEP_MS = 90 * 24 * 3_600_000;


export class LinkWatcher {
  private readonly links = new Map<string, PendingLink>();
  private readonly listeners: LinkListener[] = [];
  private readonly now: () => number;
  private checking: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  /** How long this process's hold on a watch lasts without a check: three check intervals. */
  private holdMs = 3 * 60_000;

  constructor(private readonly options: LinkWatcherOptions) {
    this.now = options.now ?? Date.now;
  }

  subscribe(listener: LinkListener): void {
    this.listeners.push(listener);
  }

  /** The links still awaited. */
  pending(): PendingLink[] {
    return [...this.links.values()];
  }

  /** Starts (or restarts) watching a site after an activation. */
  watch(link: { siteId: string; siteName: string; clientId: number; thread: ThreadRef | null }): void {
    this.links.set(link.siteId, { ...link, crmClientUrl: this.options.crmClientUrl(link.clientId), since: this.now(), reminded: false });
  }

  /**
   * After a restart: every site carrying SubOps' marker and no CRM binding is pending again, with its
   * thread, start and reminder as the front end recorded them (else: no thread, from now, not reminded).
   */
  async rebuild(lookup?: ActivationLookup): Promise<number> {
    const unlinked = (await this.options.network.sitesNotBound()).filter((site) => awaitsLink(site));
    let records = new Map<string, ActivationRecord>();
    try {
      if (lookup && unlinked.length) records = await lookup(unlinked.map((site) => site.id));
    } catch (error) {
      // Still watched; reported where the front end posts when it has no thread.
      this.options.logger.warn({ err: error instanceof Error ? error.message : String(error) }, 'could not find where the pending activations were shown; their link events go to the audit channel');
    }
    for (const site of unlinked) {
      if (this.links.has(site.id)) continue;
      const clientId = markedClientId(site)!;
      const record = records.get(site.id);
      this.links.set(site.id, {
        siteId: site.id,
        siteName: site.identification.name,
        clientId,
        crmClientUrl: this.options.crmClientUrl(clientId),
        since: record?.since ?? this.now(),
        thread: record?.thread ?? null,
        reminded: record?.reminded ?? false,
      });
    }
    return unlinked.length;
  }

  /** One look at UISP for every pending link; a second call while one runs waits for it instead. */
  check(): Promise<void> {
    return (this.checking ??= this.checkOnce().finally(() => {
      this.checking = undefined;
    }));
  }

  /** Checks every `intervalMs` until stopped. A failed check is logged; the next one tries again. */
  start(intervalMs: number): void {
    this.stop();
    this.holdMs = 3 * intervalMs;
    this.timer = setInterval(() => {
      this.check().catch((error: unknown) => this.options.logger.warn({ err: error instanceof Error ? error.message : String(error) }, 'could not check the manual CRM–NMS links; trying again next interval'));
    }, intervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Gives up every watch this process holds, for another process to take over at its next check (a stop). */
  async handOver(): Promise<void> {
    await Promise.all([...this.links.keys()].map((siteId) => this.options.claims.letGo(ownerKey(siteId)).catch(() => undefined)));
  }

  private async checkOnce(): Promise<void> {
    if (this.links.size === 0) return;
    const asked = new Set(this.links.keys());
    const sites = new Map((await this.options.network.sitesById(asked)).map((site) => [site.id, site]));
    for (const link of [...this.links.values()]) {
      // Watched while the sites were read: not asked for, so not "gone"; checked at the next interval.
      if (!asked.has(link.siteId)) continue;
      if (!(await this.owns(link.siteId))) continue;
      const site = sites.get(link.siteId);
      if (!site) {
        this.options.logger.info({ siteId: link.siteId }, 'a watched site is gone from the NMS: no longer watching its CRM link');
        await this.forget(link.siteId);
        continue;
      }
      const ownership = siteOwnership(site);
      if (ownership?.by === 'binding') {
        await this.forget(link.siteId);
        await this.emit({ kind: 'linked', link, boundClientId: ownership.clientId });
      } else if (!link.reminded && this.now() - link.since >= this.options.reminderMs) {
        link.reminded = true;
        await this.emit({ kind: 'reminder', link });
      }
    }
  }

  /** Stops watching a site and lets go of its watch: a process that still knows it finds it done at once. */
  private async forget(siteId: string): Promise<void> {
    this.links.delete(siteId);
    await this.options.claims.letGo(ownerKey(siteId)).catch(() => undefined);
  }

  /** Whether this process owns the site's watch now (taking or renewing it); a store that does not answer: it watches anyway. */
  private async owns(siteId: string): Promise<boolean> {
    try {
      return await this.options.claims.hold(ownerKey(siteId), this.holdMs);
    } catch {
      return true;
    }
  }

  /** Reports the event unless another process (or this one, before a restart) has; listeners' failures are logged. */
  private async emit(event: LinkEvent): Promise<void> {
    const key = `link-${event.kind}:${event.link.siteId}`;
    const log = this.options.logger.child({ siteId: event.link.siteId, kind: event.kind });
    let claimed;
    try {
      claimed = await this.options.claims.claim(key);
    } catch (error) {
      // Checked again next interval: a linked site is watched again, a reminder is still due.
      if (event.kind === 'linked') this.links.set(event.link.siteId, event.link);
      else event.link.reminded = false;
      return log.warn({ err: error instanceof Error ? error.message : String(error) }, 'could not claim a manual CRM–NMS link event in the store; trying again next check');
    }
    if (!claimed.won) return log.info('a manual CRM–NMS link event another SubOps process has reported: not reported again');
    for (const listener of this.listeners) {
      try {
        await listener(event);
      } catch (error) {
        log.error({ err: error instanceof Error ? error.message : String(error) }, 'could not report a manual CRM–NMS link event');
      }
    }
    await claimed.claim.done(KEEP_MS).catch((error: unknown) => log.warn({ err: error instanceof Error ? error.message : String(error) }, 'could not record a reported link event in the store'));
  }
}
