/**
 * UISP as the source of truth, for the bot process: the webhook processor, the manual-link watch and the outage watch,
 * built from the services layer and settings, with metrics when given. No Slack knowledge: the Slack
 * app subscribes to what they report (src/commands/uisp-changes, src/commands/link-watch).
 */
import type { Logger } from 'pino';
import type { EventsConfig } from '../../config.js';
import type { ServiceStatusTable } from '../activation/service-status.js';
import type { Services } from '../container.js';
import type { Metrics } from '../metrics.js';
import type { ClaimLedger } from '../../store/index.js';
import { LinkWatcher } from './link-watch.js';
import { OutageWatch } from './outage-watch.js';
import { WebhookProcessor } from './webhooks.js';

export interface EventServices {
  webhooks: WebhookProcessor;
  links: LinkWatcher;
  /** The outage watch (issue #40): polls the NMS while this process owns it. */
  outages: OutageWatch;
  settings: EventsConfig;
  metrics: Metrics | undefined;
  /** For the listener that serves the webhook route (a failing request is logged there). */
  logger: Logger;
}

export interface EventServicesOptions {
  services: Pick<Services, 'crm' | 'nms' | 'network' | 'ownChanges' | 'activation' | 'outages'>;
  settings: EventsConfig;
  statuses: ServiceStatusTable;
  logger: Logger;
  metrics?: Metrics | undefined;
  /** Counts the background work, so shutdown and tests wait for it (the Slack app's WorkTracker). */
  work?: { run(operation: () => Promise<void>): Promise<void>; readonly acceptingWork: boolean };
  /** Clock (ms), for tests. */
  now?: () => number;
  /** The store's claims: each webhook event and each link event handled once across processes. */
  claims: ClaimLedger;
}

export function createEventServices({ services, settings, statuses, logger, metrics, work, now, claims }: EventServicesOptions): EventServices {
  const webhooks = new WebhookProcessor({
    crm: services.crm,
    claims,
    ownChanges: services.ownChanges,
    statuses,
    logger,
    paymentWindowMs: settings.paymentWindowMs,
    // A source may have a minute's worth of its deliveries waiting: a flood from one address cannot fill the backlog.
    maxWaitingPerSource: settings.webhookRatePerMinute,
    ...(work && { track: (operation: () => Promise<void>) => work.run(operation), accepting: () => work.acceptingWork }),
    ...(metrics && { onOutcome: (entity: string, outcome: Parameters<Metrics['webhookEvent']>[1]) => metrics.webhookEvent(entity, outcome) }),
    ...(now && { now }),
  });
  const links = new LinkWatcher({
    network: services.network,
    logger: logger.child({ flow: 'link-watch' }),
    reminderMs: settings.linkReminderMs,
    crmClientUrl: (clientId) => services.activation.crmClientUrl(clientId),
    claims,
    ...(now && { now }),
  });
  const outages = new OutageWatch({
    nms: services.nms,
    outages: services.outages,
    claims,
    logger: logger.child({ flow: 'outage-watch' }),
    minMs: settings.outageMinMs,
    ...(now && { now }),
  });
  return { webhooks, links, outages, settings, metrics, logger };
}
