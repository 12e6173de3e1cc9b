/**
 * The whole bot on loopback, offline: the UISP simulator (sample data) behind the services layer, the
 * fake Slack Web API, and the Bolt app on its HTTP receiver with a fresh signing secret, reached by
 * signed requests. `npm run demo` chats with it in the terminal; the end-to-end tests drive the same.
 */
import { randomBytes } from 'node:crypto';
import type { DestinationStream } from 'pino';
import { createApp, startApp } from '../app.js';
import * as linkWatch from '../commands/link-watch/index.js';
import { WEBHOOK_PATH } from '../services/events/webhook-endpoint.js';
import { loadAppConfig, type Env } from '../config.js';
import { createServices } from '../services/container.js';
import { createEventServices, type EventServices } from '../services/events/index.js';
import type { OutageWatch } from '../services/events/outage-watch.js';
import { NUMBERINGS, SHARED_STATUSES, type ServiceNumbering } from '../services/activation/service-status.js';
import { startSimulator, worldFromEnv, type RunningSimulator, type SimulatorOptions } from '../simulator/index.js';
import { WORLD_FILTERS } from '../simulator/world.js';
import { createLogger } from '../slack/logging.js';
import { checkSlack } from '../slack/startup.js';
import { WorkTracker } from '../slack/work.js';
import { startFakeSlack, type FakeSlack } from './fake-slack.js';
import { SlackSender } from './slack-sender.js';
import type { ChatIdentity } from './terminal-chat.js';
import { openStore, type Store } from '../store/index.js';

/** The agent at the keyboard, the only user SubOps lets act. */
export const PLAYGROUND_AGENT: ChatIdentity = { id: 'U0AGENT', name: 'agent' };
/** A workspace member who is not on the allow-list. */
export const PLAYGROUND_VISITOR: ChatIdentity = { id: 'U0VISITOR', name: 'visitor' };
export const SUPPORT_CHANNEL: ChatIdentity = { id: 'C0SUPPORT', name: 'support' };
export const AUDIT_CHANNEL: ChatIdentity = { id: 'C0AUDIT', name: 'subops-audit' };

/** id -> name of everyone and everywhere in the playground workspace. */
export const PLAYGROUND_DIRECTORY = {
  users: Object.fromEntries([PLAYGROUND_AGENT, PLAYGROUND_VISITOR].map((user) => [user.id, user.name])),
  channels: Object.fromEntries([SUPPORT_CHANNEL, AUDIT_CHANNEL].map((channel) => [channel.id, channel.name])),
};

export interface PlaygroundOptions {
  /**
   * Settings as the environment gives them (ISP_TIMEZONE, SERVICE_PRICE…). Connection, Slack and
   * access settings are ignored: the playground never reaches a real UISP or Slack.
   */
  env?: Env;
  simulator?: SimulatorOptions;
  /** Where the app logs, at LOG_LEVEL from `env`; nowhere when not given. */
  log?: DestinationStream;
  /** SubOps' own state; by default this process's memory, gone at exit. */
  store?: Store;
  /**
   * Runs the bot's UISP side too, as `subops serve` does: the simulator's webhooks delivered to the bot,
   * the manual-link watch, and the outage watch polling every `outagePollMs` (the simulator then serves
   * GET /outages in either world).
   */
  events?: { outagePollMs: number };
}

export interface Playground {
  simulator: RunningSimulator;
  fake: FakeSlack;
  /** Signs with the app's signing secret, as Slack does. */
  sender: SlackSender;
  /** The simulator world's status numbering (the demo's sample tries name them). */
  statuses: ServiceNumbering;
  /** Resolves when the bot has finished everything it was asked so far (its work in flight is zero). */
  settled: () => Promise<void>;
  /** With `events`: the bot's outage watch (it posts in the audit channel) and OUTAGE_MIN_MINUTES in ms. */
  outages: { watch: OutageWatch; minMs: number } | undefined;
  close(): Promise<void>;
}

// Settings a caller's environment must not bring in: where UISP and Slack are (the playground's own
// simulator, whatever SUBOPS_SIMULATOR says; its channels, outages in the audit channel), and who may act.
const OWN_SETTINGS = /^(UISP_|SLACK_|ALLOWED_|AUDIT_CHANNEL_ID$|OUTAGES_CHANNEL_ID$|WEBHOOK_TOKEN$|WEBHOOK_PORT$|PORT$|SUBOPS_SIMULATOR$)/;

export async function startPlayground(options: PlaygroundOptions = {}): Promise<Playground> {
  const closers: (() => Promise<void>)[] = [];
  const close = async () => {
    for (const closer of closers.splice(0).reverse()) await closer();
  };
  try {
    const world = options.simulator?.world ?? worldFromEnv();
    const filters = options.events === undefined ? options.simulator?.filters : [...new Set([...(options.simulator?.filters ?? WORLD_FILTERS[world]), 'outages' as const])];
    const simulator = await startSimulator({ ...options.simulator, world, ...(filters && { filters }) });
    closers.push(() => simulator.close());
    // Before the app: the start-up check calls auth.test.
    const named = (names: Record<string, string>) => Object.fromEntries(Object.entries(names).map(([id, name]) => [id, { name }]));
    const fake = await startFakeSlack({ users: named(PLAYGROUND_DIRECTORY.users), channels: named(PLAYGROUND_DIRECTORY.channels) });
    closers.push(() => fake.close());

    const signingSecret = randomBytes(32).toString('hex');
    const settings = Object.fromEntries(Object.entries(options.env ?? {}).filter(([name]) => !OWN_SETTINGS.test(name)));
    // The webhook endpoint's token, new each run like the signing secret: only the playground's simulator knows it.
    const webhookToken = options.events === undefined ? undefined : randomBytes(24).toString('hex');
    const { core, slack, events: eventSettings } = loadAppConfig({
      ...settings,
      ...(webhookToken && { WEBHOOK_TOKEN: webhookToken }),
      UISP_URL: simulator.url,
      UISP_TOKEN: simulator.token,
      SLACK_BOT_TOKEN: `xoxb-fake-${randomBytes(12).toString('hex')}`, // for the fake Slack only, new each run
      SLACK_SIGNING_SECRET: signingSecret,
      SLACK_API_URL: fake.apiUrl,
      AUDIT_CHANNEL_ID: AUDIT_CHANNEL.id,
      ALLOWED_USER_IDS: PLAYGROUND_AGENT.id,
    });
    const services = createServices(core);
    closers.push(() => services.close());
    const work = new WorkTracker();
    const logger = createLogger(options.log ? core.logLevel : 'silent', options.log);
    // The same start-up check as `subops serve`, against the fake.
    const identity = await checkSlack({ slack, logger });
    const store = options.store ?? openStore({ engine: 'memory' });
    const events: EventServices | undefined = options.events === undefined ? undefined : createEventServices({ services, settings: eventSettings, statuses: SHARED_STATUSES, logger, work, claims: store.claims });
    const app = createApp({ services, slack, logger, work, identity, store, events });
    const running = await startApp(app, slack, { port: 0, host: '127.0.0.1' });
    closers.push(() => running.stop());
    if (events && webhookToken) {
      closers.push(async () => {
        simulator.setWebhookUrl(undefined);
        events.links.stop();
        await Promise.all([events.links.handOver(), events.outages.handOver()]);
      });
      simulator.setWebhookUrl(`http://127.0.0.1:${running.port}${WEBHOOK_PATH}?token=${webhookToken}`);
      await linkWatch.resume(app.client, { events, auditChannelId: slack.auditChannelId, logger, identity });
      events.outages.start(options.events!.outagePollMs);
    }

    return {
      simulator,
      fake,
      sender: new SlackSender({ url: `http://127.0.0.1:${running.port}/slack/events`, signingSecret, responseUrl: () => fake.responseUrl() }),
      statuses: NUMBERINGS[simulator.world],
      settled: () => work.idle(),
      outages: events && { watch: events.outages, minMs: eventSettings.outageMinMs },
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
