/**
 * A second pair of eyes (issue #21 §2), end to end: a confirmation that deletes a Quoted service becomes
 * a request in the approvals channel; Approve runs it as the requester's after a fresh read, Reject and
 * expiry write nothing; a double click, two replicas and a restart act on it once; the Home tab lists it.
 * Interleavings are forced by holding the store's writes, and expiry with the test's clock.
 */
import { webApi } from '@slack/bolt';
import pg from 'pg';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { sampleData, type SimulatorData } from '../../src/simulator/index.js';
import { holdWrites } from '../support/store.js';
import { expectValidHome, expectValidMessage, expectValidModal } from './block-kit.js';
import { AGENT, AUDIT_CHANNEL, BOT_TOKEN, buttons, changeInUisp, CHANNEL, inputs, shown, SIGNING_SECRET, startHarness, suspendThroughSlack, type Harness } from './harness.js';

const APPROVALS = 'C0APPROVALS';
const LEAD = 'U0LEAD';
const OTHER_LEAD = 'U0LEAD2';
const HOUR = 3_600_000;

let h: Harness;
let clock = { now: Date.now() };
afterEach(async () => {
  posted = undefined;
  await h.close();
});

/** `groups`: more user groups of the fake workspace (the test may change their members as it goes); `data`: the simulator's. */
async function start(env: Record<string, string> = {}, { groups = {}, data }: { groups?: Record<string, string[]>; data?: SimulatorData } = {}) {
  clock = { now: Date.now() };
  h = await startHarness({
    ...(data && { simulator: { data } }),
    env: { APPROVAL_REQUIRED_FOR: 'delete-service,large-payment,suspension', APPROVAL_PAYMENT_ABOVE: '100000', APPROVALS_CHANNEL_ID: APPROVALS, ACCESS_APPROVE: 'S0LEADS', ...env },
    fakeSlack: { usergroups: Object.assign(groups, { S0LEADS: [LEAD, OTHER_LEAD] }) },
    now: () => clock.now,
  });
}

/** Priya's activation deletes her Quoted service #102: the agent confirms it, which asks for approval. */
async function requestPriya(requester = AGENT): Promise<string> {
  await h.command('/activate', '10.20.1.51 priya ramnarine', requester);
  const { id } = await h.openedView();
  await h.submit(id, inputs({ device: '10.20.1.51', firstName: 'priya', lastName: 'ramnarine' }), requester);
  await h.viewBecomes(id, 'activate_confirm');
  await h.submit(id, {}, requester);
  await h.viewBecomes(id, 'subops_info', 'Sent for approval');
  await h.settled();
  posted = requestMessage();
  return id;
}

const requestMessage = () => h.fake.messages(APPROVALS).find((m) => m.thread_ts === undefined)!;
const thread = () => h.fake.messages(APPROVALS).filter((m) => m.thread_ts === requestMessage().ts && m.ts !== requestMessage().ts);
const deletes102 = () => h.uisp.writes().filter((w) => w === 'DELETE /crm/api/v1.0/clients/services/102');

/** Presses a button of the request message (as first posted, by default) as `userId`, through `sender` (the app, or a replica). */
let posted: ReturnType<typeof requestMessage> | undefined;
function click(label: 'Approve' | 'Reject', userId: string, sender = h.sender) {
  // A message as the clicker's Slack client still shows it: the buttons stay until it refreshes.
  const message = (posted ??= requestMessage());
  const button = buttons(message).get(label)!;
  return sender.blockAction({ userId, actionId: button.action_id, value: button.value!, message, channelId: APPROVALS, messageTs: message.ts });
}

/** A query on the app's store as anyone holding DATABASE_URL may run it. */
async function storeSql<T extends pg.QueryResultRow>(text: string, params: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: inject('postgresUrl'), options: `-c search_path=${h.store.schema}` });
  await client.connect();
  try {
    return (await client.query<T>(text, params)).rows;
  } finally {
    await client.end();
  }
}

/** A message with a Retry button, posted with the bot token (the CLI holds it): it looks like SubOps' failure report. */
async function forgedRetry(value: unknown) {
  const bot = new webApi.WebClient(BOT_TOKEN, { slackApiUrl: h.fake.apiUrl });
  const posted = await bot.chat.postMessage({ channel: CHANNEL, text: 'Activation failed', blocks: [{ type: 'actions', block_id: 'activation_retry', elements: [{ type: 'button', action_id: 'activation_retry', text: { type: 'plain_text', text: 'Retry' }, value: JSON.stringify(value) }] }] });
  return h.fake.messages(CHANNEL).find((m) => m.ts === posted.ts)!;
}

const refusedRows = () => h.logs.filter((line) => String(line.msg).startsWith('an approval row in the store does not match its seal'));

/** What the clicker was told privately (an ephemeral message). */
const toldPrivately = (userId: string) => h.fake.callsTo('chat.postEphemeral').filter((c) => c.args.user === userId).map((c) => String(c.args.text));

describe('approval requests', () => {
  it('a confirmed delete becomes a request naming what will change; nothing is written until someone else approves', async () => {
    await start();
    const viewId = requestPriya();
    await viewId;
    expect(h.uisp.writes()).toEqual([]);
    const request = requestMessage();
    expect(shown(request)).toContain(`<@${AGENT}> asks to activate *10.20.1.51* for *Priya Ramnarine*`);
    expect(shown(request)).toContain('Deletes service #102 (Quoted or Obsolete)');
    expect([...buttons(request).keys()]).toEqual(['Approve', 'Reject']);
    expect(h.fake.messages(CHANNEL)).toEqual([]);
    expectValidMessage({ text: request.text, blocks: request.blocks! });
    const id = await viewId;
    expectValidModal(h.fake.callsTo('views.update').filter((c) => c.args.view_id === id).at(-1)!.args.view);
  });

  it("no message SubOps posts carries the requester's response_url or a secret in its metadata, readable by any app in the channel", async () => {
    await start();
    await requestPriya();
    await click('Approve', LEAD);
    await h.settled();
    const posted = ['chat.postMessage', 'chat.update'].flatMap((method) => h.fake.callsTo(method));
    const metadata = posted.map((call) => JSON.stringify(call.args.metadata ?? null)).filter((json) => json !== 'null');
    expect(metadata.length).toBeGreaterThanOrEqual(2);
    for (const json of metadata) {
      expect(json).not.toMatch(/response_url|responseUrl|\/commands\/T/);
      expect(json).not.toContain(BOT_TOKEN);
      expect(json).not.toContain(SIGNING_SECRET);
    }
    // The request message names its request, and nothing the store holds for it.
    expect(requestMessage().metadata).toEqual({ event_type: expect.any(String), event_payload: { request_id: expect.any(String) } });
  });

  it('an approver may not approve their own request', async () => {
    await start();
    await requestPriya(LEAD);
    await click('Approve', LEAD);
    await h.settled();
    expect(toldPrivately(LEAD)).toEqual(['You asked for this change: an approver other than you decides it. Nothing was changed.']);
    expect(h.uisp.writes()).toEqual([]);
    expect(thread()).toEqual([]);
  });

  it('approved, it runs as the requester\'s after a fresh read; requester and approver are in the thread and the audit record', async () => {
    await start();
    await requestPriya();
    await click('Approve', LEAD);
    await h.settled();
    expect(deletes102()).toHaveLength(1);
    expect(h.uisp.writes()).toContain('POST /crm/api/v1.0/clients/1002/services');
    // The operation's own thread, where the agent asked, says who approved it.
    const parent = h.fake.messages(CHANNEL).find((m) => m.thread_ts === undefined)!;
    expect(shown(parent)).toContain(`<@${AGENT}>`);
    expect(h.fake.messages(CHANNEL).some((m) => m.text.includes(`Approved by <@${LEAD}>`))).toBe(true);
    // The request: decided, no buttons; its thread names both and the outcome.
    expect([...buttons(requestMessage()).keys()]).toEqual([]);
    expectValidMessage({ text: requestMessage().text, blocks: requestMessage().blocks! });
    expect(thread().map((m) => m.text)).toEqual([
      `<@${LEAD}> approved <@${AGENT}>'s request. It runs now as <@${AGENT}>'s, after reading UISP again; the outcome follows here.`,
      expect.stringMatching(new RegExp(`^<@${AGENT}> <@${LEAD}> :white_check_mark: `)),
    ]);
    const audit = h.fake.messages(AUDIT_CHANNEL).find((m) => (m.metadata as { event_payload?: { action?: string } }).event_payload?.action === 'activate')!;
    expect(audit.metadata).toMatchObject({ event_payload: { actor: AGENT, approved_by: LEAD, ok: true } });
    expect(audit.text).toContain(`activate by <@${AGENT}>`);
  });

  it('rejected, nothing is written and both are told in the thread; the audit record says so', async () => {
    await start();
    await requestPriya();
    await click('Reject', LEAD);
    await h.settled();
    expect(h.uisp.writes()).toEqual([]);
    expect(thread().map((m) => m.text)).toEqual([`<@${LEAD}> rejected <@${AGENT}>'s request. Nothing was changed.`]);
    expect(shown(requestMessage())).toContain(`Rejected by <@${LEAD}>`);
    expect(h.fake.messages(AUDIT_CHANNEL).at(-1)!.metadata).toMatchObject({ event_payload: { action: 'activate', result: 'rejected', rejectedBy: LEAD, actor: AGENT, ok: false } });
    // A later Approve changes nothing.
    await click('Approve', OTHER_LEAD);
    await h.settled();
    expect(toldPrivately(OTHER_LEAD)).toEqual([`This request was already rejected (by <@${LEAD}>). Nothing else was done.`]);
    expect(h.uisp.writes()).toEqual([]);
  });

  it('expires after APPROVAL_EXPIRY_HOURS: nothing is written, the requester is told, and a late Approve does nothing', async () => {
    await start({ APPROVAL_EXPIRY_HOURS: '2' });
    await requestPriya();
    clock.now += HOUR;
    expect(await h.app.sweepApprovals()).toBe(0);
    clock.now += HOUR;
    expect(await h.app.sweepApprovals()).toBe(1);
    await h.settled();
    expect(thread().map((m) => m.text)).toEqual([`<@${AGENT}>, your request expired without a decision. Nothing was changed; start again if it is still needed.`]);
    expect(shown(requestMessage())).toContain('Expired without a decision');
    expect(await h.app.sweepApprovals()).toBe(0);
    await click('Approve', LEAD);
    await h.settled();
    expect(h.uisp.writes()).toEqual([]);
    expect(toldPrivately(LEAD)).toEqual(['This request was already expired (by <@UBOT>). Nothing else was done.']);
  });

  it('an Approve pressed after the expiry, before any sweep, expires it instead of running it', async () => {
    await start();
    await requestPriya();
    clock.now += 4 * HOUR;
    await click('Approve', LEAD);
    await h.settled();
    expect(h.uisp.writes()).toEqual([]);
    expect(thread().map((m) => m.text)).toEqual([`<@${AGENT}>, your request expired without a decision. Nothing was changed; start again if it is still needed.`]);
  });

  it('UISP changed before the approval (the Quoted service turned Active): it stops, says so, and deletes nothing', async () => {
    await start();
    await requestPriya();
    h.uisp.sim.data.services.find((s) => s.id === 102)!.status = 1;
    await click('Approve', LEAD);
    await h.settled();
    expect(h.uisp.writes()).toEqual([]);
    expect(thread().at(-1)!.text).toContain(`<@${AGENT}> <@${LEAD}> :x: UISP changed since the request, so nothing was written: Service #102 is Active now`);
  });
});

describe('acted on once', () => {
  /** Two clicks whose processes both read the request undecided, then both decide: the store's writes are held until both are waiting. */
  async function atTheSameMoment(...clicks: (() => Promise<unknown>)[]) {
    const decisions = await holdWrites(h.store.schema, 'approval_requests');
    const pressed = clicks.map((press) => press());
    await decisions.waiting(2);
    await decisions.release();
    await Promise.all(pressed);
  }

  it('two approvers at the same moment: one run, the other is told who decided', async () => {
    await start();
    await requestPriya();
    await atTheSameMoment(() => click('Approve', LEAD), () => click('Approve', OTHER_LEAD));
    await h.settled();
    expect(deletes102()).toHaveLength(1);
    expect(h.uisp.writes().filter((w) => w === 'POST /crm/api/v1.0/clients/1002/services')).toHaveLength(1);
    const decisions = thread().filter((m) => m.text.includes('approved'));
    expect(decisions).toHaveLength(1);
    const winner = decisions[0]!.text.startsWith(`<@${LEAD}>`) ? LEAD : OTHER_LEAD;
    const loser = winner === LEAD ? OTHER_LEAD : LEAD;
    expect(toldPrivately(loser)).toEqual([`This request was already approved (by <@${winner}>). Nothing else was done.`]);
  });

  it('one approver double-clicking Approve: one run; the second click is told the request is already approved', async () => {
    await start();
    await requestPriya();
    await atTheSameMoment(() => click('Approve', LEAD), () => click('Approve', LEAD));
    await h.settled();
    expect(deletes102()).toHaveLength(1);
    expect(thread().filter((m) => m.text.includes(' approved '))).toHaveLength(1);
    expect(toldPrivately(LEAD)).toEqual([`This request was already approved (by <@${LEAD}>). Nothing else was done.`]);
  });

  it('approve and reject at the same moment on two replicas: one decision stands, and only it acts', async () => {
    await start();
    await requestPriya();
    const replica = await h.replica();
    await atTheSameMoment(() => click('Approve', LEAD), () => click('Reject', OTHER_LEAD, replica.sender));
    await h.settled();
    await replica.settled();
    const decisions = thread().filter((m) => / (approved|rejected) /.test(m.text));
    expect(decisions).toHaveLength(1);
    expect(deletes102()).toHaveLength(decisions[0]!.text.includes('approved') ? 1 : 0);
  });

  it('a request survives a restart: the new process reads it back from the store and runs it on approval', async () => {
    await start();
    await requestPriya();
    await h.restart();
    await click('Approve', LEAD);
    await h.settled();
    expect(deletes102()).toHaveLength(1);
  });
});

describe('the requester\'s grant, checked again when the approved request runs', () => {
  it('a requester who left the group ACCESS_ACTIVATE names before the approval: nothing runs, and the thread says why', async () => {
    const groups: Record<string, string[]> = { S0AGENTS: [AGENT] };
    await start({ ACCESS_ACTIVATE: 'S0AGENTS' }, { groups });
    await requestPriya();
    // The agent leaves the group; the next process (a restart) reads the groups afresh.
    groups.S0AGENTS = [];
    await h.restart();
    await click('Approve', LEAD);
    await h.settled();
    expect(h.uisp.writes()).toEqual([]);
    expect(h.fake.messages(CHANNEL)).toEqual([]);
    expect(thread().at(-1)!.text).toBe(
      `<@${AGENT}> <@${LEAD}> :x: Activating a customer is no longer granted to the requester (the access settings changed since the request), so the approved request did not run. Nothing was written.`,
    );
  });

  it('a requester still in the group: the approved request runs', async () => {
    await start({ ACCESS_ACTIVATE: 'S0AGENTS' }, { groups: { S0AGENTS: [AGENT] } });
    await requestPriya();
    await click('Approve', LEAD);
    await h.settled();
    expect(deletes102()).toHaveLength(1);
  });
});

describe('Retry on an approved activation that failed', () => {
  /** Approves Priya's request, whose run fails at the delete of #102 (UISP does not answer it); the failure report, with Retry. */
  async function approvedRunFails() {
    await start();
    await requestPriya();
    h.uisp.sim.setFaults([{ method: 'DELETE', path: '/crm/api/v1.0/clients/services/102', kind: 'status', status: 503 }]);
    await click('Approve', LEAD);
    await h.settled();
    h.uisp.sim.setFaults([]);
    const failure = h.fake.messages(CHANNEL).find((m) => m.text.startsWith('Activation failed'))!;
    expect([...buttons(failure).keys()]).toEqual(['Retry']);
    return failure;
  }

  it('within the approval’s validity, runs in the same thread as before', async () => {
    const failure = await approvedRunFails();
    const tried = deletes102().length;
    await h.sender.blockAction({ userId: AGENT, actionId: 'activation_retry', message: failure });
    await h.settled();
    expect(deletes102()).toHaveLength(tried + 1);
    expect(h.fake.messages(APPROVALS).filter((m) => m.thread_ts === undefined)).toHaveLength(1);
  });

  it('after the approval expired, asks for a new approval instead of running, and the thread says so', async () => {
    const failure = await approvedRunFails();
    const writes = h.uisp.writes().length;
    clock.now += 5 * HOUR;
    await h.sender.blockAction({ userId: AGENT, actionId: 'activation_retry', message: failure });
    await h.settled();
    expect(h.uisp.writes()).toHaveLength(writes);
    const requests = h.fake.messages(APPROVALS).filter((m) => m.thread_ts === undefined);
    expect(requests).toHaveLength(2);
    expect(shown(requests[1]!)).toContain(`<@${AGENT}> asks to activate *10.20.1.51* for *Priya Ramnarine*`);
    const told = h.fake.messages(CHANNEL).filter((m) => m.thread_ts === failure.thread_ts && m.text.includes('approval'));
    expect(told.at(-1)!.text).toMatch(new RegExp(`^:lock: <@${AGENT}>, the approval of this activation has expired \\(.*\\), so Retry did not run it\\. Nothing was changed\\. A new approval request is in <#${APPROVALS}>`));
    // The used Retry button is gone: the thread has one way forward, the new request.
    expect(shown(h.fake.messages(CHANNEL).find((m) => m.ts === failure.ts)!)).toContain(`Approval asked again by <@${AGENT}>`);
    // The new request is decided like any other: approved, it runs (after reading UISP again).
    posted = requests[1];
    await click('Approve', LEAD);
    await h.settled();
    expect(h.uisp.writes().slice(writes)).toContain('DELETE /crm/api/v1.0/clients/services/102');
  });
});

describe('a Retry button SubOps never offered', () => {
  it('posted with the bot token (the CLI holds it) to delete a service the approval rule covers: nothing runs, the presser is told', async () => {
    await start();
    // The CLI's token is the bot's: its message looks like SubOps' failure report, with a Retry that deletes #102.
    const bot = new webApi.WebClient(BOT_TOKEN, { slackApiUrl: h.fake.apiUrl });
    const value = JSON.stringify({ request: { device: '10.20.1.51', firstName: 'priya', lastName: 'ramnarine' }, startedBy: AGENT, confirm: { deletes: [102] } });
    const posted = await bot.chat.postMessage({ channel: CHANNEL, text: 'Activation failed', blocks: [{ type: 'actions', block_id: 'activation_retry', elements: [{ type: 'button', action_id: 'activation_retry', text: { type: 'plain_text', text: 'Retry' }, value }] }] });
    const message = h.fake.messages(CHANNEL).find((m) => m.ts === posted.ts)!;
    await h.sender.blockAction({ userId: AGENT, actionId: 'activation_retry', message });
    await h.settled();
    expect(h.uisp.writes()).toEqual([]);
    expect(toldPrivately(AGENT)).toEqual([':lock: This Retry deletes services or moves a device, which needs approval, and no approval stands for it. Run /activate again to ask for one. Nothing was changed.']);
  });
});

describe('an approval row written straight into the store (issue #37 §2, §3)', () => {
  const TAMPERED = ":x: This approval request in SubOps' store does not match what was posted for approval, so SubOps refuses it. Nothing was changed; ask for the change again.";

  it('a pending suspension of #101 rewritten to #105: Approve runs nothing, the approver is told, and the refusal is logged', async () => {
    await start();
    await suspendThroughSlack(h, 101, 1);
    posted = requestMessage();
    expect(shown(posted)).toContain('asks to suspend service *#101*');
    await storeSql(`UPDATE approval_requests SET request = jsonb_set(request, '{operation,serviceId}', '105')`);
    await click('Approve', LEAD);
    await h.settled();
    expect(h.uisp.writes()).toEqual([]);
    expect(toldPrivately(LEAD)).toEqual([TAMPERED]);
    expect(refusedRows()).toHaveLength(1);
    expect(thread()).toEqual([]);
  });

  it("a Retry naming an approved suspension's id runs none of another client's delete: the presser is told to ask for its own approval", async () => {
    await start();
    await suspendThroughSlack(h, 101, 1);
    posted = requestMessage();
    const approvalId = (posted.metadata as { event_payload: { request_id: string } }).event_payload.request_id;
    await click('Approve', LEAD);
    await h.settled();
    const writes = h.uisp.writes().length;
    const message = await forgedRetry({ request: { device: '10.20.1.51', firstName: 'priya', lastName: 'ramnarine' }, startedBy: AGENT, confirm: { deletes: [102] }, approvalId });
    await h.sender.blockAction({ userId: AGENT, actionId: 'activation_retry', message });
    await h.settled();
    expect(h.uisp.writes().slice(writes)).toEqual([]);
    expect(toldPrivately(AGENT)).toEqual([
      ':lock: This Retry is not the operation its approval was given for (another device, client, requester, or services to delete), so it needs an approval of its own. Run /activate again to ask for one. Nothing was changed.',
    ]);
  });

  it("a Retry of an approved activation that deletes more than the approver saw, or is started by someone else, runs nothing", async () => {
    await start();
    await requestPriya();
    const approvalId = (requestMessage().metadata as { event_payload: { request_id: string } }).event_payload.request_id;
    h.uisp.sim.setFaults([{ method: 'DELETE', path: '/crm/api/v1.0/clients/services/102', kind: 'status', status: 503 }]);
    await click('Approve', LEAD);
    await h.settled();
    h.uisp.sim.setFaults([]);
    const writes = h.uisp.writes().length;
    const request = { device: '10.20.1.51', firstName: 'priya', lastName: 'ramnarine' };
    for (const value of [
      { request, startedBy: AGENT, confirm: { deletes: [102, 103] }, approvalId },
      { request, startedBy: AGENT, confirm: { deletes: 'any' }, approvalId },
      { request, startedBy: LEAD, confirm: { deletes: [102] }, approvalId },
      { request: { ...request, clientId: 1003 }, startedBy: AGENT, confirm: { deletes: [102] }, approvalId },
    ]) {
      await h.sender.blockAction({ userId: AGENT, actionId: 'activation_retry', message: await forgedRetry(value) });
      await h.settled();
    }
    expect(h.uisp.writes().slice(writes)).toEqual([]);
    expect(toldPrivately(AGENT)).toHaveLength(4);
  });

  it('a decision written into the store (approved, "by the lead") counts for no Retry', async () => {
    await start();
    await requestPriya();
    const approvalId = (requestMessage().metadata as { event_payload: { request_id: string } }).event_payload.request_id;
    await storeSql(`UPDATE approval_requests SET decision = 'approved', decided_by = $1, decided_ms = $2`, [LEAD, clock.now]);
    const message = await forgedRetry({ request: { device: '10.20.1.51', firstName: 'priya', lastName: 'ramnarine' }, startedBy: AGENT, confirm: { deletes: [102] }, approvalId });
    await h.sender.blockAction({ userId: AGENT, actionId: 'activation_retry', message });
    await h.settled();
    expect(h.uisp.writes()).toEqual([]);
    expect(toldPrivately(AGENT)).toEqual([TAMPERED]);
    expect(refusedRows()).toHaveLength(1);
  });

  it("the requester's response_url is not kept in the store", async () => {
    await start();
    await requestPriya();
    const rows = await storeSql<{ request: unknown }>('SELECT request FROM approval_requests');
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows)).not.toMatch(/responseUrl|response_url|\/commands\//);
  });

  it('a row inserted by hand is not acted on by the sweep: it is logged once and set aside, nothing posted or written', async () => {
    await start();
    const request = { id: 'forged', requester: AGENT, origin: { channelId: '#general', userId: AGENT }, requestedAt: clock.now, expiresAt: clock.now - 1, reasons: [{ kind: 'suspension' }], operation: { kind: 'suspension', action: 'suspend', serviceId: 105, status: 1, clientName: '<!channel>' } };
    await storeSql('INSERT INTO approval_requests (id, channel, ts, request, expires_ms) VALUES ($1, $2, $3, $4, $5)', ['forged', '#general', '1.000001', JSON.stringify(request), clock.now - 1]);
    expect(await h.app.sweepApprovals()).toBe(0);
    expect(h.fake.messages('#general')).toEqual([]);
    expect(h.uisp.writes()).toEqual([]);
    expect(refusedRows()).toHaveLength(1);
    // Set aside: logged once, never read as pending again.
    expect(await h.app.sweepApprovals()).toBe(0);
    expect(refusedRows()).toHaveLength(1);
  });
});

describe('a decision nobody can outvote', () => {
  it('a thread flooded with a thousand replies before a Reject: the Reject stands, a later Approve runs nothing', async () => {
    await start();
    await requestPriya();
    // Anyone who may post in the approvals channel: a member with a user token.
    const member = new webApi.WebClient('xoxp-member-token', { slackApiUrl: h.fake.apiUrl, retryConfig: { retries: 0 } });
    for (let i = 0; i < 1000; i++) await member.chat.postMessage({ channel: APPROVALS, thread_ts: requestMessage().ts, text: `reply ${i}` });
    await click('Reject', LEAD);
    await h.settled();
    await click('Approve', OTHER_LEAD);
    await h.settled();
    expect(deletes102()).toEqual([]);
    expect(h.uisp.writes()).toEqual([]);
    expect(toldPrivately(OTHER_LEAD)).toEqual([`This request was already rejected (by <@${LEAD}>). Nothing else was done.`]);
    expect(h.logs.filter((l) => l.audit).map((l) => l.result)).toEqual(['rejected']);
  }, 60_000);
});

describe('approved work a process left unfinished', () => {
  it('the next process tells the requester and the approver in the request thread, and the run in its own', async () => {
    await start();
    await requestPriya();
    // The approved activation reaches the delete of #102, and its process is killed there.
    const deletes = h.uisp.sim.gate({ method: 'DELETE', path: /\/clients\/services\/102$/ });
    await click('Approve', LEAD);
    await deletes.arrived(1);
    await h.fake.waitFor('chat.postMessage', (call) => call.args.channel === CHANNEL && call.args.thread_ts !== undefined);
    const next = await h.replica({ ownServices: true });
    clock.now += 2 * 60_000;
    expect(await next.app.sweepInFlight()).toBe(2);
    const told = thread().filter((m) => m.text.includes('SubOps stopped'));
    expect(told.map((m) => m.text)).toEqual([
      `<@${AGENT}> <@${LEAD}> :warning: *SubOps stopped* while carrying out this approved change (its process was restarted or killed): it may be done in part, or not at all. Look at its own thread, if one was started, before asking again; a new request reads UISP afresh.`,
    ]);
    const runThread = h.fake.messages(CHANNEL).filter((m) => m.thread_ts !== undefined && m.text.startsWith('SubOps stopped before the activation'));
    expect(runThread).toHaveLength(1);
    // Let the killed process's request go only so that the test can close.
    deletes.open();
  });
});

describe('an approval whose process stops right after the decision (issue #36 §4)', () => {
  it('is recorded with its run in one step: stopped while it tells Slack, the next process still tells the requester and the approver', async () => {
    await start();
    await requestPriya();
    // Slack holds the update of the request message: the process is stopped there, before it runs anything.
    const updates = h.fake.hold('chat.update');
    await click('Approve', LEAD);
    await updates.arrived();
    const next = await h.replica({ ownServices: true });
    clock.now += 2 * 60_000;
    expect(await next.app.sweepInFlight()).toBe(1);
    expect(thread().filter((m) => m.text.includes('SubOps stopped')).map((m) => m.text)).toEqual([
      `<@${AGENT}> <@${LEAD}> :warning: *SubOps stopped* while carrying out this approved change (its process was restarted or killed): it may be done in part, or not at all. Look at its own thread, if one was started, before asking again; a new request reads UISP afresh.`,
    ]);
    expect(deletes102()).toEqual([]);
    // Let the stopped process's call go only so that the test can close.
    updates.release();
  });
});

describe('other kinds', () => {
  it('a suspension waits for approval; a service whose status changed meanwhile is left alone, and the thread says why', async () => {
    await start();
    await suspendThroughSlack(h, 101, 1);
    posted = requestMessage();
    expect(shown(posted)).toContain('asks to suspend service *#101*');
    expect(h.uisp.writes()).toEqual([]);
    await changeInUisp(h, 'PATCH', '/clients/services/101/suspend', { suspensionReasonId: 1 });
    const writes = h.uisp.writes().length;
    await click('Approve', LEAD);
    await h.settled();
    expect(h.uisp.writes()).toHaveLength(writes);
    expect(thread().at(-1)!.text).toContain('Service #101 is Suspended now (it was Active when asked), so nothing was written.');
  });


  /** `/payments add` through the form, until the modal says what became of it. */
  async function pay(amount: string, outcome: string) {
    await h.command('/payments', `add 1005 ${amount}`);
    const { id } = await h.openedView();
    await h.fake.waitFor('views.update', (call) => call.args.view_id === id);
    await h.submit(id, inputs({ client: '1005', amount }));
    await h.viewBecomes(id, 'subops_info', outcome);
    await h.settled();
  }

  it('a payment above APPROVAL_PAYMENT_ABOVE waits for approval, then is recorded once', async () => {
    await start();
    await pay('150000', 'Sent for approval');
    expect(h.uisp.writes()).toEqual([]);
    expect(shown(requestMessage())).toContain('is above the approval limit of');
    await click('Approve', LEAD);
    await h.settled();
    expect(h.uisp.writes()).toEqual(['POST /crm/api/v1.0/payments']);
    expect(thread().at(-1)!.text).toContain(':white_check_mark: Recorded payment');
  });

  it('a payment at or below the limit is recorded at once, as before', async () => {
    await start();
    await pay('500', 'Recorded');
    expect(h.uisp.writes()).toEqual(['POST /crm/api/v1.0/payments']);
    expect(h.fake.messages(APPROVALS)).toEqual([]);
  });
});

describe('the Home tab', () => {
  it('shows the requester their pending request, and an approver what waits for them, with Approve that works from there', async () => {
    await start();
    await requestPriya();
    const home = async (userId: string) => {
      await h.sender.event({ type: 'app_home_opened', user: userId, tab: 'home', channel: 'D0HOME' });
      await h.settled();
      return h.fake.homes.get(userId) as { blocks?: unknown[] };
    };
    const mine = await home(AGENT);
    expect(shown(mine)).toContain('*Your requests awaiting approval*\\n• activate *10.20.1.51* for *Priya Ramnarine*');
    expect(shown(mine)).not.toContain('Waiting for your approval');
    const lead = await home(LEAD);
    expect(shown(lead)).toContain('*Waiting for your approval*');
    expectValidHome(h.fake.callsTo('views.publish').filter((c) => c.args.user_id === LEAD).at(-1)!.args.view);
    const approve = buttons(lead).get('Approve')!;
    await h.sender.blockAction({ userId: LEAD, actionId: approve.action_id, value: approve.value!, view: { id: 'VHOME', type: 'home', blocks: lead.blocks } });
    await h.settled();
    expect(deletes102()).toHaveLength(1);
    expect(shown(await home(AGENT))).toContain('*Your requests awaiting approval*\\nNone.');
  });
});

/** Issue #29 item 9: what UISP names things reaches the approvals channel as text, never as markup. */
describe('names from UISP in the approvals channel', () => {
  const PHISHING = '<!channel> <https://evil.example/login|Verify your account>';

  it('a CPE whose hostname is a channel ping and a phishing link: the approved outcome shows it as text', async () => {
    const data = sampleData();
    const cpe = data.devices.find((d) => d.identification.ip === '10.20.1.51')!;
    Object.assign(cpe.identification, { name: PHISHING, hostname: PHISHING, displayName: PHISHING });
    await start({}, { data });
    await requestPriya();
    await click('Approve', LEAD);
    await h.settled();
    const outcome = thread().at(-1)!;
    expect(outcome.text).toMatch(new RegExp(`^<@${AGENT}> <@${LEAD}> :white_check_mark: Activated`));
    for (const text of [outcome.text, shown(outcome)]) {
      expect(text).not.toContain('<!channel>');
      expect(text).not.toContain('<https://evil');
      expect(text).toContain('&lt;!channel&gt; &lt;https://evil.example/login|Verify your account&gt;');
    }
    expectValidMessage({ text: outcome.text, blocks: outcome.blocks! });
    // Nor anywhere else SubOps posted: the activation's thread, the audit channel, the updates.
    const everything = JSON.stringify(['chat.postMessage', 'chat.update', 'chat.postEphemeral'].flatMap((method) => h.fake.callsTo(method).map((c) => [c.args.text, c.args.blocks])));
    expect(everything).toContain('&lt;!channel&gt;');
    expect(everything).not.toMatch(/<!channel>|<https:\/\/evil/);
  });

  it('a client name with a line break and bold draws no line of its own in the approval request', async () => {
    const data = sampleData();
    const clientId = data.services.find((s) => s.id === 101)!.clientId;
    Object.assign(data.clients.find((c) => c.id === clientId)!, { firstName: '*Nothing is suspended. Safe to approve*\n• spoof', lastName: 'Doe' });
    await start({}, { data });
    await suspendThroughSlack(h, 101, 1);
    const request = requestMessage();
    // In the blocks' JSON a line break is written as backslash-n; in the notification text it is raw.
    expect(JSON.stringify(request.blocks)).not.toMatch(/\\n• spoof|\*Nothing is suspended/);
    expect(request.text).not.toMatch(/\n• spoof|\*Nothing is suspended/);
    expect(shown(request)).toContain('Nothing is suspended. Safe to approve');
  });

  it('a rejected request\'s audit record names the client as the CRM has it, escaped once', async () => {
    const data = sampleData();
    const clientId = data.services.find((s) => s.id === 101)!.clientId;
    Object.assign(data.clients.find((c) => c.id === clientId)!, { firstName: 'Smith & Sons', lastName: '<Ltd>', companyName: null });
    await start({}, { data });
    await suspendThroughSlack(h, 101, 1);
    posted = requestMessage();
    await click('Reject', LEAD);
    await h.settled();
    const audit = h.fake.messages(AUDIT_CHANNEL).at(-1)!;
    expect(audit.metadata).toMatchObject({ event_payload: { result: 'rejected', summary: expect.stringContaining('of Smith & Sons <Ltd> was rejected') } });
    expect(shown(audit)).toContain('of Smith &amp; Sons &lt;Ltd&gt; was rejected');
    expect(shown(audit)).not.toContain('&amp;amp;');
  });
});
