/**
 * `npm start` / `subops serve`: the bot process. Reads the configuration, checks Slack, builds the app
 * (src/app.ts) with the event services, serves until SIGINT/SIGTERM, then drains the work in flight.
 */
import { describeNumbering } from './services/activation/numbering.js';
import { SHARED_STATUSES } from './services/activation/service-status.js';
import type { RunningApp } from './app.js';
import { ConfigError, loadAppConfig } from './config.js';
import { parseFlags } from './process/flags.js';
import { EXIT, SERVE_EXIT, untilSignal, writeLine, type ProcessIo } from './process/io.js';
import type { EventServices } from './services/events/index.js';
import type { RunningListener } from './services/events/http-listener.js';
import type { HealthProbe as HealthProbeType } from './slack/health.js';
import { errorSummary } from './slack/errors.js';
import { createLogger, prettyDestination } from './logging.js';
import { checkSlack, StartupError } from './slack/startup.js';
import type { Logger } from 'pino';
import type { Store, StoreError, StoreSettings } from './store/index.js';
import { subopsVersion } from './version.js';

const SERVE_HELP = `Usage: subops serve [--simulator]

Runs the Slack app. Socket Mode when SLACK_APP_TOKEN is set; otherwise HTTP on PORT (default 3000)
at /slack/events, verifying requests with SLACK_SIGNING_SECRET. SLACK_BOT_TOKEN is always required.
UISP_URL is required; --simulator (or SUBOPS_SIMULATOR=1) runs against the bundled UISP simulator and
its sample data instead, whatever UISP_URL says (for trials; agents' changes then go nowhere). At start
it checks that Slack answers (retrying a few times), accepts SLACK_BOT_TOKEN and lets the bot post in
AUDIT_CHANNEL_ID. It refuses to start (exit 2) unless ALLOWED_USERGROUP_ID or ALLOWED_USER_IDS says who
may use it, or ALLOWED_EVERYONE=true opens it to the whole workspace. GET /healthz (readiness: whether
UISP and Slack are reachable), GET /livez (liveness: the process answers) and GET /metrics (Prometheus)
are served on OPS_HOST:OPS_PORT (default 127.0.0.1:9464), not on PORT. With WEBHOOK_TOKEN set, UISP
CRM webhooks are taken at POST /uisp/webhook (in Socket Mode on WEBHOOK_PORT, when set); without it
that endpoint is off. On SIGTERM it turns
new requests away, lets running operations finish for up to SHUTDOWN_GRACE_MS (default 25000), then exits.
A start it cannot make exits 78 when a restart cannot fix it, 75 when one may (docs/deployment.md).
Every setting: docs/configuration.md.`;

export interface ServeOptions {
  /** How start-up waits between attempts to reach Slack (tests pass one that does not wait). */
  sleep?: (ms: number) => Promise<void>;
}

/**
 * `npm start` / `subops serve`. Exit codes (SERVE_EXIT, for supervisors): 78 a problem a restart cannot
 * fix — bad configuration (every problem listed, nothing connected), Slack refused a token, AUDIT_CHANNEL_ID
 * unusable, the store held by another bot or in a folder it cannot use, a port in use; 75 Slack or the
 * database did not answer (a restart may help); 1 the shutdown grace period ran out with work in flight,
 * or an unexpected error; 0 stopped cleanly. Each fatal problem is one fatal log line (JSON on stdout,
 * like every other line), never a stack trace.
 */
export async function serve(argv: string[], io: ProcessIo, options: ServeOptions = {}): Promise<number> {
  // `--simulator` is the CLI's for every command (src/cli/main.ts): it arrives as SUBOPS_SIMULATOR=1.
  const { values } = parseFlags(argv, {});
  if (values.help) {
    writeLine(io.stdout, SERVE_HELP);
    return EXIT.ok;
  }
  let config: ReturnType<typeof loadAppConfig>;
  try {
    config = loadAppConfig(io.env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    // No settings to log with: the default ones (JSON on stdout), which every fatal line uses.
    return cannotStart(createLogger('info', io.stdout), error.message, { problems: error.problems });
  }
  let destination: Parameters<typeof createLogger>[1] = io.stdout;
  if (config.core.logFormat === 'pretty') {
    try {
      destination = await prettyDestination(io.stdout);
    } catch (error) {
      return cannotStart(createLogger(config.core.logLevel, io.stdout), (error as Error).message);
    }
  }
  const logger = createLogger(config.core.logLevel, destination);
  try {
    return await serveWith(config, logger, io, options);
  } catch (error) {
    logger.fatal({ err: error, exitCode: SERVE_EXIT.failed }, 'SubOps stopped on an unexpected error');
    return SERVE_EXIT.failed;
  }
}

/** One fatal log line saying why SubOps does not serve, and the exit code telling its supervisor whether to try again. */
function fatal(logger: Logger, exitCode: number, message: string, details: Record<string, unknown> = {}): number {
  logger.fatal({ ...details, exitCode }, message);
  return exitCode;
}

const cannotStart = (logger: Logger, message: string, details?: Record<string, unknown>) => fatal(logger, SERVE_EXIT.cannotStart, message, details);

/** A start-up error that says whether waiting may fix it (StartupError, StoreError): the code that tells. */
const exitFor = (error: { transient: boolean }) => (error.transient ? SERVE_EXIT.tryAgain : SERVE_EXIT.cannotStart);

async function serveWith(config: ReturnType<typeof loadAppConfig>, logger: Logger, io: ProcessIo, options: ServeOptions): Promise<number> {
  const { slack } = config;
  // Slack is asked while the app's modules load and the store opens (the checks need none of them:
  // src/slack/startup.ts); nothing listens, and nothing is connected, before all three are done.
  const [checked, loaded, opened] = await Promise.allSettled([checkSlack({ slack, logger, ...(options.sleep && { sleep: options.sleep }) }), loadServing(), openBotStore(config.store, logger)]);
  const store = opened.status === 'fulfilled' ? opened.value : undefined;
  if (checked.status === 'rejected' || loaded.status === 'rejected' || !store) {
    await store?.close();
    if (checked.status === 'rejected') {
      if (!(checked.reason instanceof StartupError)) throw checked.reason;
      return fatal(logger, exitFor(checked.reason), checked.reason.message);
    }
    if (loaded.status === 'rejected') throw loaded.reason;
    // An embedded store held by another bot, a folder it cannot write, a DATABASE_URL that does not answer.
    const reason = (opened as PromiseRejectedResult).reason as unknown;
    if (!(reason instanceof Error && reason.name === 'StoreError')) throw reason;
    return fatal(logger, exitFor(reason as StoreError), reason.message);
  }
  const identity = checked.value;
  const { auditWaitingIn, connect, createApp, createEventServices, EVENTS_PATH, HealthProbe, linkWatch, Metrics, startApp, startEventListener, startOpsListener, WEBHOOK_PATH, WorkTracker } = loaded.value;
  // A promise nobody awaited must not take down a bot serving a whole team: log it and keep serving.
  const onUnhandled = (reason: unknown) => logger.error({ err: errorSummary(reason) }, 'unhandled promise rejection; SubOps keeps running');
  let events: EventServices | undefined;
  const metrics = new Metrics(() => events?.links.pending().length ?? 0, async () => (await auditWaitingIn(store)()) ?? -1);
  // With DATABASE_URL, runs on a device or client take turns with the other replicas and CLI processes too.
  const connection = await connect(io.env, (line) => logger.warn(line), {
    observer: metrics.uispObserver,
    logger,
    // Answers are the same without the filters, only costlier on a large network: worth knowing, not a warning.
    nmsNotice: (line) => logger.info(line),
    keepSimulatorState: false,
    shareStore: false,
    ...(config.store.engine !== 'memory' && { sharedLocks: { claims: store.claims, onStoreError: (error: unknown) => logger.warn({ err: errorSummary(error) }, 'the store did not answer: this run takes turns within this process only') } }),
  });
  process.on('unhandledRejection', onUnhandled);
  let health: HealthProbeType | undefined;
  try {
    const work = new WorkTracker();
    const { ops: opsConfig } = config;
    // /healthz answers from one shared, cached probe with connections of its own (src/slack/health.ts).
    health = new HealthProbe({ uisp: connection.config.uisp, slack, logger });
    events = createEventServices({ services: connection.services, settings: config.events, statuses: SHARED_STATUSES, logger, metrics, work, claims: store.claims });
    const app = createApp({ services: connection.services, slack, logger, work, identity, events, health: opsConfig.healthzOnSlackPort ? health : undefined, store });
    let running: RunningApp;
    let listener: RunningListener | undefined;
    let ops: RunningListener;
    try {
      running = await startApp(app, slack);
    } catch (error) {
      const failure = startFailure(error, slack);
      return fatal(logger, failure.exitCode, failure.message);
    }
    try {
      if (slack.appToken) listener = await startEventListener(events);
    } catch (error) {
      await running.stop();
      return cannotStart(logger, `Could not listen on WEBHOOK_PORT ${config.events.webhookPort}: ${errorSummary(error).message}`);
    }
    try {
      ops = await startOpsListener({ health, work, metrics, auditWaiting: auditWaitingIn(store), outageWatch: () => events?.outages.health() }, opsConfig);
    } catch (error) {
      await listener?.close();
      await running.stop();
      return cannotStart(logger, `Could not listen on OPS_HOST ${opsConfig.host}, OPS_PORT ${opsConfig.port} (for /metrics, /healthz and /livez): ${errorSummary(error).message}`);
    }
    // Listen for the stop signal before saying it is listening: a SIGTERM right after that line still drains.
    const stopped = (io.untilStopped ?? untilSignal)();
    const opsAt = `/metrics, /healthz and /livez on ${opsConfig.host.includes(':') ? `[${opsConfig.host}]` : opsConfig.host}:${ops.port}`;
    const webhooksOn = config.events.webhookToken ? ` and ${WEBHOOK_PATH}` : '';
    // Which SubOps serves, in the line every start writes: a log read after an upgrade tells the versions apart.
    const build = { version: subopsVersion(), node: process.version };
    logger.info(
      build,
      `${
        slack.appToken
          ? `SubOps is connected to Slack (Socket Mode)${listener ? `; UISP webhooks at ${WEBHOOK_PATH} on port ${listener.port}` : ''}; ${opsAt}`
          : `SubOps is listening on port ${running.port} at ${EVENTS_PATH}${webhooksOn}${opsConfig.healthzOnSlackPort ? ' and /healthz' : ''}; ${opsAt}`
      } (SubOps ${build.version}, Node.js ${build.node})`,
    );
    // Which status numbering an activation replaces services by: set, or asked of the CRM once (off the start-up path).
    const numbering = connection.services.numbering.resolve().then((verdict) => logger.info({ numbering: verdict.numbering?.name ?? null }, `Service status numbering: ${describeNumbering(verdict)}`));
    const resumed = linkWatch.resume(app.client, { events, auditChannelId: slack.auditChannelId, logger, identity });
    // The outage watch: this process polls while it holds the watch in the store (another replica may).
    // Without a channel to post in it does not poll: a claim would say posted what nobody saw.
    if (config.events.outagesChannelId ?? slack.auditChannelId) events.outages.start(config.events.outagePollIntervalMs);
    logger.info(`SubOps state: ${storeName(config.store)}`);
    // Loaded only when configured, after the start-up line: start-up time is the same without a digest.
    const digest = config.digest && (await import('./slack/digest.js')).startDailyDigest({ client: app.client, identity, logger, work, settings: config.digest, timeZone: config.core.activation.timeZone, services: connection.services, auditChannelId: slack.auditChannelId, claims: store.claims });
    await stopped;

    logger.info({ inFlight: work.inFlight, graceMs: slack.shutdownGraceMs }, 'stopping: new requests are turned away while the operations in flight finish');
    // The start-up's own reads end first (each within UISP_DEADLINE_MS): nothing of them comes after "SubOps stopped", and no watch starts after its stop.
    await Promise.allSettled([numbering, resumed]);
    events.links.stop();
    // The watches this process held: the other replicas take them over at their next check.
    await Promise.all([events.links.handOver(), events.outages.handOver()]);
    digest?.stop();
    const drained = await work.drain(slack.shutdownGraceMs);
    if (!drained) logger.error({ inFlight: work.inFlight }, `stopped with ${work.inFlight} operation(s) still running after SHUTDOWN_GRACE_MS (${slack.shutdownGraceMs} ms); a retry converges where they stopped`);
    await listener?.close();
    await running.stop();
    await ops.close();
    logger.info('SubOps stopped');
    return drained ? SERVE_EXIT.stopped : SERVE_EXIT.failed;
  } finally {
    // The services first: they wait for the locks they let go in the store, which closes after them.
    await connection.close();
    await store.close();
    await health?.close();
    process.off('unhandledRejection', onUnhandled);
  }
}

/** What serving needs beyond configuration and the Slack checks; loaded while Slack answers them. */
async function loadServing() {
  const [app, linkWatch, connection, events, webhooks, metrics, work, health] = await Promise.all([
    import('./app.js'),
    import('./commands/link-watch/index.js'),
    import('./connect.js'),
    import('./services/events/index.js'),
    import('./services/events/webhook-endpoint.js'),
    import('./services/metrics.js'),
    import('./slack/work.js'),
    import('./slack/health.js'),
  ]);
  return { ...app, linkWatch, ...connection, ...events, WEBHOOK_PATH: webhooks.WEBHOOK_PATH, ...metrics, ...work, HealthProbe: health.HealthProbe };
}

/** The bot's store, open: an embedded one held against a second bot on its folder. */
async function openBotStore(settings: StoreSettings, logger: Logger): Promise<Store> {
  const { openStore, foreignClaimWarning } = await import('./store/index.js');
  const store = openStore(settings, { guardFolder: true, onForeignClaim: (found) => logger.warn({ key: found.key, state: found.state, until: found.until }, foreignClaimWarning(found)) });
  try {
    await store.ready();
  } catch (error) {
    await store.close();
    throw error;
  }
  return store;
}

/** Where the bot keeps its state, for the start-up log. */
function storeName(settings: StoreSettings): string {
  if (settings.engine === 'postgres') return 'PostgreSQL at DATABASE_URL';
  if (settings.engine === 'memory') return 'in memory (--simulator): nothing is kept';
  return `the embedded store in ${settings.dir} is open (CLI runs on this machine share it)`;
}

/** Why a receiver would not start (a port in use, Socket Mode refused), and whether a restart may help: only when Slack did not answer. */
function startFailure(error: unknown, slack: { appToken?: string | undefined; port: number }): { message: string; exitCode: number } {
  const { slackError, message } = errorSummary(error);
  // HTTP mode listens on PORT: a port taken or not allowed is that setting's problem.
  const code = (error as { code?: unknown } | null)?.code;
  if (!slack.appToken && (code === 'EADDRINUSE' || code === 'EACCES')) {
    return { message: `Could not listen on PORT ${slack.port}: ${code === 'EADDRINUSE' ? 'another process is using it' : 'not allowed for this user'}; set PORT to a free port.`, exitCode: SERVE_EXIT.cannotStart };
  }
  if (slackError === 'invalid_auth' || slackError === 'not_authed' || slackError === 'token_revoked') {
    return { message: `Slack refused SLACK_APP_TOKEN (${slackError}); generate an app-level token with connections:write under Basic Information → App-Level Tokens.`, exitCode: SERVE_EXIT.cannotStart };
  }
  return { message: `Could not start the Slack app: ${slackError ?? message}`, exitCode: slackError ? SERVE_EXIT.cannotStart : SERVE_EXIT.tryAgain };
}
