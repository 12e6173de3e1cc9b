/**
 * Work in flight survives a hard stop (issue #28 §4): an operation is recorded in the store while it
 * runs; when its process stops hard (here: it stops answering and renews nothing, as a killed process),
 * the next process to sweep says so in its thread once its lease has run out, with Retry where one makes
 * sense. A process that stops cleanly, or an operation that ended, leaves nothing to say.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { webApi } from '@slack/bolt';
import pino from 'pino';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { startFakeSlack, type FakeSlack } from '../../src/playground/fake-slack.js';
import { Metrics } from '../../src/services/metrics.js';
import { InFlightOperations } from '../../src/slack/in-flight.js';
import { operationCheck } from '../../src/slack/operation-check.js';
import { openStore, type Store } from '../../src/store/index.js';
import { testStore } from '../support/store.js';
import { AGENT, CHANNEL, inputs, shown, startHarness, suspendThroughSlack, type Harness } from './harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const LEASE_MS = 120_000;
const SITE_POSTS = /^\/nms\/api\/v2\.1\/sites$/;

describe('an activation whose process stopped hard', () => {
  it('is reported in its thread by the next process, with a Retry that finishes it there', async () => {
    let clock = Date.now();
    const harness = (h = await startHarness({ now: () => clock }));
    // The first process gets as far as creating the site, and never hears back: it is killed there.
    const sites = harness.uisp.sim.gate({ method: 'POST', path: SITE_POSTS });
    await harness.command('/activate', '10.20.1.88 ada lovelace');
    const { id } = await harness.openedView();
    await harness.submit(id, inputs({ device: '10.20.1.88', firstName: 'ada', lastName: 'lovelace' }));
    await sites.arrived(1);
    await harness.fake.waitFor('chat.postMessage', (call) => call.args.thread_ts !== undefined && String(call.args.text).includes('client'));
    const parent = harness.fake.messages(CHANNEL).find((m) => m.thread_ts === undefined)!;

    // Within the lease the run counts as alive: nothing is said. The next process is another one (its own locks).
    const next = await harness.replica({ ownServices: true });
    expect(await next.app.sweepInFlight()).toBe(0);
    clock += LEASE_MS;
    expect(await next.app.sweepInFlight()).toBe(1);
    const stopped = harness.fake.messages(CHANNEL).filter((m) => m.thread_ts === parent.ts && m.text.startsWith('SubOps stopped'));
    expect(stopped).toHaveLength(1);
    expect(shown(stopped[0]!)).toContain('*SubOps stopped* before this activation of *10.20.1.88* ended (its process was restarted, killed or stalled). UISP may hold more than this thread shows: *Retry* reads it and finishes what is missing.');
    expect(shown(stopped[0]!)).not.toContain('nothing after them');
    expect(shown(stopped[0]!)).toContain('"action_id":"activation_retry"');
    // Said once: a second sweep, by any process, finds nothing.
    expect(await next.app.sweepInFlight()).toBe(0);
    expect(await harness.app.sweepInFlight()).toBe(0);

    // Retry, pressed on that message, runs on the next process and converges in the same thread.
    await next.sender.blockAction({ userId: AGENT, actionId: 'activation_retry', message: stopped[0]! });
    await sites.arrived(2);
    await sites.release(1);
    await harness.fake.waitFor('chat.postMessage', (call) => call.args.thread_ts === parent.ts && String(call.args.text).includes('One manual step left'));
    await next.settled();
    expect(harness.uisp.writes().filter((w) => w === 'POST /crm/api/v1.0/clients')).toHaveLength(1);
    expect(harness.uisp.sim.data.sites.filter((s) => s.identification.name === 'Ada Lovelace')).toHaveLength(1);
    // The killed process's request is let go only so that the test can close (a killed process sends nothing more).
    sites.open();
  });

  it('an operation that ended leaves nothing behind: no sweep says anything, however late', async () => {
    let clock = Date.now();
    const harness = (h = await startHarness({ now: () => clock }));
    await suspendThroughSlack(harness, 101, 2);
    clock += 10 * LEASE_MS;
    const next = await harness.replica();
    expect(await next.app.sweepInFlight()).toBe(0);
    expect(harness.fake.messages(CHANNEL).some((m) => m.text.includes('SubOps stopped'))).toBe(false);
  });
});

/**
 * The store is storage, not authority (issue #37 §4). Whoever can write the store (DATABASE_URL, the
 * state folder) writes an operation row straight into it: the sweep rebuilds what it posts from SubOps'
 * own templates, only from a row SubOps recorded as it stands, only into that row's thread. Any other row
 * is set aside with a log line and a metric, never posted, and never holds back the rows after it.
 */
const engines = [
  {
    name: 'the embedded store',
    async open(now: () => number): Promise<Store> {
      const dir = await mkdtemp(join(tmpdir(), 'subops-in-flight-'));
      const store = openStore({ engine: 'embedded', dir }, { now });
      onTestFinished(() => store.close());
      return store;
    },
  },
  { name: 'PostgreSQL', open: (now: () => number): Promise<Store> => testStore({ now }) },
];

const SECRET = 'the-signing-secret';

/** An id one character away from `id` and never equal to it (a copy with the same id would replace the original row). */
const anotherId = (id: string): string => `${id.slice(0, -1)}${id.endsWith('0') ? '1' : '0'}`;
const THREAD = { channel: CHANNEL, ts: '1700000000.000100' };
const ELSEWHERE = 'C0ELSEWHERE';
const HOSTILE = '<!channel> *urgent* <https://evil.example/login|your session expired>';

/** A whole Slack message with a mention of everyone, a link and a Remove duplicate button of the writer's choosing. */
const forgedMessage = {
  text: `${HOSTILE}`,
  blocks: [
    { type: 'section', text: { type: 'mrkdwn', text: HOSTILE } },
    { type: 'actions', elements: [{ type: 'button', action_id: 'duplicate_remove', text: { type: 'plain_text', text: 'Remove duplicate' }, value: '{"record":"client","keptId":1001,"duplicateId":1002}' }] },
  ],
};

describe.each(engines)('rows written straight into the store, on $name (issue #37 §4)', (engine) => {
  let slack: FakeSlack;
  afterEach(async () => slack.close());

  async function sweeper() {
    let clock = 1_800_000_000_000;
    const now = () => clock;
    const store = await engine.open(now);
    slack = await startFakeSlack();
    const lines: Record<string, unknown>[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
    const metrics = new Metrics();
    const client = new webApi.WebClient('xoxb-test', { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } });
    const inFlight = new InFlightOperations({ operations: store.operations, client, logger, now, check: operationCheck(SECRET), onSetAside: () => metrics.inFlightSetAside() });
    return {
      store,
      inFlight,
      lines,
      metrics,
      advance: (ms: number) => (clock += ms),
      posted: () => slack.callsTo('chat.postMessage').map((call) => call.args),
      setAside: () => lines.filter((line) => String(line.msg).startsWith('an operation in flight in the store was set aside')),
    };
  }

  it('a row naming its own channel and carrying a whole message is set aside: nothing posted, a log line and a metric, and it is gone', async () => {
    const s = await sweeper();
    await s.store.operations.begin({ id: 'forged-1', channel: ELSEWHERE, threadTs: '1700000000.000200', ifStopped: forgedMessage, startedAt: 0 }, 0);
    s.advance(1);
    expect(await s.inFlight.sweep()).toBe(0);
    expect(s.posted()).toEqual([]);
    expect(s.setAside()).toHaveLength(1);
    expect(s.setAside()[0]).toMatchObject({ level: 40, id: 'forged-1' });
    expect(await s.metrics.render()).toContain('subops_in_flight_set_aside_total 1');
    // Gone: no later sweep, however late, finds it again.
    s.advance(10 * LEASE_MS);
    expect(await s.inFlight.sweep()).toBe(0);
    expect(s.posted()).toEqual([]);
    expect(s.setAside()).toHaveLength(1);
  });

  it("SubOps' own row, copied into another thread or given another notice, is set aside; the original is told in its own thread, rebuilt and escaped", async () => {
    const s = await sweeper();
    const notice = { kind: 'activation' as const, retry: { request: { device: HOSTILE, firstName: 'Ada', lastName: 'Lovelace' }, startedBy: AGENT, confirm: { deletes: [102] } } };
    const { operation } = s.inFlight.intent(THREAD, notice);
    await s.store.operations.begin(operation, 0);
    const { check } = operation.ifStopped as { check: string };
    // The same check on other places and other notices: another channel, another thread, more deletes, a message.
    const copies = [
      { ...operation, id: 'copy-channel', channel: ELSEWHERE },
      { ...operation, id: 'copy-thread', threadTs: '1700000000.000999' },
      { ...operation, id: anotherId(operation.id), ifStopped: { notice: { ...notice, retry: { ...notice.retry, confirm: { deletes: 'any' } } }, check } },
      { ...operation, id: 'copy-message', ifStopped: { notice: forgedMessage, check } },
    ];
    for (const copy of copies) await s.store.operations.begin(copy, 0);
    s.advance(1);

    expect(await s.inFlight.sweep()).toBe(1);
    expect(s.setAside()).toHaveLength(copies.length);
    expect(s.posted()).toHaveLength(1);
    const [told] = s.posted();
    expect(told).toMatchObject({ channel: CHANNEL, thread_ts: THREAD.ts });
    // What Slack renders (mrkdwn): the typed device is escaped text; the button's value is data, never rendered.
    const blocks = told!.blocks as { text?: { text: string }; elements?: { type: string; action_id: string; value: string; text: { text: string } | string }[] }[];
    const elements = blocks.flatMap((block) => block.elements ?? []);
    const buttons = elements.filter((element) => element.type === 'button');
    const rendered = [String(told!.text), ...blocks.map((block) => block.text?.text ?? ''), ...elements.filter((element) => element.type === 'mrkdwn').map((element) => element.text as string)].join('\n');
    expect(rendered).toContain('*SubOps stopped* before this activation of *&lt;!channel&gt;');
    expect(rendered).not.toContain('<!channel>');
    expect(rendered).not.toContain('<https://evil.example');
    expect(buttons.map((button) => (button.text as { text: string }).text)).toEqual(['Retry']);
    // Retry carries what SubOps recorded: the confirmed delete of #102, nothing more.
    const retry = buttons.find((button) => button.action_id === 'activation_retry')!;
    expect(JSON.parse(retry.value)).toMatchObject({ request: notice.retry.request, startedBy: AGENT, confirm: { deletes: [102] } });
  });

  it('however many rows that do not validate come first, one sweep tells the thread of the row SubOps recorded', async () => {
    const s = await sweeper();
    for (let n = 0; n < 120; n++) await s.store.operations.begin({ id: `forged-${n}`, channel: ELSEWHERE, threadTs: '1700000000.000200', ifStopped: forgedMessage, startedAt: n }, 0);
    await s.store.operations.begin(s.inFlight.intent(THREAD, { kind: 'suspension', action: 'suspend', serviceId: 101, clientId: 1001 }).operation, 0);
    s.advance(1);
    expect(await s.inFlight.sweep()).toBe(1);
    expect(s.posted()).toEqual([expect.objectContaining({ channel: CHANNEL, thread_ts: THREAD.ts, text: expect.stringContaining('*SubOps stopped* before this suspension of service #101 ended') })]);
    expect(await s.metrics.render()).toContain('subops_in_flight_set_aside_total 120');
  });

  it('a row recorded under another secret (a key rotated, or a forger guessing) is not posted', async () => {
    const s = await sweeper();
    const other = new InFlightOperations({ operations: s.store.operations, client: new webApi.WebClient('xoxb-test', { slackApiUrl: slack.apiUrl }), logger: pino({ level: 'silent' }), check: operationCheck('another-secret') });
    await s.store.operations.begin(other.intent(THREAD, { kind: 'approved-run', requester: AGENT, approver: 'U0LEAD' }).operation, 0);
    s.advance(1);
    expect(await s.inFlight.sweep()).toBe(0);
    expect(s.posted()).toEqual([]);
    expect(s.setAside()).toHaveLength(1);
  });
});
