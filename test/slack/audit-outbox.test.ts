/**
 * No audit record lost when Slack does not take it (issue #28 §5): the record is kept in the store,
 * /healthz and the metric say how many wait, and they are posted in order once Slack takes them.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, inject, it, onTestFinished } from 'vitest';
import pino from 'pino';
import pg from 'pg';
import { webApi } from '@slack/bolt';
import type { AuditRecord } from '../../src/services/audit.js';
import { startFakeSlack } from '../../src/playground/fake-slack.js';
import { createAuditor } from '../../src/slack/audit.js';
import { outboxSink } from '../../src/slack/audit-outbox.js';
import { recordSeal } from '../../src/slack/record-seal.js';
import { Memory, openStore, storeOnKv, type Store } from '../../src/store/index.js';
import { testStore } from '../support/store.js';
import { runCli } from '../cli/support.js';
import { AGENT, AUDIT_CHANNEL, BOT_TOKEN, CHANNEL, changeInUisp, shown, startHarness, suspendThroughSlack, type Harness } from './harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const health = async (harness: Harness) => (await (await fetch(`${harness.opsOrigin}/healthz`)).json()) as { auditWaiting: number | null };
const metric = async (harness: Harness) => /^subops_audit_records_waiting (\S+)$/m.exec(await (await fetch(`${harness.opsOrigin}/metrics`)).text())?.[1];

describe('an audit record Slack does not take', () => {
  it('is kept in the store, counted on /healthz and /metrics, and posted when Slack takes it again', async () => {
    const harness = (h = await startHarness({ events: {} }));
    // The bot was taken out of the audit channel: the audit post is refused (Slack does not retry that).
    harness.fake.failNext('chat.postMessage', { error: 'not_in_channel' }, (args) => args.channel === AUDIT_CHANNEL);
    await suspendThroughSlack(harness, 101, 2);
    expect(harness.uisp.writes()).toEqual(['PATCH /crm/api/v1.0/clients/services/101/suspend']);
    expect(harness.fake.messages(CHANNEL).length).toBeGreaterThan(0);
    expect(harness.fake.messages(AUDIT_CHANNEL)).toEqual([]);
    expect((await health(harness)).auditWaiting).toBe(1);
    expect(await metric(harness)).toBe('1');

    // Invited back (no more refusals): the record is posted, once, and nothing waits.
    expect(await harness.app.drainAudit()).toBe(1);
    await harness.settled();
    expect(harness.fake.messages(AUDIT_CHANNEL).map((m) => m.text)).toEqual([expect.stringMatching(/^suspend by <@U0AGENT>: suspended$/)]);
    expect((await health(harness)).auditWaiting).toBe(0);
    expect(await harness.app.drainAudit()).toBe(0);
  });
});

describe('a CLI run sharing the bot\'s store (DATABASE_URL)', () => {
  it('keeps the audit record Slack refused in the store, says so, and the bot posts it', async () => {
    const harness = (h = await startHarness());
    harness.fake.failNext('chat.postMessage', { error: 'not_in_channel' }, (args) => args.channel === AUDIT_CHANNEL);
    const databaseUrl = `${inject('postgresUrl')}?options=${encodeURIComponent(`-c search_path=${harness.store.schema}`)}`;
    const env = { UISP_URL: harness.uisp.sim.url, UISP_TOKEN: harness.uisp.sim.token, SLACK_BOT_TOKEN: BOT_TOKEN, AUDIT_CHANNEL_ID: AUDIT_CHANNEL, SLACK_API_URL: harness.fake.apiUrl.replace(/\/$/, ''), DATABASE_URL: databaseUrl };
    const cli = await runCli(['suspend', '--service-id', '101', '--reason', '1', '--yes'], env, [BOT_TOKEN]);
    expect(cli.code).toBe(0);
    expect(cli.err).toContain("Note: Slack did not take the audit record (not_in_channel); it is kept in SubOps' store (DATABASE_URL) and the SubOps bot using that store posts it to channel C0AUDIT when Slack takes it.");
    expect(cli.err).not.toContain(inject('postgresUrl'));
    expect(await harness.app.drainAudit()).toBe(1);
    expect(harness.fake.messages(AUDIT_CHANNEL).map((m) => m.text)).toEqual([expect.stringMatching(/^suspend by \S+ \(CLI\): suspended$/)]);
  });
});

describe('the outbox', () => {
  const record = (n: number): AuditRecord => ({ action: 'suspend', targets: { serviceId: n }, result: 'suspended', ok: true, summary: `record ${n}`, actor: { via: 'cli', username: 'alice' } });

  it('posts in the order the records were made: one made while others wait queues behind them, even if Slack would take it', async () => {
    const store = await testStore();
    const posted: number[] = [];
    let slackAnswers = false;
    const sink = outboxSink({
      post: async (r) => {
        if (!slackAnswers) throw new Error('connect ECONNREFUSED');
        posted.push(Number(r.targets.serviceId));
      },
      outbox: store.outbox,
      claims: store.claims,
      logger: pino({ level: 'silent' }),
    });
    await sink.write(record(1));
    await sink.write(record(2));
    slackAnswers = true;
    await sink.write(record(3));
    expect(posted).toEqual([1, 2, 3]);
    expect(await sink.waiting()).toBe(0);
  });

  it('one process drains at a time: a second drain while the first holds the turn posts nothing', async () => {
    const store = await testStore();
    const other = await testStore({ schema: store.schema });
    await store.outbox.add(record(1), 0);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let entered!: () => void;
    const posting = new Promise<void>((resolve) => (entered = resolve));
    const posted: number[] = [];
    const sinkOf = (s: typeof store, wait: boolean) =>
      outboxSink({
        post: async (r) => {
          if (wait) {
            entered();
            await held;
          }
          posted.push(Number(r.targets.serviceId));
        },
        outbox: s.outbox,
        claims: s.claims,
        logger: pino({ level: 'silent' }),
      });
    const first = sinkOf(store, true).drain();
    // The first holds the turn while its post waits.
    await posting;
    expect(await sinkOf(other, false).drain()).toBe(0);
    release();
    expect(await first).toBe(1);
    expect(posted).toEqual([1]);
  });

  /** A post that waits until the test lets it answer (or fail). */
  function heldPost() {
    const posted: number[] = [];
    const waiting: { serviceId: number; answer: (ok: boolean) => void }[] = [];
    let arrived: (() => void)[] = [];
    return {
      posted,
      post: (r: AuditRecord) =>
        new Promise<void>((resolve, reject) => {
          waiting.push({ serviceId: Number(r.targets.serviceId), answer: (ok) => (ok ? (posted.push(Number(r.targets.serviceId)), resolve()) : reject(new Error('ETIMEDOUT'))) });
          arrived.splice(0).forEach((wake) => wake());
        }),
      arrived: () => (waiting.length ? Promise.resolve() : new Promise<void>((resolve) => (arrived = [...arrived, resolve]))),
      answer: (ok: boolean) => waiting.shift()!.answer(ok),
    };
  }

  it('a record is in the store before its post is answered: a process killed meanwhile leaves it for the next drain (issue #36 §6)', async () => {
    const store = await testStore();
    const other = await testStore({ schema: store.schema });
    const slack = heldPost();
    const writing = outboxSink({ post: slack.post, outbox: store.outbox, claims: store.claims, logger: pino({ level: 'silent' }) }).write(record(7));
    await slack.arrived();
    // Slack holds the post: another process already finds the record waiting.
    expect((await other.outbox.oldest(5)).map((w) => w.record)).toEqual([record(7)]);
    slack.answer(true);
    await writing;
    expect(await other.outbox.count()).toBe(0);
  });

  it('a record made while an earlier one is being posted is posted after it, even when that post fails (issue #36 §8)', async () => {
    const store = await testStore();
    const slack = heldPost();
    const sink = outboxSink({ post: slack.post, outbox: store.outbox, claims: store.claims, logger: pino({ level: 'silent' }) });
    const first = sink.write(record(1));
    await slack.arrived();
    await sink.write(record(2));
    slack.answer(false);
    await first;
    const drained = sink.drain();
    await slack.arrived();
    slack.answer(true);
    await slack.arrived();
    slack.answer(true);
    expect(await drained).toBe(2);
    expect(slack.posted).toEqual([1, 2]);
  });

  it('a drain that outlives its first lease (Slack slow) renews it: a second process takes nothing over and posts nothing twice (issue #36 §3)', async () => {
    let t = 1_800_000_000_000;
    const now = () => t;
    const store = await testStore({ now });
    const other = await testStore({ now, schema: store.schema });
    await store.outbox.add(record(1), 0);
    const slack = heldPost();
    let renew: (() => Promise<void>) | undefined;
    const draining = outboxSink({ post: slack.post, outbox: store.outbox, claims: store.claims, logger: pino({ level: 'silent' }), renewals: (_every, tick) => ((renew = tick), () => (renew = undefined)) }).drain();
    await slack.arrived();
    // Slack answers after 90 s; the drain renews its turn every 20 s meanwhile.
    for (let s = 0; s < 90; s += 20) {
      t += 20_000;
      await renew!();
    }
    const second = heldPost();
    expect(await outboxSink({ post: second.post, outbox: other.outbox, claims: other.claims, logger: pino({ level: 'silent' }) }).drain()).toBe(0);
    slack.answer(true);
    expect(await draining).toBe(1);
    expect([...slack.posted, ...second.posted]).toEqual([1]);
  });
});

/** A store of each engine, closed when the test ends. */
async function storeOf(engine: 'postgres' | 'embedded'): Promise<Store> {
  if (engine === 'postgres') return testStore();
  const store = openStore({ engine: 'embedded', dir: await mkdtemp(join(tmpdir(), 'subops-outbox-')) });
  await store.ready();
  onTestFinished(() => store.close());
  return store;
}

/** The bot's auditor on `store`, posting to a fake Slack; `setAside` counts the rows it set aside. */
async function botAuditor(store: Store) {
  const fake = await startFakeSlack();
  onTestFinished(() => fake.close());
  const client = new webApi.WebClient(BOT_TOKEN, { slackApiUrl: fake.apiUrl });
  const { url } = await client.auth.test();
  const seal = recordSeal('the-signing-secret');
  const lines: { msg: string; seq?: number }[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as { msg: string }) });
  let setAside = 0;
  const audit = createAuditor({ client, channelId: AUDIT_CHANNEL, seal, workspaceUrl: url, logger, store, onSetAside: () => setAside++ });
  const posted = () => fake.messages(AUDIT_CHANNEL).map((m) => ({ text: m.text, shown: JSON.stringify(m.blocks), metadata: m.metadata as { event_type: string; event_payload: Record<string, unknown> } }));
  return { audit, seal, fake, posted, lines, setAside: () => setAside, workspaceUrl: url! };
}

const suspension = (summary = 'suspend service #101: CRM status now Suspended'): Omit<AuditRecord, 'actor'> => ({ action: 'suspend', targets: { serviceId: 101, clientId: 1001 }, result: 'suspended', ok: true, summary });

describe.each(['postgres', 'embedded'] as const)('rows someone else wrote into the outbox (%s store)', (engine) => {
  it('a record naming a Slack user is posted as data: not sealed, its text escaped, its link only a workspace permalink; the bot’s own record is sealed', async () => {
    const store = await storeOf(engine);
    const bot = await botAuditor(store);
    // Whoever can write the store: a record in a victim's name, with markup and a thread link to another site.
    await store.outbox.add({ ...suspension('<!channel> *urgent* <https://evil.example.com/login|Verify your account>'), actor: { via: 'slack', userId: AGENT }, permalink: 'https://evil.example.com/archives/C0SUPPORT/p1700000000000100' }, 0);
    await bot.audit.outbox!.drain();
    await bot.audit.record({ ...suspension(), targets: { serviceId: 102, clientId: 1002 }, actorId: AGENT });

    const [forged, own] = bot.posted();
    expect(forged!.text).toBe(`suspend by <@${AGENT}>: suspended`);
    expect(bot.seal.verify(forged!.metadata.event_type, forged!.metadata.event_payload)).toBeUndefined();
    expect(forged!.shown).not.toContain('<!channel>');
    expect(forged!.shown).not.toContain('<https://evil');
    expect(forged!.shown).not.toContain('evil.example.com/archives');
    expect(bot.seal.verify(own!.metadata.event_type, own!.metadata.event_payload)).toEqual(expect.any(Number));
    expect(own!.metadata.event_payload.serviceId).toBe(102);
  });

  it('a row that is not an audit record is set aside with a log line and counted; the records after it are posted (issue #37 §7)', async () => {
    const store = await storeOf(engine);
    const bot = await botAuditor(store);
    await store.outbox.add({ action: 'suspend' }, 0);
    await store.outbox.add({ ...suspension(), action: 'suspend* by <!channel> <https://evil.example.com|here>', actor: { via: 'cli', username: 'mallory' } }, 0);
    await bot.audit.record({ ...suspension(), actorId: AGENT });
    expect(bot.posted().map((m) => m.text)).toEqual([`suspend by <@${AGENT}>: suspended`]);
    expect(await bot.audit.outbox!.waiting()).toBe(0);
    expect(bot.setAside()).toBe(2);
    expect(bot.lines.filter((line) => line.msg.startsWith('a row of the audit outbox is not an audit record'))).toHaveLength(2);
  });
});

describe.each(['postgres', 'embedded'] as const)('a record the bot made, posted by another of its processes (%s store)', (engine) => {
  it('a replica, or the bot after a restart, posts it sealed, as the bot’s own: its voucher was made with it', async () => {
    const store = await storeOf(engine);
    const before = await botAuditor(store);
    before.fake.failNext('chat.postMessage', { error: 'not_in_channel' }, (args) => args.channel === AUDIT_CHANNEL);
    await before.audit.record({ ...suspension(), actorId: AGENT });
    expect(await before.audit.outbox!.waiting()).toBe(1);
    // Another process of the bot (its memory knows nothing of the record) drains it.
    const after = await botAuditor(store);
    expect(await after.audit.outbox!.drain()).toBe(1);
    const [posted] = after.posted();
    expect(posted!.text).toBe(`suspend by <@${AGENT}>: suspended`);
    expect(after.seal.verify(posted!.metadata.event_type, posted!.metadata.event_payload)).toEqual(expect.any(Number));
  });
});

describe('a record the bot made, rewritten in the store while it waits', () => {
  it('is posted as the store has it, as data: unsealed', async () => {
    const store = await testStore();
    const bot = await botAuditor(store);
    bot.fake.failNext('chat.postMessage', { error: 'not_in_channel' }, (args) => args.channel === AUDIT_CHANNEL);
    await bot.audit.record({ ...suspension(), actorId: AGENT });
    expect(await bot.audit.outbox!.waiting()).toBe(1);
    const db = new pg.Client({ connectionString: inject('postgresUrl'), options: `-c search_path=${store.schema}` });
    await db.connect();
    await db.query(`UPDATE audit_outbox SET record = jsonb_set(record, '{targets,serviceId}', '666')`);
    await db.end();
    // Drained by another process of the bot too: the voucher the record kept is for what was made, not this.
    const other = await botAuditor(store);
    expect(await other.audit.outbox!.drain()).toBe(1);
    const [posted] = other.posted();
    expect(posted!.metadata.event_payload.serviceId).toBe(666);
    expect(other.seal.verify(posted!.metadata.event_type, posted!.metadata.event_payload)).toBeUndefined();
  });
});

describe('rows written into the bot’s PostgreSQL store (a DATABASE_URL holder, issue #37 §1 and §7)', () => {
  /** INSERTs straight into the harness's audit outbox, as anyone with DATABASE_URL can. */
  async function insertRows(harness: Harness, ...records: unknown[]) {
    const db = new pg.Client({ connectionString: inject('postgresUrl'), options: `-c search_path=${harness.store.schema}` });
    await db.connect();
    for (const record of records) await db.query('INSERT INTO audit_outbox (record, queued_ms) VALUES ($1, 0)', [JSON.stringify(record)]);
    await db.end();
  }

  it('a suspension "by" an agent, posted by the bot, hides no change made in UISP and credits nobody on the Home tab; a malformed row is counted on /metrics', async () => {
    const harness = (h = await startHarness({ events: {} }));
    await insertRows(harness, { action: 'suspend' }, { ...suspension(), actor: { via: 'slack', userId: AGENT } });
    expect(await harness.app.drainAudit()).toBe(1);
    expect(harness.fake.messages(AUDIT_CHANNEL).map((m) => m.text)).toEqual([`suspend by <@${AGENT}>: suspended`]);
    expect(await health(harness)).toMatchObject({ auditWaiting: 0 });
    expect(await (await fetch(`${harness.opsOrigin}/metrics`)).text()).toMatch(/^subops_audit_records_set_aside_total 1$/m);

    // The suspension it names is made in UISP itself: reported as such.
    await changeInUisp(harness, 'PATCH', '/clients/services/101/suspend', { suspensionReasonId: 1 });
    expect(harness.fake.messages(AUDIT_CHANNEL).map((m) => m.text)).toContainEqual(expect.stringMatching(/^:double_vertical_bar: Service #101 .* was \*suspended\* in UISP, not through the SubOps bot\.$/));
    await harness.sender.event({ type: 'app_home_opened', user: AGENT, channel: 'D0HOME', tab: 'home' });
    await harness.fake.waitFor('views.publish', (c) => c.args.user_id === AGENT);
    await harness.settled();
    expect(shown(harness.fake.homes.get(AGENT) as { blocks: unknown[] })).not.toContain('*suspend*');
  });
});

describe('a value written straight into the key-value store’s outbox (the embedded engines’ shared code)', () => {
  it('without its seq or record, is set aside by its key; the record after it is posted', async () => {
    const kv = new Memory();
    const bot = await botAuditor(storeOnKv(kv));
    await kv.transaction((tx) => {
      tx.put('outbox', '0000000000000001', { record: { action: 'suspend' } });
      tx.put('outbox', '0000000000000002', 'suspend');
      tx.put('meta', 'outbox_seq', 2);
    });
    await bot.audit.record({ ...suspension(), actorId: AGENT });
    expect(bot.posted().map((m) => m.text)).toEqual([`suspend by <@${AGENT}>: suspended`]);
    expect(bot.setAside()).toBe(2);
    expect(await bot.audit.outbox!.waiting()).toBe(0);
  });
});
