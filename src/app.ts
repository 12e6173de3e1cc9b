/**
 * The Slack app's composition root: builds the Bolt App from injected services and settings, one
 * register line per feature (src/commands/<feature>/). Socket Mode when SLACK_APP_TOKEN is set, otherwise
 * Bolt's HTTP receiver on PORT at /slack/events, verifying every request's signature. The process
 * around it (configuration, start-up checks, SIGTERM) is src/serve.ts.
 */
import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AckFirstApp } from './slack/ack-first.js';
import { App, HTTPReceiver } from './slack/bolt.js';
import type { Logger } from 'pino';
import { approvalsWithoutApprovers, type SlackConfig } from './config.js';
import * as activation from './commands/activation/index.js';
import * as approvals from './commands/approvals/index.js';
import { approvalSealOf } from './slack/approval-seal.js';
import * as duplicates from './commands/duplicates/index.js';
import * as help from './commands/help/index.js';
import * as lookups from './commands/lookups/index.js';
import * as payments from './commands/payments/index.js';
import * as linkWatch from './commands/link-watch/index.js';
import * as outages from './commands/outages/index.js';
import * as home from './commands/home/index.js';
import * as suspension from './commands/suspension/index.js';
import * as typeahead from './commands/typeahead/index.js';
import * as uispChanges from './commands/uisp-changes/index.js';
import type { Services } from './services/container.js';
import type { Store } from './store/index.js';
import type { EventServices } from './services/events/index.js';
import { startHttpListener, type RunningListener } from './services/events/http-listener.js';
import { WEBHOOK_PATH, webhookRoute } from './services/events/webhook-endpoint.js';
import { countingFetch } from './slack/api-errors.js';
import { AccessPolicy } from './services/access.js';
import { accessGuard } from './slack/access.js';
import { accessSettingsLine } from './slack/settings-line.js';
import { slackGroupMembers } from './slack/usergroups.js';
import { errorSummary } from './slack/errors.js';
import { createAuditor } from './slack/audit.js';
import { startOutboxDrain } from './slack/audit-outbox.js';
import { InFlightOperations } from './slack/in-flight.js';
import { operationCheck } from './slack/operation-check.js';
import { SheetRecords } from './slack/sheet-records.js';
import { botSecretOf } from './slack/record-seal.js';
import { DeliveryLog, dropRedeliveries } from './slack/deliveries.js';
import { createLateDuplicateNotices } from './slack/duplicate-notices.js';
import type { ListenerDeps } from './slack/deps.js';
import { healthRoute, livenessRoute, type AuditWaiting, type HealthProbe, type OutageWatchState } from './slack/health.js';
import type { Metrics } from './services/metrics.js';
import { guardInbound, routeFailures } from './slack/inbound.js';
import { boltLogger } from './slack/logging.js';
import type { BotIdentity } from './slack/startup.js';
import { createThreadReporter } from './slack/thread-reporter.js';
import { trackWork, WorkTracker } from './slack/work.js';

export interface AppDeps {
  services: Pick<Services, 'activation' | 'sheets' | 'suspensions' | 'payments' | 'lookups' | 'duplicates' | 'outages' | 'crm' | 'nms' | 'numbering'>;
  slack: SlackConfig;
  /** UISP webhooks, the manual-link watch and metrics (the bot process; tests that exercise them). */
  events?: EventServices | undefined;
  /**
   * With HEALTHZ_ON_SLACK_PORT: GET /healthz is also answered on PORT (HTTP mode), from this probe. The ops
   * listener (startOpsListener) serves /healthz and /metrics whatever this says.
   */
  health?: HealthProbe | undefined;
  logger: Logger;
  /** Counts the work in flight: pass one to wait for the app to settle (tests) or to drain it (SIGTERM). */
  work?: WorkTracker;
  /**
   * The bot's ids, from checkSlack(): with them Bolt never runs auth.test on its own, whose failure
   * would be an unhandled rejection instead of a clear start-up error; and what the app reads back
   * from Slack counts only when SubOps wrote it.
   */
  identity: BotIdentity;
  /** The clock approval requests expire on (tests move it); Date.now by default. */
  now?: () => number;
  /** How often expired approval requests are looked for (with approvals configured); 0: only when asked (tests). */
  approvalSweepMs?: number;
  /** SubOps' own state (src/store): what must happen once across replicas and restarts, approval decisions, audit records waiting for Slack. */
  store: Store;
  /**
   * How often audit records waiting in the store are posted, and operations left unfinished by a stopped
   * process are reported (this process's own leases renewed); 0: only when asked (tests).
   */
  storeSweepMs?: number;
}

/** The Bolt app; the approval expiry sweep, the audit outbox's drain and the sweep of operations left unfinished on demand (they also run on timers). */
export type SubOpsApp = App & { sweepApprovals(): Promise<number>; drainAudit(): Promise<number>; sweepInFlight(): Promise<number> };

export const EVENTS_PATH = '/slack/events';

export function createApp({ services, slack, logger, work = new WorkTracker(), identity, events, health, now = Date.now, approvalSweepMs = 60_000, store, storeSweepMs = 30_000 }: AppDeps): SubOpsApp {
  const metrics = events?.metrics;
  const clientOptions = {
    ...(slack.apiUrl && { slackApiUrl: `${slack.apiUrl}/` }),
    ...(metrics && { fetch: countingFetch((method, error) => metrics.slackApiError(method, error)) }),
    // A few quick retries, not the default half hour: progress is rendered while the workflow runs,
    // and a Slack outage must not hold UISP writes hostage. Rate limits still wait out Retry-After.
    retryConfig: { retries: 2, factor: 2, minTimeout: 250, maxTimeout: 2_000 },
  };
  const common = { token: slack.botToken, clientOptions, logger: boltLogger(logger), botId: identity.botId, botUserId: identity.botUserId };
  const app = slack.appToken
    ? // installerOptions.clientOptions is how the Socket Mode client (apps.connections.open) gets the API URL too.
      new AckFirstApp({ ...common, appToken: slack.appToken, socketMode: true, installerOptions: { clientOptions } })
    : new AckFirstApp({ ...common, receiver: httpReceiver({ slack, logger, work, events, health, auditWaiting: auditWaitingIn(store) }) });

  const access = new AccessPolicy(slack.access, slackGroupMembers({ client: app.client, logger }));
  const settingsLine = accessSettingsLine(slack.access, slack.approvals);
  logger.info(settingsLine.fields, settingsLine.message);
  const withoutApprovers = approvalsWithoutApprovers(slack);
  if (withoutApprovers) logger.warn(withoutApprovers);
  if (!slack.access.everyone) logger.warn('ALLOWED_EVERYONE=true: every member of the workspace may use SubOps (ACCESS_<ACTION> still limits each action).');
  if (!slack.auditChannelId) logger.warn('AUDIT_CHANNEL_ID is not set: audit records go to the log only.');
  if (events && !events.settings.webhookToken) logger.warn(`WEBHOOK_TOKEN is not set: the UISP webhook endpoint (${WEBHOOK_PATH}) is off, and changes made in UISP outside SubOps are not reported.`);
  const deliveries = new DeliveryLog();
  // Order matters: work is counted (and refused while draining) before anything else runs.
  app.use(trackWork(work, logger));
  app.use(dropRedeliveries(deliveries, store.claims, logger));
  app.use(accessGuard(access, logger));

  const audit = createAuditor({
    client: app.client,
    channelId: slack.auditChannelId,
    seal: identity.seal,
    workspaceUrl: identity.workspaceUrl,
    logger,
    store,
    ...(metrics && { sinks: [metrics.auditSink], onSetAside: () => metrics.auditRecordSetAside() }),
  });
  // Operations in flight are checked with a key from the bot's secret, which the bot always has (config requires one).
  const secret = botSecretOf(slack);
  const inFlight = secret ? new InFlightOperations({ operations: store.operations, client: app.client, logger, now, check: operationCheck(secret), ...(metrics && { onSetAside: () => metrics.inFlightSetAside() }) }) : undefined;
  const deps: ListenerDeps = {
    services,
    audit,
    reporter: createThreadReporter({ client: app.client, audit, work, inFlight }),
    logger,
    work,
    statusLabel: (status) => services.numbering.label(status),
    deliveries,
    lateDuplicates: createLateDuplicateNotices({ client: app.client, channelId: slack.auditChannelId, logger, work, crmClientUrl: (id) => services.activation.crmClientUrl(id), claims: store.claims }),
    auditChannelId: slack.auditChannelId,
    events,
    identity,
    access,
    approvals: { ...slack.approvals, now, seal: approvalSealOf(slack) },
    store,
    // Without the bot's secret (never, in serve) a key of this process's own: its sheets verify only in it.
    sheets: new SheetRecords(store.sheets, secret ?? randomBytes(32).toString('base64url'), now),
  };
  activation.register(app, deps);
  suspension.register(app, deps);
  payments.register(app, deps);
  lookups.register(app, deps);
  help.register(app, deps);
  uispChanges.register(app, deps);
  linkWatch.register(app, deps);
  outages.register(app, deps);
  home.register(app, deps);
  typeahead.register(app, deps);
  duplicates.register(app, deps);
  approvals.register(app, deps);
  app.error(async (error) => {
    const original = (error as { original?: unknown }).original ?? error;
    logger.error({ err: original instanceof Error ? original : errorSummary(original) }, 'unhandled error in a Slack listener');
  });
  // Expired approval requests are decided by the clock, on a timer stopped with the app.
  const watch = slack.approvals.settings.required.size && approvalSweepMs > 0 ? approvals.startApprovalWatch(app.client, deps, approvalSweepMs) : undefined;
  // Audit records kept while Slack did not take them: posted at start and every interval, in order.
  const outboxTimer = audit.outbox && storeSweepMs > 0 ? startOutboxDrain(audit.outbox, work, logger, storeSweepMs) : undefined;
  // Operations a process that stopped hard left mid-way: their threads are told, at start and every interval.
  if (storeSweepMs > 0) inFlight?.start(storeSweepMs, work);
  const stop = app.stop.bind(app);
  return Object.assign(app, {
    stop: async () => {
      watch?.stop();
      outboxTimer?.stop();
      inFlight?.stop();
      return stop();
    },
    sweepApprovals: () => approvals.sweepExpired(app.client, deps),
    drainAudit: async () => (audit.outbox ? audit.outbox.drain() : 0),
    sweepInFlight: async () => (inFlight ? inFlight.sweep() : 0),
  });
}

/** Bolt's HTTP receiver behind the inbound gate (malformed requests get a 400), with POST /uisp/webhook when WEBHOOK_TOKEN is set, and GET /healthz with HEALTHZ_ON_SLACK_PORT. */
function httpReceiver({ slack, logger, work, events, health, auditWaiting }: Pick<AppDeps, 'slack' | 'logger' | 'events' | 'health'> & { work: WorkTracker; auditWaiting: AuditWaiting }): HTTPReceiver {
  const signingSecret = slack.signingSecret ?? '';
  const receiver = new HTTPReceiver({
    signingSecret,
    endpoints: [EVENTS_PATH],
    logger: boltLogger(logger),
    dispatchErrorHandler: routeFailures(logger),
    customRoutes: [...(health ? [{ path: '/healthz', method: 'GET', handler: healthRoute(health, work, auditWaiting, events && (() => events.outages.health())) }] : []), ...(events ? webhookRoutes(events) : [])],
  });
  receiver.requestListener = guardInbound(receiver.requestListener, { signingSecret, endpoints: [EVENTS_PATH], logger });
  return receiver;
}

/** The audit records waiting in the store, or null while it is still opening: /healthz never waits for it. */
export function auditWaitingIn(store: Pick<Store, 'isOpen' | 'outbox'>): AuditWaiting {
  return async () => (store.isOpen() ? store.outbox.count() : null);
}

/** POST /uisp/webhook, only with WEBHOOK_TOKEN set: on the bot's server in HTTP mode, on WEBHOOK_PORT in Socket Mode. */
function webhookRoutes(events: EventServices) {
  const token = events.settings.webhookToken;
  if (!token) return [];
  return [{ path: WEBHOOK_PATH, method: 'POST' as const, handler: webhookRoute({ processor: events.webhooks, token, ratePerMinute: events.settings.webhookRatePerMinute }) }];
}

/**
 * Socket Mode has no server of its own: with WEBHOOK_PORT and WEBHOOK_TOKEN set, a small listener serves
 * the webhook route. `listen.host` as for startApp.
 */
export async function startEventListener(events: EventServices, listen: { host?: string } = {}): Promise<RunningListener | undefined> {
  if (events.settings.webhookPort === undefined || !events.settings.webhookToken) return undefined;
  return startHttpListener(webhookRoutes(events), { port: events.settings.webhookPort, host: listen.host, logger: events.logger });
}

/**
 * The ops listener: GET /healthz (readiness), GET /livez (liveness) and (with metrics) GET /metrics, on
 * OPS_HOST:OPS_PORT — loopback only by default, so none is public on the Slack port. Serves nothing else (404).
 */
export async function startOpsListener(
  { health, work, metrics, auditWaiting, outageWatch }: { health: HealthProbe; work: Pick<WorkTracker, 'acceptingWork' | 'inFlight'>; metrics?: Metrics | undefined; auditWaiting?: AuditWaiting | undefined; outageWatch?: OutageWatchState | undefined },
  listen: { port: number; host: string },
): Promise<RunningListener> {
  return startHttpListener(
    [{ path: '/healthz', method: 'GET', handler: healthRoute(health, work, auditWaiting, outageWatch) }, { path: '/livez', method: 'GET', handler: livenessRoute() }, ...(metrics ? [{ path: '/metrics', method: 'GET' as const, handler: metrics.route() }] : [])],
    listen,
  );
}

export interface RunningApp {
  /** The HTTP port actually listened on (useful with port 0); undefined in Socket Mode. */
  port: number | undefined;
  stop(): Promise<void>;
}

/**
 * Starts the receiver. `listen.host` defaults to every interface (Slack must reach a deployed app);
 * the playground and the tests pass 127.0.0.1 so nothing listens beyond loopback.
 */
export async function startApp(app: App, slack: Pick<SlackConfig, 'appToken' | 'port'>, listen: { port?: number; host?: string } = {}): Promise<RunningApp> {
  const stop = async () => {
    await app.stop();
  };
  if (slack.appToken) {
    await app.start();
    return { port: undefined, stop };
  }
  const { port = slack.port, host } = listen;
  const server = (await app.start(host ? { port, host } : port)) as Server;
  return { port: (server.address() as AddressInfo).port, stop };
}
