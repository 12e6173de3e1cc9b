/**
 * The whole Slack app over real loopback HTTP: the UISP simulator behind the services layer, the fake
 * Slack Web API behind SLACK_API_URL, and the Bolt app on Bolt's HTTP receiver, driven by signed
 * requests. Tests assert what Slack was asked to show (fake.calls, fake.messages) and what UISP was
 * asked to do (sim.requests). The fake is the playground's (src/playground/fake-slack.ts): one fake of
 * the Web API for the demo and every test. `settled()` waits for the app's own work counter, never a
 * quiet period.
 */
import { SHARED_STATUSES } from '../../src/services/activation/service-status.js';
import { afterEach, expect } from 'vitest';
import { createApp, startApp, startOpsListener, type SubOpsApp } from '../../src/app.js';
import type { RunningListener } from '../../src/services/events/http-listener.js';
import { HealthProbe, type HealthProbeOptions } from '../../src/slack/health.js';
import { loadAppConfig, type Env } from '../../src/config.js';
import { startFakeSlack, type FakeSlack, type FakeSlackOptions, type RecordedCall, type SlackFileObject } from '../../src/playground/fake-slack.js';
import { SlackSender, type SlackReply, type ViewStateValues } from '../../src/playground/slack-sender.js';
import type { SimulatorOptions } from '../../src/simulator/index.js';
import { createServices, type Services } from '../../src/services/container.js';
import { createEventServices, type EventServices } from '../../src/services/events/index.js';
import { Metrics } from '../../src/services/metrics.js';
import * as linkWatch from '../../src/commands/link-watch/index.js';
import { createLogger } from '../../src/slack/logging.js';
import { checkSlack, type BotIdentity } from '../../src/slack/startup.js';
import { WorkTracker } from '../../src/slack/work.js';
import { UispGate } from '../support/uisp-gate.js';
import { startUisp, type UispFixture } from '../support/uisp.js';
import { crm } from '../simulator/helpers.js';
import { postgresStore, type PostgresStore } from '../support/store.js';
import type { Store } from '../../src/store/index.js';

export const SIGNING_SECRET = 'test-signing-secret-0123456789abcdef';
export const BOT_TOKEN = 'xoxb-test-bot-token';
export const CHANNEL = 'C0SUPPORT';
export const AUDIT_CHANNEL = 'C0AUDIT';
export const AGENT = 'U0AGENT';
/** WEBHOOK_TOKEN of a harness with `events` (unless `env` sets another, or '' to leave the endpoint off). */
export const WEBHOOK_TOKEN = 'test-webhook-token-7f3a-91c4e0';

export interface HarnessOptions {
  /** Extra SLACK_* / access settings, e.g. ALLOWED_USER_IDS (without ALLOWED_USER_IDS or ALLOWED_USERGROUP_ID: ALLOWED_EVERYONE=true). */
  env?: Env;
  fakeSlack?: FakeSlackOptions;
  simulator?: SimulatorOptions;
  /** Park the app's UISP requests until `h.gate.release()`: what happens before UISP answers, without latency. */
  gateUisp?: boolean;
  /**
   * Run UISP webhooks (the simulator posts its webhooks to the app), the manual-link watch and metrics,
   * on this clock (ms); WEBHOOK_TOKEN and LINK_* settings come from `env`.
   */
  events?: { now?: () => number };
  /** The /healthz probe's timeout, cache interval and clock. */
  health?: Pick<HealthProbeOptions, 'timeoutMs' | 'cacheMs' | 'now'>;
  /** The clock approval requests expire on (ms); expired ones are swept only when a test calls `app.sweepApprovals()`. */
  now?: () => number;
}

/** Another SubOps process on the same UISP and Slack (a second replica), with a sender of its own. */
export interface Replica {
  app: SubOpsApp;
  sender: SlackSender;
  /** With the harness's `events`: the replica's webhook processor and link watch. */
  events: EventServices | undefined;
  /** Where UISP would post webhooks to this replica (with the token). */
  webhookUrl: string;
  settled(): Promise<void>;
  stop(): Promise<void>;
}

export interface Harness {
  uisp: UispFixture;
  fake: FakeSlack;
  /** SubOps in Slack, as checked at start: its ids, and the bot's seal on its records. */
  identity: BotIdentity;
  sender: SlackSender;
  /** The app's HTTP origin, e.g. http://127.0.0.1:PORT (events at /slack/events; /uisp/webhook with events). */
  origin: string;
  /** The ops listener's origin (GET /healthz, and GET /metrics with `events`), as OPS_HOST:OPS_PORT serves them. */
  opsOrigin: string;
  /** The shared /healthz probe. */
  health: HealthProbe;
  app: SubOpsApp;
  /** Starts another app on the same UISP, Slack and settings: a second replica. */
  replica(options?: { ownServices?: boolean }): Promise<Replica>;
  /** The app's work in flight: `work.idle()` resolves when everything it was asked has finished. */
  work: WorkTracker;
  /** Set with `gateUisp`. */
  gate: UispGate | undefined;
  /** Set with `events`: the webhook processor, the link watcher and the metrics the app uses. */
  events: EventServices | undefined;
  /** Set with `events`: stops the app and starts a new one on the same UISP and Slack, which resumes the link watch. */
  restart(): Promise<void>;
  /** Resolves when the app has finished all it was asked so far (replies, threads, audit). */
  settled(): Promise<void>;
  /** The first process's store: its schema on the test run's PostgreSQL (replicas share it). */
  store: PostgresStore;
  /** Every pino line the app logged, parsed. */
  logs: Record<string, unknown>[];
  /** Raw log output, to prove secrets never appear in it. */
  rawLog: () => string;
  command(command: string, text?: string, userId?: string): Promise<SlackReply>;
  /** Submits the view as the fake currently holds it (after opens and updates), with these input values. */
  submit(viewId: string, values: ViewStateValues, userId?: string): Promise<SlackReply>;
  /** The first views.open call matching `predicate`, and the view id it created. */
  openedView(predicate?: (call: RecordedCall) => boolean): Promise<{ id: string; view: Record<string, unknown> }>;
  /** Waits for the view to be updated to one with this callback_id and returns it. */
  viewBecomes(viewId: string, callbackId: string, textContains?: string): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const uisp = await startUisp({ simulator: options.simulator ?? {} });
  const fake = await startFakeSlack(options.fakeSlack);
  const lines: string[] = [];
  const logs: Record<string, unknown>[] = [];
  const logger = createLogger('debug', {
    write(line: string) {
      lines.push(line);
      logs.push(JSON.parse(line) as Record<string, unknown>);
    },
  });
  const { slack, events: eventSettings, ops } = loadAppConfig({
    UISP_URL: uisp.sim.url,
    UISP_TOKEN: uisp.sim.token,
    SLACK_BOT_TOKEN: BOT_TOKEN,
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    SLACK_API_URL: fake.apiUrl,
    AUDIT_CHANNEL_ID: AUDIT_CHANNEL,
    ...(options.events && { WEBHOOK_TOKEN }),
    // serve refuses to start without a list of who may use SubOps: a test that sets none opens it by name.
    ...(!options.env?.ALLOWED_USER_IDS && !options.env?.ALLOWED_USERGROUP_ID && { ALLOWED_EVERYONE: 'true' }),
    ...options.env,
  });
  const gate = options.gateUisp ? new UispGate() : undefined;
  let events: EventServices | undefined;
  const metrics = options.events ? new Metrics(() => events?.links.pending().length ?? 0, async () => stores[0]!.outbox.count()) : undefined;
  const ownServices: Services | undefined = gate
    ? createServices(uisp.config, { dispatcher: gate.dispatcher })
    : metrics
      ? createServices(uisp.config, { observer: metrics.uispObserver })
      : undefined;
  const services = ownServices ?? uisp.services;
  const identity = await checkSlack({ slack, logger });
  const now = options.events?.now;
  // Each process (the app, each replica, the app after a restart) has its own store on one database.
  const storeClock = { ...((now ?? options.now) && { now: now ?? options.now }) };
  const stores: Store[] = [];
  const closeLater: (() => Promise<void>)[] = [];
  const openProcessStore = async (): Promise<Store> => {
    const store = await postgresStore({ ...storeClock, ...(stores[0] && { schema: (stores[0] as PostgresStore).schema }) });
    stores.push(store);
    return store;
  };
  let work = new WorkTracker();
  const health = new HealthProbe({ uisp: uisp.config.uisp, slack, logger, ...options.health });
  const launch = async () => {
    const store = await openProcessStore();
    events = options.events ? createEventServices({ services, settings: eventSettings, statuses: SHARED_STATUSES, logger, metrics, work, claims: store.claims, ...(now && { now }) }) : undefined;
    const app = createApp({ services, slack, logger, work, identity, events, health: ops.healthzOnSlackPort ? health : undefined, approvalSweepMs: 0, storeSweepMs: 0, store, ...(options.now && { now: options.now }) });
    return { app, running: await startApp(app, slack, { port: 0, host: '127.0.0.1' }) };
  };
  const replicas: Replica[] = [];
  let { app, running } = await launch();
  let origin = `http://127.0.0.1:${running.port}`;
  const pointWebhooks = () => {
    const token = eventSettings.webhookToken;
    if (events) uisp.sim.setWebhookUrl(`${origin}/uisp/webhook${token ? `?token=${encodeURIComponent(token)}` : ''}`);
  };
  pointWebhooks();
  // Read at each request: a restart swaps the tracker.
  const currentWork = {
    get acceptingWork() {
      return work.acceptingWork;
    },
    get inFlight() {
      return work.inFlight;
    },
  };
  const opsListener: RunningListener = await startOpsListener({ health, work: currentWork, metrics, auditWaiting: () => stores[0]!.outbox.count(), outageWatch: () => events?.outages.health() }, { port: 0, host: '127.0.0.1' });
  const sender = new SlackSender({ url: `${origin}/slack/events`, signingSecret: SIGNING_SECRET, responseUrl: () => fake.responseUrl() });

  const harness: Harness = {
    uisp,
    fake,
    sender,
    origin,
    opsOrigin: `http://127.0.0.1:${opsListener.port}`,
    health,
    app,
    work,
    gate,
    events,
    async restart() {
      // A clean stop, as serve's on SIGTERM: the link watches it held are handed over.
      events?.links.stop();
      await events?.links.handOver();
      await events?.outages.handOver();
      await running.stop();
      work = new WorkTracker();
      ({ app, running } = await launch());
      origin = `http://127.0.0.1:${running.port}`;
      Object.assign(harness, { app, work, events, origin });
      harness.sender = new SlackSender({ url: `${origin}/slack/events`, signingSecret: SIGNING_SECRET, responseUrl: () => fake.responseUrl() });
      pointWebhooks();
      await linkWatch.resume(app.client, { events, auditChannelId: slack.auditChannelId, logger, identity }, now);
      events?.links.stop();
    },
    async replica({ ownServices: separate = false } = {}) {
      const replicaWork = new WorkTracker();
      const store = await openProcessStore();
      // By default replicas share the services (and their locks); `ownServices` makes them another process's.
      const replicaServices = separate ? createServices(uisp.config) : services;
      if (separate) closeLater.push(() => replicaServices.close());
      // With `events`, the replica takes UISP webhooks too (point the simulator at `webhookUrl`).
      const replicaEvents = options.events ? createEventServices({ services: replicaServices, settings: eventSettings, statuses: SHARED_STATUSES, logger, work: replicaWork, claims: store.claims, ...(now && { now }) }) : undefined;
      const app = createApp({ services: replicaServices, slack, logger, work: replicaWork, identity, approvalSweepMs: 0, storeSweepMs: 0, store, events: replicaEvents, ...(options.now && { now: options.now }) });
      const replicaRunning = await startApp(app, slack, { port: 0, host: '127.0.0.1' });
      const replicaOrigin = `http://127.0.0.1:${replicaRunning.port}`;
      const replica: Replica = {
        app,
        events: replicaEvents,
        webhookUrl: `${replicaOrigin}/uisp/webhook?token=${encodeURIComponent(eventSettings.webhookToken ?? '')}`,
        sender: new SlackSender({ url: `${replicaOrigin}/slack/events`, signingSecret: SIGNING_SECRET, responseUrl: () => fake.responseUrl() }),
        settled: () => replicaWork.idle(),
        stop: async () => {
          replicaEvents?.links.stop();
          replicaEvents?.outages.stop();
          await replicaRunning.stop();
        },
      };
      replicas.push(replica);
      return replica;
    },
    settled: () => work.idle(),
    store: stores[0] as PostgresStore,
    identity,
    logs,
    rawLog: () => lines.join(''),
    command: (command, text = '', userId = AGENT) => harness.sender.slashCommand({ command, text, userId, channelId: CHANNEL }),
    submit: (viewId, values, userId = AGENT) => harness.sender.viewSubmission({ userId, view: fake.views.get(viewId)!, values }),
    async openedView(predicate = () => true) {
      const call = await fake.waitFor('views.open', predicate);
      const view = call.response.view as Record<string, unknown>;
      return { id: String(view.id), view };
    },
    async viewBecomes(viewId, callbackId, textContains) {
      await fake.waitFor('views.update', (call) => {
        const view = call.args.view as { callback_id?: string };
        return call.args.view_id === viewId && view.callback_id === callbackId && (!textContains || JSON.stringify(view).includes(textContains));
      });
      return fake.views.get(viewId)!;
    },
    async close() {
      events?.links.stop();
      events?.outages.stop();
      for (const replica of replicas) await replica.stop();
      await running.stop();
      await opsListener.close();
      await health.close();
      await ownServices?.close();
      await gate?.close();
      await fake.close();
      await uisp.close();
      for (const store of stores) await store.close();
      for (const close of closeLater) await close();
    },
  };
  return harness;
}

/** Input values as Slack sends them in view.state.values. */
/** One harness per test: `start(options)` opens it, and it is closed after the test, whatever happened. */
export function harnessPerTest(): { start: (options?: HarnessOptions) => Promise<Harness> } {
  let current: Harness | undefined;
  afterEach(async () => {
    await current?.close();
    current = undefined;
  });
  return { start: async (options = {}) => (current = await startHarness(options)) };
}

export function inputs(values: Record<string, string>): ViewStateValues {
  return Object.fromEntries(Object.entries(values).map(([blockId, value]) => [blockId, { value: { type: 'plain_text_input', value } }]));
}

/** A file field (file_input) holding files the agent uploaded (`h.fake.addFile`), as Slack sends it in view.state.values. */
export function chosenFiles(blockId: string, ...files: SlackFileObject[]): ViewStateValues {
  return { [blockId]: { value: { type: 'file_input', files } } };
}

export function selected(actionId: string, value: string): Record<string, unknown> {
  return { [actionId]: { type: 'static_select', selected_option: { text: { type: 'plain_text', text: value }, value } } };
}

/** A typeahead field (external_select) pre-filled with this value, as JSON.stringify shows it in a view. */
export function preselected(value: string): string {
  return `"initial_option":{"text":{"type":"plain_text","text":"${value}","emoji":true},"value":"${value}"}`;
}

/** Every mrkdwn text of a message, joined: what a person reads. */
export function shown(message: { text?: string; blocks?: unknown[] }): string {
  return JSON.stringify(message.blocks ?? []) + (message.text ?? '');
}

type ButtonElement = { type: string; action_id: string; value?: string; text: { text: string } };
type ShownMessage = { blocks?: unknown[] } & Record<string, unknown>;

/** Every button of a message by its text; an Open button, or a text seen before, is followed by the button's value. */
export function buttons(message: ShownMessage): Map<string, ButtonElement> {
  const found = new Map<string, ButtonElement>();
  for (const block of (message.blocks ?? []) as { elements?: ButtonElement[]; accessory?: ButtonElement }[]) {
    for (const element of [...(block.elements ?? []), block.accessory]) {
      if (element?.type !== 'button') continue;
      const label = element.text.text;
      found.set(found.has(label) || label === 'Open' ? `${label} ${element.value}` : label, element);
    }
  }
  return found;
}

/** Presses a button of an ephemeral answer (a response_url body) in CHANNEL, the way Slack sends it. */
export function press(harness: Harness, message: ShownMessage, text: string, userId = AGENT): Promise<SlackReply> {
  const pressed = buttons(message).get(text);
  if (!pressed) throw new Error(`no button "${text}" in ${[...buttons(message).keys()].join(', ')}`);
  const ts = '1700000000.000100';
  return harness.sender.blockAction({ userId, actionId: pressed.action_id, ...(pressed.value !== undefined && { value: pressed.value }), message: { ...message, ts }, channelId: CHANNEL, messageTs: ts });
}

/**
 * /suspend <serviceId> through the whole form (reason by id, then Confirm), waiting until the app, and
 * the webhooks the change sets off, have settled.
 */
export async function suspendThroughSlack(h: Harness, serviceId: number, reasonId: number): Promise<void> {
  await h.command('/suspend', String(serviceId));
  const { id } = await h.openedView();
  await h.fake.waitFor('views.update', (call) => JSON.stringify(call.args.view).includes('"block_id":"reason"'));
  await h.submit(id, { ...inputs({ service: String(serviceId) }), reason: selected('value', String(reasonId)) });
  await h.viewBecomes(id, 'suspension_confirm');
  await h.submit(id, {});
  await h.settled();
  await h.uisp.sim.webhooksSettled();
  await h.settled();
}

/** A change made in the UISP web interface (a CRM request), and everything it sets off, finished. */
export async function changeInUisp(harness: Harness, method: string, path: string, body?: unknown): Promise<void> {
  const answer = await crm(harness.uisp.sim, method, path, body);
  expect(answer.status, JSON.stringify(answer.body)).toBeLessThan(300);
  await harness.uisp.sim.webhooksSettled();
  await harness.settled();
}
