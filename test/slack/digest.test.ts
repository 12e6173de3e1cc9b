/**
 * The daily digest in Slack (issue #21 §3): the message a seeded day gives in the digest channel, built
 * from the simulator and from the audit channel of the loopback fake Slack; once per day across
 * replicas and restarts; and DIGEST_TIME read on ISP_TIMEZONE's clock. The schedule runs on a clock and
 * a timer the tests hold: nothing sleeps, each step waits on `settled()`.
 */
import { webApi } from '@slack/bolt';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeSlack, type FakeSlack } from '../../src/playground/fake-slack.js';
import { activationAudit, suspensionAudit } from '../../src/services/audit-records.js';
import { dayBoundsIn, daysBefore, instantIn, todayIn } from '../../src/services/dates.js';
import { buildDigest, type Digest } from '../../src/services/digest/build.js';
import { slackAuditSink } from '../../src/slack/audit.js';
import { startDailyDigest, startDigestSchedule, type DigestSchedule, type Timer } from '../../src/slack/digest.js';
import { createLateDuplicateNotices } from '../../src/slack/duplicate-notices.js';
import type { BotIdentity } from '../../src/slack/startup.js';
import { WorkTracker } from '../../src/slack/work.js';
import { DIGEST_EVENT_TYPE } from '../../src/views/digest.js';
import { changeMetadata, changeNotice, webhookFailedNotice } from '../../src/views/uisp-changes.js';
import { startUisp, type UispFixture } from '../support/uisp.js';
import { expectValidMessage } from './block-kit.js';
import { holdWrites, memoryClaims, testStore, type PostgresStore } from '../support/store.js';

const ZONE = 'America/Guyana';
const DIGEST = 'C0DIGEST';
const AUDIT = 'C0AUDIT';
const SUPPORT = 'C0SUPPORT';
const EIGHT = { hour: 8, minute: 0 };
const logger = pino({ level: 'silent' });

/** A timer the test fires: the schedule's next run waits here, with the delay it asked for. */
class HeldTimer implements Timer {
  next: { ms: number; run: () => void } | undefined;
  after(ms: number, run: () => void) {
    const entry = { ms, run };
    this.next = entry;
    return { cancel: () => this.next === entry && (this.next = undefined) };
  }
}

let fake: FakeSlack;
let client: webApi.WebClient;
let identity: BotIdentity;
let uisp: UispFixture | undefined;
const schedules: DigestSchedule[] = [];

beforeEach(async () => {
  fake = await startFakeSlack();
  client = new webApi.WebClient('xoxb-digest', { slackApiUrl: fake.apiUrl, retryConfig: { retries: 0 } });
  const auth = await client.auth.test();
  identity = { botId: auth.bot_id!, botUserId: auth.user_id!, appId: auth.app_id, workspaceUrl: auth.url };
});

afterEach(async () => {
  for (const schedule of schedules.splice(0)) schedule.stop();
  await uisp?.close();
  uisp = undefined;
  await fake.close();
});

/** The digest messages in the channel, as Slack shows them. */
const digests = () => fake.messages(DIGEST).filter((m) => (m.metadata as { event_type?: string } | undefined)?.event_type === DIGEST_EVENT_TYPE);
const shown = (message: { blocks?: unknown[] }) => JSON.stringify(message.blocks);

describe('the digest of a seeded day', () => {
  /**
   * The audit channel's messages get Slack's real ts, so the seeded day is today in Guyana and the
   * digest is posted tomorrow at 08:00 (the schedule's clock).
   */
  const today = todayIn(ZONE);
  const tomorrowAtEight = instantIn(daysBefore(today, -1), EIGHT, ZONE).getTime();

  async function seedDay() {
    uisp = await startUisp();
    const { data } = uisp.sim;
    const [cash, check] = data.paymentMethods;
    const { start } = dayBoundsIn(today, ZONE);
    const at = (hours: number) => `${new Date(start.getTime() + hours * 3_600_000).toISOString().slice(0, 19)}+0000`;
    const template = data.payments[0]!;
    data.payments.length = 0;
    data.payments.push(
      { ...template, id: 1, clientId: 1001, amount: 10_000, currencyCode: 'GYD', methodId: cash!.id, createdDate: at(9) },
      { ...template, id: 2, clientId: 1005, amount: 20_000, currencyCode: 'GYD', methodId: cash!.id, createdDate: at(11) },
      { ...template, id: 3, clientId: 1006, amount: 150, currencyCode: 'USD', methodId: check!.id, createdDate: at(23.5) },
      // The day before, 23:30 local: not this day's.
      { ...template, id: 4, clientId: 1006, amount: 99, currencyCode: 'GYD', methodId: check!.id, createdDate: at(-0.5) },
    );

    const sink = slackAuditSink(client, AUDIT);
    const threadOf = async (text: string) => {
      const parent = await client.chat.postMessage({ channel: SUPPORT, text });
      const { permalink } = await client.chat.getPermalink({ channel: SUPPORT, message_ts: parent.ts! });
      return { thread: { channel: SUPPORT, ts: parent.ts! }, permalink: permalink! };
    };
    const agent = { via: 'slack' as const, userId: 'U0AGENT' };
    const request = (device: string) => ({ device, firstName: 'Ada', lastName: 'Lovelace' });
    const failed = { outcome: 'failed', failedStep: 'site', error: { code: 'uisp', message: 'UISP answered 503' }, done: [], notDone: [] } as never;

    const done = await threadOf('activation of 10.20.1.88');
    await sink.write({ ...activationAudit(request('10.20.1.88'), { outcome: 'activated', device: { id: 'dev-88' }, client: { id: 1010 }, service: { id: 2001 }, site: { id: 'site-1' } } as never, 'Activated Ada Lovelace: service #2001, site "Ada Lovelace", device PowerBeam 5AC.'), actor: agent, ...done });
    const stuck = await threadOf('activation of 10.20.3.12');
    await sink.write({ ...activationAudit(request('10.20.3.12'), failed, 'Activation failed at the site step: UISP answered 503.'), actor: agent, ...stuck });
    // Failed, then retried from its thread with success: not listed as failed.
    const retried = await threadOf('activation of 10.20.1.51');
    await sink.write({ ...activationAudit(request('10.20.1.51'), failed, 'Activation failed at the service step.'), actor: agent, ...retried });
    await sink.write({ ...activationAudit(request('10.20.1.51'), { outcome: 'activated', device: { id: 'dev-51' }, client: { id: 1002 }, service: { id: 2002 }, site: { id: 'site-2' } } as never, 'Activated Priya Ramnarine: service #2002.'), actor: agent, ...retried });
    const service = (id: number, clientId: number, status: number) => ({ id, clientId, status, name: 'Standard Monthly' }) as never;
    await sink.write({ ...suspensionAudit({ kind: 'done', action: 'suspend', service: service(101, 1001, 1), after: service(101, 1001, 3) } as never, () => 'Suspended'), actor: agent });
    await sink.write({ ...suspensionAudit({ kind: 'done', action: 'unsuspend', service: service(104, 1005, 3), after: service(104, 1005, 1) } as never, () => 'Active'), actor: { via: 'cli', username: 'alice' } });

    const work = new WorkTracker();
    createLateDuplicateNotices({ client, channelId: AUDIT, logger, work, crmClientUrl: (id) => `https://uisp.example.net/crm/client/${id}`, claims: memoryClaims() }).post(
      [{ record: 'service', client: { id: 1004, name: 'Shanice Williams' }, kept: { id: 2003, name: 'Standard Monthly' }, others: [{ id: 2004, name: 'Standard Monthly' }] }],
      'activation',
    );
    await work.idle();
    // A suspension made in UISP itself (its change notice), and a webhook event SubOps gave up on.
    const suspendedInUisp = { change: { kind: 'service-suspended', service: { id: 103, clientId: 1003 }, client: null }, event: { uuid: 'c0ffee00-0000-4000-8000-000000000002' } } as never;
    await client.chat.postMessage({ channel: AUDIT, ...changeNotice(suspendedInUisp, { crmClientUrl: (id) => `https://uisp.example.net/crm/client/${id}` }), metadata: changeMetadata(suspendedInUisp) });
    await client.chat.postMessage({ channel: AUDIT, ...webhookFailedNotice({ uuid: 'c0ffee00-0000-4000-8000-000000000001', entity: 'payment' }) });

    const endpoint = data.sites.find((site) => site.identification.name === 'Marcus Baptiste')!;
    data.sites.push({
      ...structuredClone(endpoint),
      id: '9f8e7d6c-5b4a-4c3d-8e2f-1a0b9c8d7e6f',
      identification: { ...endpoint.identification, name: 'Ada Lovelace', id: '9f8e7d6c-5b4a-4c3d-8e2f-1a0b9c8d7e6f' },
      description: { ...endpoint.description, note: 'Created by SubOps for CRM client 1010 (activation 0a1b2c3d)', ucrmId: null },
      ucrm: { client: null, service: null },
    });
    return { done, stuck };
  }

  it('posts one message with every part: activations (linked to their threads), suspensions and lifts (in UISP too), payments per currency and per method, pending links, late duplicates, failed UISP events', async () => {
    const { done, stuck } = await seedDay();
    const timer = new HeldTimer();
    const schedule = startDailyDigest({ client, identity, logger, settings: { channelId: DIGEST, time: EIGHT }, timeZone: ZONE, services: uisp!.services, auditChannelId: AUDIT, now: () => tomorrowAtEight, timer, claims: memoryClaims() });
    schedules.push(schedule);
    await schedule.settled();

    const [message, ...others] = digests();
    expect(others).toEqual([]);
    expect(message!.text).toBe(`Daily digest for ${today}`);
    expectValidMessage({ text: message!.text, blocks: message!.blocks! });
    const text = shown(message!);
    expect(text).toContain('*Activations done (2)*');
    expect(text).toContain(`• Activated Ada Lovelace: service #2001, site \\"Ada Lovelace\\", device PowerBeam 5AC. — <@U0AGENT> · <${done.permalink}|thread>`);
    expect(text).toContain('• Activated Priya Ramnarine: service #2002.');
    expect(text).toContain('*Activations failed and not retried since (1)*');
    expect(text).toContain(`• Activation failed at the site step: UISP answered 503. — <@U0AGENT> · <${stuck.permalink}|thread>`);
    expect(text).not.toContain('Activation failed at the service step');
    expect(text).toContain('*Suspensions (2)*\\n• Service #101 of client #1001 — <@U0AGENT>\\n• Service #103 of client #1003 — in UISP');
    expect(text).toContain('*Suspensions lifted (1)*\\n• Service #104 of client #1005 — alice (CLI)');
    expect(text).toContain(
      '*Payments (3)*\\n• Total: 2 payments, GYD 30,000.00\\n• Total: 1 payment, USD 150.00\\n• Cash: 2 payments, GYD 30,000.00\\n• Check: 1 payment, USD 150.00',
    );
    expect(text).toContain('*Sites awaiting the manual CRM link (1)*\\n• NMS site \\"Ada Lovelace\\" of client #1010');
    expect(text).toContain(
      '*Needs a person (2)*\\n• Late duplicate service #2004 of client #1004 (kept #2003): see its notice in the audit channel\\n• UISP event c0ffee00-0000-4000-8000-000000000001 (payment) could not be processed: check the change in UISP',
    );
    // The next one is tomorrow's: due in 24 hours.
    expect(timer.next?.ms).toBe(24 * 3_600_000);
  });

  it('a day with nothing is one line', async () => {
    uisp = await startUisp();
    uisp.sim.data.payments.length = 0;
    const schedule = startDailyDigest({ client, identity, logger, settings: { channelId: DIGEST, time: EIGHT }, timeZone: ZONE, services: uisp.services, auditChannelId: AUDIT, now: () => tomorrowAtEight, timer: new HeldTimer(), claims: memoryClaims() });
    schedules.push(schedule);
    await schedule.settled();
    const [message] = digests();
    expect(message!.blocks).toEqual([
      expect.objectContaining({ type: 'section', text: { type: 'mrkdwn', text: `:zzz: Daily digest for ${today}: a quiet day. No activations, suspensions, lifted suspensions or payments, no site awaiting its CRM link, nothing for a person to look at.`, verbatim: true } }),
    ]);
  });
});

describe('once per day', () => {
  const DAY = '2025-03-04';
  const atLocal = (date: string, hour: number, minute = 0) => instantIn(date, { hour, minute }, ZONE).getTime();
  const quiet = (date: string): Digest => buildDigest({ date, timeZone: ZONE, day: dayBoundsIn(date, ZONE), payments: [], methods: [], awaitingLink: [], outages: null, trail: [] });

  // Every schedule is a process of its own on one store (the test run's PostgreSQL, a schema per test).
  let store: PostgresStore;
  beforeEach(async () => {
    store = await testStore();
  });
  const start = async (options: { now: () => number; read?: (date: string) => Promise<Digest>; timer?: Timer; client?: webApi.WebClient }) => {
    const { claims } = await testStore({ schema: store.schema });
    const schedule = startDigestSchedule({ client: options.client ?? client, identity, logger, channelId: DIGEST, time: EIGHT, timeZone: ZONE, read: options.read ?? (async (date) => quiet(date)), now: options.now, timer: options.timer ?? new HeldTimer(), claims });
    schedules.push(schedule);
    return schedule;
  };

  it('two replicas at the hour, claiming the day at the same moment: one reads UISP and posts, the other does nothing', async () => {
    const replica = new webApi.WebClient('xoxb-digest', { slackApiUrl: fake.apiUrl, retryConfig: { retries: 0 } });
    let reads = 0;
    const read = async (date: string) => (reads++, quiet(date));
    const now = () => atLocal('2025-03-05', 8);
    const claiming = await holdWrites(store.schema, 'claims');
    const a = start({ now, read });
    const b = start({ now, read, client: replica });
    await claiming.waiting(2);
    await claiming.release();
    await Promise.all([(await a).settled(), (await b).settled()]);

    expect(digests()).toHaveLength(1);
    expect(digests()[0]!.text).toContain(`Daily digest for ${DAY}: a quiet day.`);
    expect(reads).toBe(1);
    expect(fake.callsTo('chat.postMessage')).toHaveLength(1);
  });

  it('a restart after the hour posts the missing digest once; a replica started after that posts nothing', async () => {
    let reads = 0;
    const read = async (date: string) => (reads++, quiet(date));
    const restarted = await start({ now: () => atLocal('2025-03-05', 9, 30), read });
    await restarted.settled();
    expect(digests().map((m) => m.text)).toEqual([expect.stringContaining(`Daily digest for ${DAY}`)]);

    const later = await start({ now: () => atLocal('2025-03-05', 14), read });
    await later.settled();
    expect(digests()).toHaveLength(1);
    expect(fake.callsTo('chat.postMessage')).toHaveLength(1);
    // The later replica did not even read UISP.
    expect(reads).toBe(1);
  });

  it('a digest that could not be posted is tried again later, until it is', async () => {
    let now = atLocal('2025-03-05', 8);
    const timer = new HeldTimer();
    fake.failNext('chat.postMessage', { error: 'not_in_channel' });
    const schedule = await start({ now: () => now, timer });
    await schedule.settled();
    expect(digests()).toEqual([]);
    expect(timer.next?.ms).toBe(600_000);

    now += timer.next!.ms;
    timer.next!.run();
    await schedule.settled();
    expect(digests()).toHaveLength(1);
  });
});

describe('DIGEST_TIME on the ISP_TIMEZONE clock', () => {
  it('in Guyana (UTC−4) 08:00 is 12:00 UTC: nothing at 08:30 UTC, the previous local day at 12:00 UTC', async () => {
    let now = Date.parse('2025-03-05T08:30:00Z');
    const timer = new HeldTimer();
    const posted: string[] = [];
    const read = async (date: string) => (posted.push(date), buildDigest({ date, timeZone: ZONE, day: dayBoundsIn(date, ZONE), payments: [], methods: [], awaitingLink: [], outages: null, trail: [] }));
    const schedule = startDigestSchedule({ client, identity, logger, channelId: DIGEST, time: EIGHT, timeZone: ZONE, read, now: () => now, timer, claims: memoryClaims() });
    schedules.push(schedule);
    await schedule.settled();
    expect(digests()).toEqual([]);
    // 04:30 local: the digest is due in three and a half hours.
    expect(timer.next?.ms).toBe(3.5 * 3_600_000);

    now += timer.next!.ms;
    timer.next!.run();
    await schedule.settled();
    expect(posted).toEqual(['2025-03-04']);
    expect(digests().map((m) => m.text)).toEqual([expect.stringContaining('Daily digest for 2025-03-04')]);
  });

  it('just after local midnight (04:30 UTC, 00:30 local) the day before is not yet due: its digest waits for 08:00 local', async () => {
    const timer = new HeldTimer();
    const schedule = startDigestSchedule({ client, identity, logger, channelId: DIGEST, time: EIGHT, timeZone: ZONE, read: async () => expect.fail('nothing is due'), now: () => Date.parse('2025-03-05T04:30:00Z'), timer, claims: memoryClaims() });
    schedules.push(schedule);
    await schedule.settled();
    expect(fake.calls).toHaveLength(1); // auth.test in beforeEach
    expect(timer.next?.ms).toBe(7.5 * 3_600_000);
  });
});
