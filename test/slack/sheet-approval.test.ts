/**
 * One approval for a whole install sheet (issue #41): a sheet with a row whose delete the approval rule
 * covers asks for one approval showing the check's plan; nothing is written until an approver other than
 * the requester approves, and then every row runs in one thread, as the requester's, audited with the
 * approver. Reject writes nothing; two approvers at once run it once (their decisions held at the store
 * until both wait); a row rewritten in the store runs nothing.
 */
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, inject, it } from 'vitest';
import { holdWrites } from '../support/store.js';
import { expectValidMessage } from './block-kit.js';
import { AGENT, buttons, CHANNEL, inputs, shown, startHarness, type Harness } from './harness.js';

const APPROVALS = 'C0APPROVALS';
const LEAD = 'U0LEAD';
const OTHER_LEAD = 'U0LEAD2';
const HEADER = 'device,first_name,last_name,client_id';
/** Row 1 replaces Priya's Quoted service #102 (needs approval); row 2 deletes nothing. */
const SHEET = [HEADER, '10.20.1.51,Priya,Ramnarine,1002', 'PowerBeam 5AC,Ada,Lovelace,'].join('\n');

let h: Harness;
/** The clock approval requests expire on: the test moves it. */
const clock = { now: 0 };
beforeEach(async () => {
  clock.now = Date.now();
  h = await startHarness({
    env: { APPROVAL_REQUIRED_FOR: 'delete-service', APPROVALS_CHANNEL_ID: APPROVALS, ACCESS_APPROVE: 'S0LEADS', APPROVAL_EXPIRY_HOURS: '2' },
    fakeSlack: { usergroups: { S0LEADS: [LEAD, OTHER_LEAD] } },
    now: () => clock.now,
  });
});
afterEach(async () => {
  await h.close();
});

const requestMessage = () => h.fake.messages(APPROVALS).find((m) => m.thread_ts === undefined)!;
const thread = () => h.fake.messages(APPROVALS).filter((m) => m.thread_ts === requestMessage().ts && m.ts !== requestMessage().ts);
const toldPrivately = (userId: string) => h.fake.callsTo('chat.postEphemeral').filter((c) => c.args.user === userId).map((c) => String(c.args.text));
const authorized = () => h.uisp.writes().filter((w) => w.endsWith('/authorize'));

/** The request message as first posted, with its buttons. */
let posted: ReturnType<typeof requestMessage> | undefined;

/** The sheet pasted, checked, and sent for approval by the agent. */
async function askApproval() {
  await h.command('/activate', 'sheet');
  const { id } = await h.openedView();
  await h.submit(id, inputs({ sheet: SHEET }));
  // The check as shown, before the modal moves on.
  const checked = structuredClone(await h.viewBecomes(id, 'sheet_check'));
  await h.submit(id, {});
  await h.viewBecomes(id, 'subops_info', 'Sent for approval');
  await h.settled();
  posted = requestMessage();
  return checked;
}

/** Approve or Reject pressed on the request message as first posted (the clicker's Slack still shows its buttons). */
function click(label: 'Approve' | 'Reject', userId: string) {
  const message = posted!;
  const button = buttons(message).get(label)!;
  return h.sender.blockAction({ userId, actionId: button.action_id, value: button.value!, message, channelId: APPROVALS, messageTs: message.ts });
}
afterEach(() => {
  posted = undefined;
});

describe('an install sheet with a row whose delete needs approval', () => {
  it('asks one approval for the sheet, showing the check\'s plan; nothing is written before the decision', async () => {
    const checked = await askApproval();
    const check = shown({ blocks: checked.blocks as unknown[] });
    expect(check).toContain('*needs approval:* delete Quoted service #102');
    expect(JSON.stringify(checked.submit)).toContain('Ask approval');

    const requests = h.fake.messages(APPROVALS);
    expect(requests).toHaveLength(1);
    const request = shown(requests[0]!);
    expect(request).toContain(`<@${AGENT}> asks to run an install sheet of *2 rows*`);
    expect(request).toMatch(/row 1 \(line 2\) \*10\.20\.1\.51\*: client #1002 Priya Ramnarine; new Active service replacing Quoted service #102/);
    expect(request).toContain('*needs approval:* delete Quoted service #102');
    expect(request).toContain('row 2 (line 3) *PowerBeam 5AC*');
    expectValidMessage({ text: requests[0]!.text, blocks: requests[0]!.blocks! });
    // The buttons name the request only, never the sheet.
    for (const button of buttons(requests[0]!).values()) expect(button.value!.length).toBeLessThan(100);
    expect(h.uisp.writes()).toEqual([]);
    expect(h.fake.messages(CHANNEL)).toEqual([]);
  });

  it('approved: every row runs in one thread as the requester\'s, the delete goes out, each audit record names the approver', async () => {
    await askApproval();
    await click('Approve', LEAD);
    await h.settled();
    const parents = h.fake.messages(CHANNEL).filter((m) => m.thread_ts === undefined);
    expect(parents).toHaveLength(1);
    expect(shown(parents[0]!)).toContain(`Install sheet started by <@${AGENT}>: *done*. 2 activated, 0 already activated, 0 failed, 0 refused`);
    expect(h.uisp.writes()).toContain('DELETE /crm/api/v1.0/clients/services/102');
    expect(authorized()).toHaveLength(2);
    const audits = h.logs.filter((l) => l.audit === true);
    expect(audits.map((l) => [l.action, l.result, l.approvedBy])).toEqual([
      ['activate', 'activated', LEAD],
      ['activate', 'activated', LEAD],
    ]);
    expect(thread().map((m) => m.text).join('\n')).toContain(`<@${LEAD}> approved <@${AGENT}>'s request`);
    // The sheet's own thread names the approver, as an approved activation's does.
    expect(h.fake.messages(CHANNEL).filter((m) => m.thread_ts === parents[0]!.ts).map((m) => m.text)).toContain(`:white_check_mark: Approved by <@${LEAD}>.`);
  });

  it('UISP changed before the approval (the Quoted service turned Active): each row reads UISP again, so #102 is kept, not deleted', async () => {
    await askApproval();
    h.uisp.sim.data.services.find((s) => s.id === 102)!.status = 1;
    await click('Approve', LEAD);
    await h.settled();
    expect(h.uisp.writes().filter((w) => w.startsWith('DELETE'))).toEqual([]);
    const rows = h.fake.messages(CHANNEL).find((m) => m.text.startsWith('Rows:'));
    expect(shown(rows!)).toContain('row 1 (line 2) *10.20.1.51*: Activated Priya Ramnarine: service #102');
  });

  it('rejected: nothing is written and the requester is told in the request\'s thread', async () => {
    await askApproval();
    await click('Reject', LEAD);
    await h.settled();
    expect(h.uisp.writes()).toEqual([]);
    expect(h.fake.messages(CHANNEL)).toEqual([]);
    expect(thread().map((m) => m.text)).toEqual([`<@${LEAD}> rejected <@${AGENT}>'s request. Nothing was changed.`]);
    expect(h.logs.filter((l) => l.audit === true).map((l) => [l.result, String(l.msg)])).toEqual([['rejected', `The request to run an install sheet of 2 rows was rejected by ${LEAD}: nothing was changed.`]]);
  });

  it('expired: nothing is written, the requester is told in the request\'s thread, and a late Approve runs nothing', async () => {
    await askApproval();
    clock.now += 2 * 3_600_000;
    expect(await h.app.sweepApprovals()).toBe(1);
    await h.settled();
    expect(thread().map((m) => m.text)).toEqual([`<@${AGENT}>, your request expired without a decision. Nothing was changed; start again if it is still needed.`]);
    await click('Approve', LEAD);
    await h.settled();
    expect(h.uisp.writes()).toEqual([]);
    expect(h.fake.messages(CHANNEL)).toEqual([]);
  });

  it('two approvers at the same moment: the sheet runs once, the other is told who decided', async () => {
    await askApproval();
    const decisions = await holdWrites(h.store.schema, 'approval_requests');
    const pressed = [click('Approve', LEAD), click('Approve', OTHER_LEAD)];
    await decisions.waiting(2);
    await decisions.release();
    await Promise.all(pressed);
    await h.settled();
    expect(h.fake.messages(CHANNEL).filter((m) => m.thread_ts === undefined)).toHaveLength(1);
    expect(authorized()).toHaveLength(2);
    expect(h.uisp.writes().filter((w) => w === 'DELETE /crm/api/v1.0/clients/services/102')).toHaveLength(1);
    const told = [...toldPrivately(LEAD), ...toldPrivately(OTHER_LEAD)];
    expect(told).toHaveLength(1);
    expect(told[0]).toMatch(/^This request was already approved \(by <@U0LEAD2?>\)\. Nothing else was done\.$/);
  });

  it('a request rewritten in the store (another service to delete): Approve runs nothing and says why', async () => {
    await askApproval();
    const client = new pg.Client({ connectionString: inject('postgresUrl'), options: `-c search_path=${h.store.schema}` });
    await client.connect();
    try {
      const rows = await client.query(`UPDATE approval_requests SET request = jsonb_set(request, '{operation,check,rows,0,confirm,deletes,0,id}', '105') RETURNING id`);
      expect(rows.rowCount).toBe(1);
    } finally {
      await client.end();
    }
    await click('Approve', LEAD);
    await h.settled();
    expect(h.uisp.writes()).toEqual([]);
    expect(h.fake.messages(CHANNEL)).toEqual([]);
    expect(toldPrivately(LEAD)).toEqual([":x: This approval request in SubOps' store does not match what was posted for approval, so SubOps refuses it. Nothing was changed; ask for the change again."]);
  });
});

describe('an approved sheet whose process stopped before its delete', () => {
  const LEASE_MS = 120_000;
  const DELETE_102 = { method: 'DELETE', path: '/crm/api/v1.0/clients/services/102' };

  /** Approved, then killed while row 1's delete of #102 hangs (never applied); row 2 ends. The next process's stop message. */
  async function stoppedAfterApproval() {
    const deletes = h.uisp.sim.gate(DELETE_102);
    await askApproval();
    void click('Approve', LEAD);
    await deletes.arrived(1);
    await h.fake.waitFor('chat.update', (call) => call.args.text === 'Rows: 1 of 2 ended.');
    const parent = h.fake.messages(CHANNEL).find((m) => m.thread_ts === undefined)!;
    const next = await h.replica({ ownServices: true });
    clock.now += LEASE_MS;
    // The sheet's thread, and the approval's thread (its approved run), are each told.
    expect(await next.app.sweepInFlight()).toBe(2);
    const stopped = h.fake.messages(CHANNEL).find((m) => m.thread_ts === parent.ts && m.text.startsWith('SubOps stopped'))!;
    return { deletes, next, parent, stopped };
  }

  it('Continue while the approval stands runs row 1 as approved: #102 is deleted, the thread and the audit name the approver', async () => {
    const { deletes, next, parent, stopped } = await stoppedAfterApproval();
    await next.sender.blockAction({ userId: AGENT, actionId: 'sheet_continue', message: stopped });
    await deletes.arrived(2);
    await deletes.release(1);
    await h.fake.waitFor('chat.update', (call) => call.args.ts === parent.ts && String(call.args.text).includes('*done*'));
    await next.settled();
    expect(h.fake.messages(CHANNEL).filter((m) => m.thread_ts === parent.ts).map((m) => m.text)).toContain(`:arrow_forward: Continued by <@${AGENT}>: 1 row to run, each read again in UISP first. Still under <@${LEAD}>'s approval.`);
    expect(shown(h.fake.messages(CHANNEL).find((m) => m.ts === parent.ts)!)).toContain('2 activated, 0 already activated, 0 failed, 0 refused');
    expect(h.uisp.sim.data.services.find((s) => s.id === 102)).toBeUndefined();
    expect(h.logs.filter((l) => l.audit === true).map((l) => [l.action, l.result, l.approvedBy])).toEqual([
      ['activate', 'activated', LEAD],
      ['activate', 'activated', LEAD],
    ]);
    deletes.open();
  });

  it('Continue after the approval expired: row 1 confirms nothing and stops before any write, and the thread says why', async () => {
    const { deletes, next, parent, stopped } = await stoppedAfterApproval();
    clock.now += 3 * 3_600_000;
    await next.sender.blockAction({ userId: AGENT, actionId: 'sheet_continue', message: stopped });
    await h.fake.waitFor('chat.update', (call) => call.args.ts === parent.ts && String(call.args.text).includes('*done*'));
    await next.settled();
    expect(h.fake.messages(CHANNEL).filter((m) => m.thread_ts === parent.ts).map((m) => m.text)).toContain(
      `:arrow_forward: Continued by <@${AGENT}>: 1 row to run, each read again in UISP first. The sheet's approval no longer stands (it expired): its rows under approval stop before any write; activate them with \`/activate\`.`,
    );
    expect(deletes.held).toHaveLength(1);
    expect(h.uisp.sim.data.services.find((s) => s.id === 102)?.status).not.toBe(1);
    expect(shown(h.fake.messages(CHANNEL).find((m) => m.ts === parent.ts)!)).toContain('1 activated, 0 already activated, 0 failed, 1 refused');
    deletes.open();
  });
});
