/**
 * The Slack app's composition root: builds the Bolt App from injected services and settings, and
 * `serve`, which `npm start` / `subops serve` run. Socket Mode when SLACK_APP_TOKEN is set, otherwise
 * Bolt's HTTP receiver on PORT at /slack/events, verifying every request's signature.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { App } from '@slack/bolt';
import type { Logger } from 'pino';
import { connect } from './connect.js';
import { parseFlags } from './cli/args.js';
import { EXIT, untilSignal, writeLine, type CliIo } from './cli/io.js';
import { ConfigError, loadAppConfig, type SlackConfig } from './config.js';
import * as commands from './commands/index.js';
import * as actions from './listeners/actions/index.js';
import * as views from './listeners/views/index.js';
import { DEFAULT_SERVICE_STATUSES, statusLabel, type ServiceStatusTable } from './services/activation/service-status.js';
import type { Services } from './services/container.js';
import { accessGuard, createAccessPolicy } from './slack/access.js';
import { errorSummary } from './slack/errors.js';
import { createAuditor } from './slack/audit.js';
import type { ListenerDeps } from './slack/deps.js';
import { boltLogger, createLogger } from './slack/logging.js';

export interface AppDeps {
  services: Pick<Services, 'activation' | 'suspensions' | 'payments'>;
  slack: SlackConfig;
  logger: Logger;
  /** CRM service status numbers (SERVICE_STATUS_*), for naming statuses in Slack. */
  statuses?: ServiceStatusTable;
}

export function createApp({ services, slack, logger, statuses = DEFAULT_SERVICE_STATUSES }: AppDeps): App {
  const clientOptions = {
    ...(slack.apiUrl && { slackApiUrl: `${slack.apiUrl}/` }),
    // A few quick retries, not the default half hour: progress is rendered while the workflow runs,
    // and a Slack outage must not hold UISP writes hostage. Rate limits still wait out Retry-After.
    retryConfig: { retries: 2, factor: 2, minTimeout: 250, maxTimeout: 2_000 },
  };
  const app = slack.appToken
    ? // installerOptions.clientOptions is how the Socket Mode client (apps.connections.open) gets the API URL too.
      new App({ token: slack.botToken, appToken: slack.appToken, socketMode: true, clientOptions, installerOptions: { clientOptions }, logger: boltLogger(logger) })
    : new App({ token: slack.botToken, signingSecret: slack.signingSecret ?? '', clientOptions, logger: boltLogger(logger) });

  const access = createAccessPolicy({ allowedUserIds: slack.allowedUserIds, allowedUsergroupId: slack.allowedUsergroupId, client: app.client, logger });
  if (access.open) logger.warn('Neither ALLOWED_USER_IDS nor ALLOWED_USERGROUP_ID is set: every member of the workspace may run SubOps commands.');
  if (!slack.auditChannelId) logger.warn('AUDIT_CHANNEL_ID is not set: audit records go to the log only.');
  app.use(accessGuard(access, logger));

  const deps: ListenerDeps = {
    services,
    audit: createAuditor({ client: app.client, channelId: slack.auditChannelId, logger }),
    logger,
    statusLabel: (status) => statusLabel(status, statuses),
  };
  commands.register(app, deps);
  views.register(app, deps);
  actions.register(app, deps);
  app.error(async (error) => {
    const original = (error as { original?: unknown }).original ?? error;
    logger.error({ err: original instanceof Error ? original : errorSummary(original) }, 'unhandled error in a Slack listener');
  });
  return app;
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
instead (for trials; agents' changes then go nowhere). See README.md for every setting.`;

/** `npm start` / `subops serve`: exit code 2 for bad configuration (every problem listed, nothing connected). */
export async function serve(argv: string[], io: CliIo): Promise<number> {
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
  const logger = createLogger(config.core.logLevel, io.stdout);
  const connection = await connect(io.env, (line) => logger.warn(line));
  try {
    const app = createApp({ services: connection.services, slack: config.slack, logger, statuses: config.core.activation.statuses });
    let running: RunningApp;
    try {
      running = await startApp(app, config.slack);
    } catch (error) {
      writeLine(io.stderr, `Could not start the Slack app: ${errorSummary(error).slackError ?? errorSummary(error).message}`);
      return EXIT.failed;
    }
    logger.info(config.slack.appToken ? 'SubOps is connected to Slack (Socket Mode)' : `SubOps is listening on port ${running.port} at /slack/events`);
    await (io.untilStopped ?? untilSignal)();
    await running.stop();
    return EXIT.ok;
  } finally {
    await connection.close();
  }
}
