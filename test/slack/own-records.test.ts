/**
 * What SubOps reads back from Slack — audit records (recognising its own changes, the Home tab), the
 * activation's thread and reminder (the link watch after a restart) — counts only when SubOps wrote it:
 * the bot_id (and app_id) auth.test named at start. Another app in the channel, or a person, posting
 * messages with SubOps' exact metadata changes nothing; nor does a message posted with the bot token
 * itself (the CLI holds it) without the bot's seal. And a record explains a UISP event only when its
 * write changed something, within OWN_CHANGE_WINDOW_MS of the event.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { webApi } from '@slack/bolt';
import type { AuditRecord } from '../../src/services/audit.js';
import { OWN_CHANGE_WINDOW_MS } from '../../src/services/events/own-changes.js';
import { startFakeSlack, type FakeSlack } from '../../src/playground/fake-slack.js';
import { auditTrailSource, slackAuditSink } from '../../src/slack/audit.js';
import { auditTrail, ownPermalink, writtenBySubOps } from '../../src/slack/audit-trail.js';
import type { BotIdentity } from '../../src/slack/startup.js';
import { recordSeal } from '../../src/slack/record-seal.js';
import { auditMessage, auditMetadata } from '../../src/views/audit.js';
import { linkReminder } from '../../src/views/link-watch.js';
import { runCli } from '../cli/support.js';
import { expectValidHome } from './block-kit.js';
import { startForgingSlack, type Forger, type ForgingSlack } from './forger.js';
import { AGENT, AUDIT_CHANNEL, BOT_TOKEN, CHANNEL, inputs, shown, startHarness, suspendThroughSlack, type Harness, type HarnessOptions, changeInUisp } from './harness.js';

const HOUR = 3_600_000;
/** Who may post SubOps-looking messages: another app, a person, or whoever holds the bot token (the CLI does). */
type Poster = Forger | 'the bot token';
const FORGERS: Poster[] = ['another app', 'a person', 'the bot token'];

/** Posts as `by`: the bot token's messages are stamped as SubOps', the forger's as its own. */
async function forge(by: Poster, channel: string, message: Record<string, unknown>): Promise<string> {
  if (by !== 'the bot token') return forger!.post(by, channel, message);
  const bot = new webApi.WebClient(BOT_TOKEN, { slackApiUrl: h!.fake.apiUrl });
  return (await bot.chat.postMessage({ channel, text: '', ...message })).ts!;
}

let h: Harness | undefined;
let forger: ForgingSlack | undefined;
let fake: FakeSlack | undefined;
afterEach(async () => {
  await h?.close();
  await forger?.close();
  await fake?.close();
  h = forger = fake = undefined;
});

async function start(options: HarnessOptions): Promise<Harness> {
  h = await startHarness(options);
  return h;
}

/** The harness, its app talking to Slack through the forger (which passes everything on to `h.fake`). */
async function startForged(options: HarnessOptions = {}): Promise<{ h: Harness; forger: ForgingSlack }> {
  forger = await startForgingSlack();
  h = await startHarness({ ...options, env: { ...options.env, SLACK_API_URL: forger.apiUrl } });
  forger.forwardTo(h.fake);
  return { h, forger };
}

/** Exactly what SubOps' audit sink posts for this record (src/slack/audit.ts). */
const auditPost = (record: AuditRecord) => ({ ...auditMessage(record), metadata: auditMetadata(record), unfurl_links: false });

const suspendRecord = (actor: AuditRecord['actor'] = { via: 'cli', username: 'root' }): AuditRecord => ({
  action: 'suspend',
  targets: { serviceId: 101, clientId: 1001, reasonId: 1 },
  result: 'suspended',
  ok: true,
  summary: 'suspend service #101: CRM status now Suspended',
  actor,
});

const cliEnv = (harness: Harness) => ({ UISP_URL: harness.uisp.sim.url, UISP_TOKEN: harness.uisp.sim.token, SLACK_BOT_TOKEN: BOT_TOKEN, AUDIT_CHANNEL_ID: AUDIT_CHANNEL, SLACK_API_URL: harness.fake.apiUrl });

const inUisp = changeInUisp;

const outsideNotices = (harness: Harness) => harness.fake.messages(AUDIT_CHANNEL).map((m) => m.text).filter((text) => text.includes('not through the SubOps bot'));

describe('who wrote a message', () => {
  const self: BotIdentity = { botId: 'B0001', botUserId: 'UBOT', appId: 'A0001', workspaceUrl: 'https://subops-playground.slack.com/' };

  it('SubOps: its bot_id, and its app_id when the message names one', () => {
    expect(writtenBySubOps({ bot_id: 'B0001', app_id: 'A0001' }, self)).toBe(true);
    expect(writtenBySubOps({ bot_id: 'B0001' }, self)).toBe(true);
    expect(writtenBySubOps({ bot_id: 'B0001' }, { botId: 'B0001' })).toBe(true);
    expect(writtenBySubOps({ bot_id: 'B0OTHERAPP', app_id: 'A0OTHERAPP' }, self)).toBe(false);
    expect(writtenBySubOps({ bot_id: 'B0001', app_id: 'A0OTHERAPP' }, self)).toBe(false);
    expect(writtenBySubOps({}, self)).toBe(false);
    expect(writtenBySubOps({ app_id: 'A0001' }, self)).toBe(false);
  });

  it("permalinks: only the workspace's own message links", () => {
    const own = 'https://subops-playground.slack.com/archives/C0SUPPORT/p1700000000000100';
    expect(ownPermalink(own, self)).toBe(own);
    expect(ownPermalink(`${own}?thread_ts=1700000000.000100&cid=C0SUPPORT`, self)).toBe(`${own}?thread_ts=1700000000.000100&cid=C0SUPPORT`);
    for (const other of [
      'https://evil.example.com/archives/C0SUPPORT/p1700000000000100',
      'https://subops-playground.slack.com.evil.example/archives/C0SUPPORT/p1',
      'http://subops-playground.slack.com/archives/C0SUPPORT/p1700000000000100',
      'https://other-team.slack.com/archives/C0SUPPORT/p1700000000000100',
      'https://subops-playground.slack.com/apps/A0OTHERAPP',
      'https://user@subops-playground.slack.com/archives/C0SUPPORT/p1',
      `${own}?redirect=https://evil.example.com`,
      `${own}|click here>`,
      'javascript:alert(1)',
      42,
    ]) {
      expect(ownPermalink(other, self), String(other)).toBeUndefined();
    }
    expect(ownPermalink(own, { workspaceUrl: undefined })).toBeUndefined();
  });
});

describe('forged audit records', () => {
  it.each(FORGERS)('from %s, with SubOps’ metadata, do not hide a change made in UISP: the notice is posted', async (by) => {
    const { h } = await startForged({ events: {} });
    await forge(by, AUDIT_CHANNEL, auditPost(suspendRecord({ via: 'slack', userId: AGENT })));
    await inUisp(h, 'PATCH', '/clients/services/101/suspend', { suspensionReasonId: 1 });
    // The audit channel was read, and the forged record did not count.
    expect(h.fake.callsTo('conversations.history').some((call) => call.args.channel === AUDIT_CHANNEL)).toBe(true);
    expect(outsideNotices(h)).toEqual([expect.stringMatching(/^:double_vertical_bar: Service #101 .* was \*suspended\* in UISP, not through the SubOps bot\.$/)]);
  });

  it('the CLI’s own record, posted with the same bot token, does not hide its change either: the suspension is reported', async () => {
    const h = await start({ events: {} });
    // The bot asks the CRM about the webhook only once the CLI has audited, as when processing outlasts the CLI.
    const confirming = h.uisp.sim.gate({ method: 'GET', path: /\/webhook-events\// });
    const cli = await runCli(['suspend', '--service-id', '101', '--reason', '1', '--yes'], cliEnv(h), [BOT_TOKEN]);
    expect(cli.code).toBe(0);
    await confirming.arrived(1);
    confirming.open();
    await h.uisp.sim.webhooksSettled();
    await h.settled();
    expect(h.uisp.sim.webhookEvents.map((e) => e.eventName)).toEqual(['service.suspend']);
    expect(h.fake.messages(AUDIT_CHANNEL).map((m) => m.text)).toContainEqual(expect.stringMatching(/^suspend by \S+ \(CLI\): suspended$/));
    expect(outsideNotices(h)).toEqual([expect.stringMatching(/^:double_vertical_bar: Service #101 .* was \*suspended\* in UISP, not through the SubOps bot\.$/)]);
  });

  it.each(FORGERS)("from %s put nothing on the Home tab; SubOps' own records are listed, linked only to the workspace's own threads", async (by) => {
    const { h } = await startForged();
    const bot = new webApi.WebClient(BOT_TOKEN, { slackApiUrl: h.fake.apiUrl });
    const parent = await bot.chat.postMessage({ channel: CHANNEL, text: 'Payment recorded' });
    const { permalink } = await bot.chat.getPermalink({ channel: CHANNEL, message_ts: parent.ts! });
    const sink = slackAuditSink(bot, AUDIT_CHANNEL, h.identity.seal);
    await sink.write({ action: 'payment', targets: { paymentId: 9001, clientId: 1002 }, result: 'recorded', ok: true, summary: 'Recorded payment #9001', actor: { via: 'slack', userId: AGENT }, permalink, thread: { channel: CHANNEL, ts: parent.ts! } });
    // SubOps' own record, but its link leads out of the workspace: listed without it.
    await sink.write({ ...suspendRecord({ via: 'slack', userId: AGENT }), permalink: 'https://evil.example.com/archives/C0SUPPORT/p1700000000000100' });
    for (const link of [permalink, 'https://evil.example.com/archives/C0SUPPORT/p1700000000000100']) {
      await forge(by, AUDIT_CHANNEL, auditPost({ action: 'activate', targets: { device: '10.20.1.88', clientId: 1001, serviceId: 101, siteId: 'site-1' }, result: 'activated', ok: true, summary: 'FORGED activation', actor: { via: 'slack', userId: AGENT }, permalink: link }));
    }

    const reply = await h.sender.event({ type: 'app_home_opened', user: AGENT, channel: 'D0HOME', tab: 'home' });
    expect(reply.status).toBe(200);
    const call = await h.fake.waitFor('views.publish', (c) => c.args.user_id === AGENT);
    expectValidHome(call.args.view);
    await h.settled();
    const text = shown(h.fake.homes.get(AGENT) as { blocks: unknown[] });
    expect(text).not.toContain('FORGED');
    expect(text).not.toContain('*activate*');
    expect(text).not.toContain('evil.example');
    expect(text).toContain(`*payment* by <@${AGENT}>: recorded — Recorded payment #9001  ·  <${permalink}|thread>`);
    expect(text).toContain(`*suspend* by <@${AGENT}>: suspended — suspend service #101: CRM status now Suspended`);
    // The agent's list and the team's: each links the payment's thread, and nothing else.
    const links = [...text.matchAll(/<([^<>|]+)\|thread>/g)].map((match) => match[1]);
    expect(links).toEqual([permalink, permalink]);
  });
});

describe('the link watch after a restart, with forged messages', () => {
  let t = Date.now();
  const now = () => t;

  async function activate(harness: Harness, device: string, first: string, last: string) {
    const before = harness.fake.messages(CHANNEL).filter((m) => m.thread_ts === undefined).length;
    await harness.command('/activate', `${device} ${first} ${last}`);
    const { id } = await harness.openedView((call) => JSON.stringify(call.args).includes(device));
    await harness.submit(id, inputs({ device, firstName: first, lastName: last }));
    await harness.fake.waitFor('chat.postMessage', (call) => call.args.channel === AUDIT_CHANNEL && JSON.stringify(call.args.metadata ?? '').includes('activate'));
    await harness.settled();
    const parent = harness.fake.messages(CHANNEL).filter((m) => m.thread_ts === undefined)[before]!;
    const site = harness.uisp.sim.data.sites.find((s) => s.identification.name === `${first} ${last}`)!;
    return { site, parentTs: parent.ts };
  }

  it.each(FORGERS)('from %s: "Linked in CRM" and the reminder still go to the activation’s real thread', async (by) => {
    // The test clock starts a minute after the wall clock, which stamps the fake's messages.
    t = Date.now() + 60_000;
    const { h } = await startForged({ events: { now }, env: { LINK_REMINDER_HOURS: '24' } });
    const { site, parentTs } = await activate(h, '10.20.1.88', 'Jane', 'Doe');
    const [pending] = h.events!.links.pending();
    const real = h.fake.messages(AUDIT_CHANNEL).find((m) => JSON.stringify(m.metadata ?? '').includes('"action":"activate"'))!;
    const metadata = real.metadata as { event_payload: Record<string, string | number | boolean> };

    // Newer than SubOps' record, same shape, same site: its thread is one the forger started.
    const decoy = await forge(by, CHANNEL, { text: 'Reply here for your CRM link' });
    const { thread_channel: _channel, thread_ts: _ts, ...facts } = metadata.event_payload;
    await forge(by, AUDIT_CHANNEL, { text: real.text, blocks: real.blocks, metadata: { event_type: 'subops_audit', event_payload: { ...facts, thread_channel: CHANNEL, thread_ts: decoy } } });
    // And a reminder in the real thread, as if SubOps had posted it already.
    const forgedReminder = await forge(by, CHANNEL, { ...linkReminder(pending!, 24), thread_ts: parentTs });

    t += 25 * HOUR;
    await h.restart();
    expect(h.events!.links.pending().map((link) => [link.siteId, link.thread])).toEqual([[site.id, { channel: CHANNEL, ts: parentTs }]]);

    await h.events!.links.check();
    const subOpsReplies = () => h.fake.messages(CHANNEL).filter((m) => m.thread_ts === parentTs && m.ts !== parentTs && m.ts !== forgedReminder);
    expect(subOpsReplies().filter((m) => m.text.includes('Reminder'))).toHaveLength(1);

    site.ucrm = { client: { id: String(pending!.clientId), name: 'linked', isLead: false }, service: null };
    site.description.ucrmId = String(pending!.clientId);
    await h.events!.links.check();
    expect(subOpsReplies().at(-1)!.text).toContain('*Linked in CRM*: NMS site "Jane Doe"');
    expect(shown(h.fake.messages(CHANNEL).find((m) => m.ts === parentTs)!)).toContain('Linked in CRM');
    // Nothing went to the forger's thread, and its message was left alone.
    expect(h.fake.messages(CHANNEL).filter((m) => m.thread_ts === decoy)).toEqual([]);
    expect(h.fake.callsTo('chat.update').filter((call) => call.args.ts === decoy)).toEqual([]);
  });
});

describe('the link watch after a restart, when an activation message is gone', () => {
  it('only that site loses its thread; the others keep theirs', async () => {
    const h = await start({ events: {} });
    const parents: Record<string, string> = {};
    for (const [device, first, last] of [['10.20.1.88', 'Jane', 'Doe'], ['10.20.3.12', 'Shanice', 'Williams']] as const) {
      const before = h.fake.messages(CHANNEL).filter((m) => m.thread_ts === undefined).length;
      await h.command('/activate', `${device} ${first} ${last}`);
      const { id } = await h.openedView((call) => JSON.stringify(call.args).includes(device));
      await h.submit(id, inputs({ device, firstName: first, lastName: last }));
      await h.fake.waitFor('chat.postMessage', (call) => call.args.channel === AUDIT_CHANNEL && JSON.stringify(call.args.metadata ?? '').includes(`${first} ${last}`));
      await h.settled();
      const site = h.uisp.sim.data.sites.find((s) => s.identification.name === `${first} ${last}`)!;
      parents[site.id] = h.fake.messages(CHANNEL).filter((m) => m.thread_ts === undefined)[before]!.ts;
    }
    h.fake.failNext('conversations.replies', { error: 'thread_not_found' });
    await h.restart();
    const threads = h.events!.links.pending().map((link) => (link.thread ? link.thread.ts === parents[link.siteId] : null));
    expect(threads.sort()).toEqual([null, true].sort());
  });
});

describe('records of writes that changed nothing, and old records', () => {
  it('a no-op `subops unsuspend` on an Active service, then a suspension and its lifting in UISP: two notices', async () => {
    const h = await start({ events: {} });
    const cli = await runCli(['unsuspend', '--service-id', '101'], cliEnv(h), [BOT_TOKEN]);
    expect(cli.code).toBe(0);
    expect(h.uisp.writes()).toEqual([]);
    expect(h.fake.messages(AUDIT_CHANNEL).map((m) => m.text)).toEqual([expect.stringMatching(/^unsuspend by \S+ \(CLI\): not-suspended$/)]);

    await inUisp(h, 'PATCH', '/clients/services/101/suspend', { suspensionReasonId: 1 });
    await inUisp(h, 'PATCH', '/clients/services/101/cancel-suspend');
    expect(h.uisp.sim.webhookEvents.map((e) => e.eventName)).toEqual(['service.suspend', 'service.suspend_cancel']);
    expect(outsideNotices(h)).toEqual([
      expect.stringMatching(/^:double_vertical_bar: Service #101 .* was \*suspended\* in UISP, not through the SubOps bot\.$/),
      expect.stringMatching(/^:arrow_forward: The suspension of service #101 .* was \*lifted\* in UISP, not through the SubOps bot\.$/),
    ]);
  });

  it(`a record SubOps wrote explains a change only within ${OWN_CHANGE_WINDOW_MS / 60_000} minutes of it, and only to SubOps`, async () => {
    const slack = (fake = await startFakeSlack());
    const bot = new webApi.WebClient(BOT_TOKEN, { slackApiUrl: fake.apiUrl });
    const seal = recordSeal('the-signing-secret');
    await slackAuditSink(bot, AUDIT_CHANNEL, seal).write(suspendRecord({ via: 'slack', userId: AGENT }));
    const auth = await bot.auth.test();
    const identity: BotIdentity = { botId: auth.bot_id!, botUserId: auth.user_id!, appId: auth.app_id, workspaceUrl: auth.url, seal };
    const suspension = { entity: 'service', id: 101, changeType: 'suspend' };
    const recognised = (options: Partial<Parameters<typeof auditTrail>[0]>) => auditTrail({ client: bot, channelId: AUDIT_CHANNEL, identity, ...options })(suspension);

    expect(await recognised({})).toBe(true);
    expect(await recognised({ now: () => Date.now() + OWN_CHANGE_WINDOW_MS + 60_000 })).toBe(false);
    expect(await recognised({ identity: { botId: 'B0OTHERAPP', botUserId: 'U0OTHERBOT' } })).toBe(false);
    // Another key (a process without the bot's secret) does not verify it.
    expect(await recognised({ identity: { ...identity, seal: recordSeal('another-secret') } })).toBe(false);
    // Only the window before the change is read.
    const oldest = slack.callsTo('conversations.history').map((call) => Number(call.args.oldest) * 1000);
    expect(oldest).toHaveLength(4);
    expect(oldest[1]! - oldest[0]!).toBeGreaterThanOrEqual(OWN_CHANGE_WINDOW_MS + 60_000 - 1);
  });

  it('a sealed record posted again later (anyone holding the bot token can copy one) explains no change past the window of its seal', async () => {
    fake = await startFakeSlack();
    const bot = new webApi.WebClient(BOT_TOKEN, { slackApiUrl: fake.apiUrl });
    const seal = recordSeal('the-signing-secret');
    // Sealed long ago, posted now: the message is new, the record is not.
    const sealedLongAgo = () => Date.now() - OWN_CHANGE_WINDOW_MS - 60_000;
    await slackAuditSink(bot, AUDIT_CHANNEL, seal, sealedLongAgo).write(suspendRecord({ via: 'slack', userId: AGENT }));
    const auth = await bot.auth.test();
    const identity: BotIdentity = { botId: auth.bot_id!, botUserId: auth.user_id!, appId: auth.app_id, workspaceUrl: auth.url, seal };
    expect(await auditTrail({ client: bot, channelId: AUDIT_CHANNEL, identity })({ entity: 'service', id: 101, changeType: 'suspend' })).toBe(false);
  });
});

describe('a sealed record copied and posted again with the bot token (issue #37 §8)', () => {
  /** Posts the audit channel's message again, exactly: its text, blocks and sealed metadata. */
  async function repost(harness: Harness, message: { text: string; blocks?: unknown; metadata?: unknown }) {
    const bot = new webApi.WebClient(BOT_TOKEN, { slackApiUrl: harness.fake.apiUrl });
    await bot.chat.postMessage({ channel: AUDIT_CHANNEL, text: message.text, blocks: message.blocks as never, metadata: message.metadata as never });
  }

  it('counts once on the Home tab', async () => {
    const h = await start({});
    await suspendThroughSlack(h, 101, 2);
    const [record] = h.fake.messages(AUDIT_CHANNEL);
    await repost(h, record!);
    await h.sender.event({ type: 'app_home_opened', user: AGENT, channel: 'D0HOME', tab: 'home' });
    await h.fake.waitFor('views.publish', (c) => c.args.user_id === AGENT);
    await h.settled();
    const text = shown(h.fake.homes.get(AGENT) as { blocks: unknown[] });
    // Once in the agent's list, once in the team's.
    expect(text.split(`*suspend* by <@${AGENT}>: suspended`)).toHaveLength(3);
  });

  it('counts once in the digest, and on the day it was made: a copy of an older record posted today is not today’s', async () => {
    fake = await startFakeSlack();
    const bot = new webApi.WebClient(BOT_TOKEN, { slackApiUrl: fake.apiUrl });
    const seal = recordSeal('the-signing-secret');
    const auth = await bot.auth.test();
    const identity: BotIdentity = { botId: auth.bot_id!, botUserId: auth.user_id!, appId: auth.app_id, workspaceUrl: auth.url, seal };
    await slackAuditSink(bot, AUDIT_CHANNEL, seal).write(suspendRecord({ via: 'slack', userId: AGENT }));
    await slackAuditSink(bot, AUDIT_CHANNEL, seal, () => Date.now() - 2 * 24 * HOUR).write({ ...suspendRecord({ via: 'slack', userId: AGENT }), targets: { serviceId: 102, clientId: 1002 } });
    for (const message of fake.messages(AUDIT_CHANNEL)) await bot.chat.postMessage({ channel: AUDIT_CHANNEL, text: message.text, blocks: message.blocks as never, metadata: message.metadata as never });
    const trail = [];
    for await (const message of auditTrailSource(bot, AUDIT_CHANNEL, identity)(new Date(Date.now() - HOUR), new Date(Date.now() + HOUR))) trail.push(message);
    const audited = trail.filter((m) => m.kind === 'audit' && Number(m.ts) * 1000 >= Date.now() - HOUR);
    expect(audited.map((m) => m.payload.serviceId)).toEqual([101]);
  });
});
