/**
 * The Slack app's composition root: builds the Bolt App from injected services and settings, and
 * `serve`, which `npm start` / `subops serve` run. Socket Mode when SLACK_APP_TOKEN is set, otherwise
 * Bolt's HTTP receiver on PORT at /slack/events, verifying every request's signature.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { App, HTTPReceiver, webApi } from '@slack/bolt';
import type { Logger } from 'pino';
import { connect } from './connect.js';
import { parseFlags } from './cli/args.js';
import { EXIT, untilSignal, writeLine, type CliIo } from './cli/io.js';
import { ConfigError, loadAppConfig, type SlackConfig } from './config.js';
import * as commands from './commands/index.js';
import * as lookups from './commands/lookups/index.js';
import * as payments from './commands/payments/index.js';
import * as linkWatch from './commands/link-watch/index.js';
import * as home from './commands/home/index.js';
import * as typeahead from './commands/typeahead/index.js';
import * as uispChanges from './commands/uisp-changes/index.js';
import * as actions from './listeners/actions/index.js';
import * as views from './listeners/views/index.js';
import { DEFAULT_SERVICE_STATUSES, statusLabel, type ServiceStatusTable } from './services/activation/service-status.js';
import type { Services } from './services/container.js';
import { createEventServices, type EventServices } from './services/events/index.js';
import { startHttpListener, type RunningListener } from './services/events/http-listener.js';
import { WEBHOOK_PATH, webhookRoute } from './services/events/webhook-endpoint.js';
import { Metrics } from './services/metrics.js';
import { countingFetch } from './slack/api-errors.js';
import { accessGuard, createAccessPolicy } from './slack/access.js';
import { errorSummary } from './slack/errors.js';
import { createAuditor } from './slack/audit.js';
import { DeliveryLog, dropRedeliveries } from './slack/deliveries.js';
import type { ListenerDeps } from './slack/deps.js';
import { HEALTH_TIMEOUT_MS, healthRoute } from './slack/health.js';
import { guardInbound } from './slack/inbound.js';
import { checkSlack, StartupError, type BotIdentity } from './slack/startup.js';
import { trackWork, WorkTracker } from './slack/work.js';
import { boltLogger, createLogger } from './slack/logging.js';

export interface AppDeps {
  services: Pick<Services, 'activation' | 'suspensions' | 'payments' | 'lookups' | 'crm' | 'nms'>;
  slack: SlackConfig;
  /** UISP webhooks, the manual-link watch and metrics (the bot process; tests that exercise them). */
  events?: EventServices | undefined;
  logger: Logger;
  /** CRM service status numbers (SERVICE_STATUS_*), for naming statuses in Slack. */
  statuses?: ServiceStatusTable;
  /** Counts the work in flight: pass one to wait for the app to settle (tests) or to drain it (SIGTERM). */
  work?: WorkTracker;
  /**
   * The bot's ids, from checkSlack(): with them Bolt never runs auth.test on its own, whose failure
   * would be an unhandled rejection instead of a clear start-up error.
   */
  identity: BotIdentity;
}

const EVENTS_PATH = '/slack/events';

export function createApp({ services, slack, logger, statuses = DEFAULT_SERVICE_STATUSES, work = new WorkTracker(), identity, events }: AppDeps): App {
  const metrics = events?.metrics;
  const clientOptions = {
    ...(slack.apiUrl && { slackApiUrl: `${slack.apiUrl}/` }),
    ...(metrics && { fetch: countingFetch((method, error) => metrics.slackApiError(method, error)) }),
    // A few quick retries, not the default half hour: progress is rendered while the workflow runs,
    // and a Slack outage must not hold UISP writes hostage. Rate limits still wait out Retry-After.
    retryConfig: { retries: 2, factor: 2, minTimeout: 250, maxTimeout: 2_000 },
  };
  const common = { token: slack.botToken, clientOptions, logger: boltLogger(logger), ...identity };
  const app = slack.appToken
    ? // installerOptions.clientOptions is how the Socket Mode client (apps.connections.open) gets the API URL too.
      new App({ ...common, appToken: slack.appToken, socketMode: true, installerOptions: { clientOptions } })
    : new App({ ...common, receiver: httpReceiver({ services, slack, logger, work, events }) });

  const access = createAccessPolicy({ allowedUserIds: slack.allowedUserIds, allowedUsergroupId: slack.allowedUsergroupId, client: app.client, logger });
  if (access.open) logger.warn('Neither ALLOWED_USER_IDS nor ALLOWED_USERGROUP_ID is set: every member of the workspace may run SubOps commands.');
  if (!slack.auditChannelId) logger.warn('AUDIT_CHANNEL_ID is not set: audit records go to the log only.');
  const deliveries = new DeliveryLog();
  // Order matters: work is counted (and refused while draining) before anything else runs.
  app.use(trackWork(work, logger));
  app.use(dropRedeliveries(deliveries, logger));
  app.use(accessGuard(access, logger));

  const deps: ListenerDeps = {
    services,
    audit: createAuditor({ client: app.client, channelId: slack.auditChannelId, logger, ...(metrics && { sinks: [metrics.auditSink] }) }),
    logger,
    statusLabel: (status) => statusLabel(status, statuses),
    deliveries,
    auditChannelId: slack.auditChannelId,
    events,
  };
  commands.register(app, deps);
  views.register(app, deps);
  actions.register(app, deps);
  lookups.register(app, deps);
  payments.register(app, deps);
  uispChanges.register(app, deps);
  linkWatch.register(app, deps);
  home.register(app, deps);
  typeahead.register(app, deps);
  app.error(async (error) => {
    const original = (error as { original?: unknown }).original ?? error;
    logger.error({ err: original instanceof Error ? original : errorSummary(original) }, 'unhandled error in a Slack listener');
  });
  return app;
}

/** Bolt's HTTP receiver behind the inbound gate (malformed requests get a 400), with GET /healthz, and with events POST /uisp/webhook and GET /metrics. */
function httpReceiver({ services, slack, logger, work, events }: Pick<AppDeps, 'services' | 'slack' | 'logger' | 'events'> & { work: WorkTracker }): HTTPReceiver {
  const signingSecret = slack.signingSecret ?? '';
  const probeClient = new webApi.WebClient(slack.botToken, {
    ...(slack.apiUrl && { slackApiUrl: `${slack.apiUrl}/` }),
    retryConfig: { retries: 0 },
    timeout: HEALTH_TIMEOUT_MS,
    rejectRateLimitedCalls: true,
    logger: boltLogger(logger),
  });
  const receiver = new HTTPReceiver({
    signingSecret,
    endpoints: [EVENTS_PATH],
    logger: boltLogger(logger),
    customRoutes: [{ path: '/healthz', method: 'GET', handler: healthRoute({ services, slackClient: probeClient, work }) }, ...(events ? eventRoutes(events) : [])],
  });
  receiver.requestListener = guardInbound(receiver.requestListener, { signingSecret, endpoints: [EVENTS_PATH], logger });
  return receiver;
}

/** POST /uisp/webhook and GET /metrics: on the bot's server in HTTP mode, on WEBHOOK_PORT in Socket Mode. */
function eventRoutes(events: EventServices) {
  return [
    { path: WEBHOOK_PATH, method: 'POST' as const, handler: webhookRoute({ processor: events.webhooks, token: events.settings.webhookToken }) },
    ...(events.metrics ? [{ path: '/metrics', method: 'GET' as const, handler: events.metrics.route() }] : []),
  ];
}

/**
 * Socket Mode has no server of its own: with WEBHOOK_PORT set, a small listener serves the event
 * routes. `listen.host` as for startApp.
 */
export async function startEventListener(events: EventServices, listen: { host?: string } = {}): Promise<RunningListener | undefined> {
  if (events.settings.webhookPort === undefined) return undefined;
  return startHttpListener(eventRoutes(events), { port: events.settings.webhookPort, host: listen.host });
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

const SERVE_HELP = `Usage: subops serve [--simulator]

Runs the Slack app. Socket Mode when SLACK_APP_TOKEN is set; otherwise HTTP on PORT (default 3000)
at /slack/events, verifying requests with SLACK_SIGNING_SECRET. SLACK_BOT_TOKEN is always required.
UISP_URL is required; --simulator runs against the bundled UISP simulator and its sample data
instead (for trials; agents' changes then go nowhere). At start it checks that Slack answers (retrying
a few times), accepts SLACK_BOT_TOKEN and lets the bot post in AUDIT_CHANNEL_ID. In HTTP mode GET /healthz
says whether UISP and Slack are reachable. UISP CRM webhooks are taken at POST /uisp/webhook and
Prometheus metrics served at GET /metrics (in Socket Mode on WEBHOOK_PORT, when set). On SIGTERM it turns
new requests away, lets running operations finish for up to SHUTDOWN_GRACE_MS (default 25000), then exits.
See README.md for every setting.`;

export interface ServeOptions {
  /** How start-up waits between attempts to reach Slack (tests pass one that does not wait). */
  sleep?: (ms: number) => Promise<void>;
}

/**
 * `npm start` / `subops serve`. Exit codes: 2 bad configuration (every problem listed, nothing
 * connected); 1 Slack refused, unreachable, AUDIT_CHANNEL_ID unusable, or the shutdown grace period
 * ran out with work in flight — each one line on stderr, never a stack trace; 0 stopped cleanly.
 */
export async function serve(argv: string[], io: CliIo, options: ServeOptions = {}): Promise<number> {
  const { values } = parseFlags(argv, { simulator: { type: 'boolean' } });
  if (values.help) {
    writeLine(io.stdout, SERVE_HELP);
    return EXIT.ok;
  }
  let config: ReturnType<typeof loadAppConfig>;
  try {
    config = loadAppConfig(io.env, { simulator: values.simulator ?? false });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    writeLine(io.stderr, error.message);
    return EXIT.usage;
  }
  const { slack } = config;
  const logger = createLogger(config.core.logLevel, io.stdout);
  // A promise nobody awaited must not take down a bot serving a whole team: log it and keep serving.
  const onUnhandled = (reason: unknown) => logger.error({ err: errorSummary(reason) }, 'unhandled promise rejection; SubOps keeps running');
  let events: EventServices | undefined;
  const metrics = new Metrics(() => events?.links.pending().length ?? 0);
  const connection = await connect(io.env, (line) => logger.warn(line), { observer: metrics.uispObserver });
  process.on('unhandledRejection', onUnhandled);
  try {
    let identity: BotIdentity;
    try {
      identity = await checkSlack({ slack, logger, ...(options.sleep && { sleep: options.sleep }) });
    } catch (error) {
      if (!(error instanceof StartupError)) throw error;
      writeLine(io.stderr, error.message);
      return EXIT.failed;
    }
    const work = new WorkTracker();
    const statuses = config.core.activation.statuses;
    events = createEventServices({ services: connection.services, settings: config.events, statuses, logger, metrics, work });
    const app = createApp({ services: connection.services, slack, logger, statuses, work, identity, events });
    let running: RunningApp;
    let listener: RunningListener | undefined;
    try {
      running = await startApp(app, slack);
    } catch (error) {
      writeLine(io.stderr, startFailure(error));
      return EXIT.failed;
    }
    try {
      if (slack.appToken) listener = await startEventListener(events);
    } catch (error) {
      writeLine(io.stderr, `Could not listen on WEBHOOK_PORT ${config.events.webhookPort}: ${errorSummary(error).message}`);
      await running.stop();
      return EXIT.failed;
    }
    logger.info(
      slack.appToken
        ? `SubOps is connected to Slack (Socket Mode)${listener ? `; UISP webhooks at ${WEBHOOK_PATH} and metrics at /metrics on port ${listener.port}` : ''}`
        : `SubOps is listening on port ${running.port} at ${EVENTS_PATH}, ${WEBHOOK_PATH} and /metrics`,
    );
    void linkWatch.resume(app.client, { events, auditChannelId: slack.auditChannelId, logger });
    await (io.untilStopped ?? untilSignal)();

    logger.info({ inFlight: work.inFlight, graceMs: slack.shutdownGraceMs }, 'stopping: new requests are turned away while the operations in flight finish');
    events.links.stop();
    const drained = await work.drain(slack.shutdownGraceMs);
    if (!drained) logger.error({ inFlight: work.inFlight }, `stopped with ${work.inFlight} operation(s) still running after SHUTDOWN_GRACE_MS (${slack.shutdownGraceMs} ms); a retry converges where they stopped`);
    await listener?.close();
    await running.stop();
    logger.info('SubOps stopped');
    return drained ? EXIT.ok : EXIT.failed;
  } finally {
    await connection.close();
    process.off('unhandledRejection', onUnhandled);
  }
}

/** One line for a receiver that would not start: a port in use, or Socket Mode refused. */
function startFailure(error: unknown): string {
  const { slackError, message } = errorSummary(error);
  if (slackError === 'invalid_auth' || slackError === 'not_authed' || slackError === 'token_revoked') {
    return `Slack refused SLACK_APP_TOKEN (${slackError}); generate an app-level token with connections:write under Basic Information → App-Level Tokens.`;
  }
  return `Could not start the Slack app: ${slackError ?? message}`;
}
