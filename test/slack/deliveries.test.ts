/**
 * Every Slack delivery acts once: a form submitted twice with the same values, a double-clicked Retry,
 * and Slack's own redeliveries (x-slack-retry-num) write to UISP once; the repeat gets the first one's
 * answer or an "already done" one.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ViewStateValues } from '../../src/playground/slack-sender.js';
import { AGENT, AUDIT_CHANNEL, CHANNEL, inputs, selected, shown, startHarness, type Harness } from './harness.js';

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(async () => {
  await h.close();
});

/** The same view, as Slack holds it now, submitted twice at once with the same values. */
async function submitTwice(viewId: string, values: ViewStateValues) {
  const view = structuredClone(h.fake.views.get(viewId)!);
  return Promise.all([h.sender.viewSubmission({ userId: AGENT, view, values }), h.sender.viewSubmission({ userId: AGENT, view, values })]);
}

const pushedNotice = (reply: { body: { response_action?: string; view?: unknown } }) => reply.body.response_action === 'push' && JSON.stringify(reply.body.view).includes('already submitted');

describe('a form submitted twice', () => {
  it('runs the activation once; the repeat is told it was already submitted', async () => {
    await h.command('/activate');
    const { id } = await h.openedView();
    const replies = await submitTwice(id, inputs({ device: '10.20.1.88', firstName: 'Jane', lastName: 'Doe' }));
    await h.settled();

    expect(replies.filter((r) => r.body.response_action === 'update' && JSON.stringify(r.body.view).includes('Checking'))).toHaveLength(1);
    expect(replies.filter(pushedNotice)).toHaveLength(1);
    expect(h.uisp.writes().filter((w) => w === 'POST /crm/api/v1.0/clients')).toHaveLength(1);
    expect(h.uisp.writes().filter((w) => w === 'POST /nms/api/v2.1/sites')).toHaveLength(1);
    const parents = h.fake.messages(CHANNEL).filter((m) => !m.thread_ts);
    expect(parents).toHaveLength(1);
    expect(h.fake.messages(AUDIT_CHANNEL)).toHaveLength(1);
    expect(h.logs.filter((l) => l.msg === 'ignored a repeated submission of a form')).toHaveLength(1);
  });

  it('records a payment once, even when the repeat comes after the first has finished', async () => {
    await h.command('/payments', 'add 1001');
    const { id } = await h.openedView();
    await h.fake.waitFor('views.update', (call) => JSON.stringify(call.args.view).includes('"block_id":"method"'));
    const cashId = h.uisp.sim.data.paymentMethods.find((m) => m.name === 'Cash')!.id;
    // As the agent's Slack client holds it when Submit is clicked (the fake updates its copy later).
    const view = structuredClone(h.fake.views.get(id)!);
    const values = { ...inputs({ client: '1001', amount: '2500' }), method: selected('value', String(cashId)) };

    const first = await h.sender.viewSubmission({ userId: AGENT, view, values });
    await h.settled();
    const again = await h.sender.viewSubmission({ userId: AGENT, view, values });
    await h.settled();

    expect(first.body.response_action).toBe('update');
    expect(pushedNotice(again)).toBe(true);
    expect(h.uisp.writes()).toEqual(['POST /crm/api/v1.0/payments']);
    expect(h.fake.messages(CHANNEL)).toHaveLength(1);
    expect(h.logs.filter((l) => l.audit)).toHaveLength(1);
    // The modal still shows the recorded payment: the notice was pushed on top, nothing replaced it.
    expect(JSON.stringify(h.fake.views.get(id))).toContain('Recorded payment');
  });

  it('answers a repeated invalid submission with the same field errors, and sends nothing', async () => {
    await h.command('/payments', 'add');
    const { id } = await h.openedView();
    const replies = await submitTwice(id, inputs({ client: '1001', amount: '-5' }));
    const errors = { response_action: 'errors', errors: { amount: 'Amount must be positive: negative amounts are not accepted.' } };
    expect(replies.map((r) => r.body)).toEqual([errors, errors]);
    expect(h.uisp.writes()).toEqual([]);
  });

  it('suspends once when the confirmation arrives twice', async () => {
    await h.command('/suspend', '101');
    const { id } = await h.openedView();
    await h.fake.waitFor('views.update', (call) => JSON.stringify(call.args.view).includes('"block_id":"reason"'));
    await h.submit(id, { ...inputs({ service: '101' }), reason: selected('value', '2') });
    await h.viewBecomes(id, 'suspension_confirm');
    await submitTwice(id, {});
    await h.settled();

    expect(h.uisp.writes()).toEqual(['PATCH /crm/api/v1.0/clients/services/101/suspend']);
    expect(h.fake.messages(CHANNEL).filter((m) => !m.thread_ts)).toHaveLength(1);
    expect(h.logs.filter((l) => l.audit)).toHaveLength(1);
  });

  it('is a new request once the app has changed the form: the same values after a problem run again', async () => {
    await h.command('/activate');
    const { id } = await h.openedView();
    const values = inputs({ device: 'no-such-cpe', firstName: 'Jane', lastName: 'Doe' });
    await h.submit(id, values);
    await h.viewBecomes(id, 'activate_form', 'Device not found');
    const readsBefore = h.uisp.sim.requests.length;
    // Same values, but the form now carries the problem (a new view hash): a deliberate second try.
    const again = await h.submit(id, values);
    await h.settled();
    expect(again.body.response_action).toBe('update');
    expect(h.uisp.sim.requests.length).toBeGreaterThan(readsBefore);
  });
});

describe('a button pressed twice', () => {
  it('retries a failed activation once; the second press is told it was already pressed', async () => {
    h.uisp.sim.setFaults([{ method: 'POST', path: '/nms/api/v2.1/sites', kind: 'status', status: 400 }]);
    await h.command('/activate');
    const { id } = await h.openedView();
    await h.submit(id, inputs({ device: '10.20.1.88', firstName: 'jane', lastName: 'doe' }));
    await h.settled();
    const failureReport = h.fake.messages(CHANNEL).find((m) => m.text.startsWith('Activation failed'))!;
    h.uisp.sim.setFaults([]);

    // Two clicks: two payloads with their own action_ts, from the same button on the same message.
    const press = () => h.sender.blockAction({ userId: AGENT, actionId: 'activation_retry', message: failureReport });
    const clicks = await Promise.all([press(), press()]);
    await h.settled();

    expect(clicks.map((c) => c.status)).toEqual([200, 200]);
    expect(h.uisp.writes().filter((w) => w === 'POST /nms/api/v2.1/sites')).toHaveLength(2);
    expect(h.fake.messages(CHANNEL).filter((m) => m.text.includes('Retry started by'))).toHaveLength(1);
    expect(h.fake.responses.map((r) => String(r.body.text))).toEqual([expect.stringContaining('already pressed')]);
    expect(h.logs.filter((l) => l.audit).map((l) => l.result)).toEqual(['failed', 'activated']);
  });
});

describe("Slack's redeliveries", () => {
  it('acts on a slash command once when Slack delivers it again with x-slack-retry-num', async () => {
    expect((await h.command('/activate', '10.20.1.88 jane doe')).status).toBe(200);
    const retried = await h.sender.redeliver(1, 'http_timeout');
    await h.settled();
    expect(retried).toEqual({ status: 200, body: '' });
    expect(h.fake.callsTo('views.open')).toHaveLength(1);
    expect(h.logs.find((l) => l.msg === 'ignored a repeated delivery from Slack')).toMatchObject({ kind: 'command', retryNum: 1, retryReason: 'http_timeout' });
  });

  it('answers an Events API event once when Slack retries it to another replica', async () => {
    const other = await h.replica();
    await h.sender.event({ type: 'app_home_opened', user: AGENT, tab: 'home', channel: 'D0AGENT' });
    await h.settled();
    const retried = await h.sender.redeliver(1, 'http_timeout', other.sender);
    await other.settled();
    expect(retried.status).toBe(200);
    expect(h.fake.callsTo('views.publish')).toHaveLength(1);
    expect(h.logs.find((l) => l.msg === 'ignored a repeated delivery from Slack')).toMatchObject({ kind: 'event', retryNum: 1, retryReason: 'http_timeout' });
  });

  it('acts on a form submission once when the same payload arrives again', async () => {
    await h.command('/activate');
    const { id } = await h.openedView();
    await h.submit(id, inputs({ device: '10.20.1.88', firstName: 'Jane', lastName: 'Doe' }));
    const retried = await h.sender.redeliver(1, 'http_timeout');
    await h.settled();
    expect(pushedNotice(retried)).toBe(true);
    expect(h.uisp.writes().filter((w) => w === 'POST /crm/api/v1.0/clients')).toHaveLength(1);
    expect(shown(h.fake.messages(CHANNEL)[0]!)).toContain('Activated');
  });
});
