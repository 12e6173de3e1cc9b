/**
 * UISP CRM webhooks end to end: the simulator changes its data (as the UISP web interface would) and
 * POSTs the webhook to the bot's /uisp/webhook; the bot confirms the event with the CRM, reads the
 * entity and posts one line to the audit channel — never for changes SubOps made itself.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { crm } from '../simulator/helpers.js';
import { AGENT, AUDIT_CHANNEL, buttons, CHANNEL, inputs, selected, shown, startHarness, suspendThroughSlack, WEBHOOK_TOKEN, type Harness, type HarnessOptions, changeInUisp } from './harness.js';

let h: Harness;
afterEach(async () => {
  await h?.close();
});

const start = async (options: HarnessOptions = {}) => {
  h = await startHarness({ ...options, events: {} });
};

/** A change made in UISP outside SubOps, and everything it sets off, finished. */
const inUisp = (method: string, path: string, body?: unknown) => changeInUisp(h, method, path, body);

const auditLines = () => h.fake.messages(AUDIT_CHANNEL).map((m) => m.text);
const confirmations = () => h.uisp.sim.requests.filter((r) => r.method === 'GET' && r.path.startsWith('/crm/api/v1.0/webhook-events/'));

describe('changes made in UISP outside SubOps', () => {
  it('a suspension: confirmed with the CRM, the service and client read, one line in the audit channel', async () => {
    await start();
    await inUisp('PATCH', '/clients/services/101/suspend', { suspensionReasonId: 1 });
    const uuid = h.uisp.sim.webhookEvents[0]!.uuid;
    expect(h.uisp.sim.webhookDeliveries).toEqual([expect.objectContaining({ uuid, status: 200 })]);
    expect(confirmations().map((r) => r.path)).toEqual([`/crm/api/v1.0/webhook-events/${uuid}`]);
    const [line] = h.fake.messages(AUDIT_CHANNEL);
    expect(h.fake.messages(AUDIT_CHANNEL)).toHaveLength(1);
    expect(line!.text).toBe(`:double_vertical_bar: Service #101 (Standard Monthly) of client <${h.uisp.sim.url}/crm/client/1001|#1001 Marcus Baptiste> was *suspended* in UISP, not through the SubOps bot.`);
    expect(shown(line!)).toContain('UISP event service.suspend');
    expect(shown(line!)).not.toContain('uisp_unsuspend');
    // What the daily digest reads back: a suspension made in UISP itself.
    expect(line!.metadata).toEqual({ event_type: 'subops_uisp_change', event_payload: { change: 'service-suspended', uuid, serviceId: 101, clientId: 1001 } });
  });

  it.each([
    ['a suspension lifted', 'PATCH', '/clients/services/104/cancel-suspend', undefined, /^:arrow_forward: The suspension of service #104 .* of client <[^|]+\|#1005 Ravi Persaud> was \*lifted\* in UISP, not through the SubOps bot\.$/],
    ['a service ended', 'PATCH', '/clients/services/105/end', undefined, /^:stop_button: Service #105 \(Business 25\) of client <[^|]+\|#1006 Bartica Marine Supplies> was \*ended\*/],
    ['an Active service created', 'POST', '/clients/1004/services', { status: 1, servicePlanPeriodId: 37, activeFrom: '2026-01-01', invoicingStart: '2026-01-01' }, /^:white_check_mark: Service #106 \(Standard Monthly\) of client <[^|]+\|#1004 Shanice Williams> was \*activated\*/],
    ['a payment', 'POST', '/payments', { clientId: 1001, amount: 2500 }, /^:moneybag: A payment of \*GYD 2,500\.00\* \(#\d+\) for client <[^|]+\|#1001 Marcus Baptiste> was \*recorded\* in UISP, not through the SubOps bot\.$/],
    ['a client created', 'POST', '/clients', { firstName: 'Ada', lastName: 'Lovelace' }, /^:bust_in_silhouette: Client <[^|]+\|#1010 Ada Lovelace> was \*created\*/],
    ['a client archived', 'PATCH', '/clients/1004/archive', undefined, /^:file_cabinet: Client <[^|]+\|#1004 Shanice Williams> was \*archived\*/],
  ])('%s: one line', async (_what, method, path, body, line) => {
    await start();
    await inUisp(method, path, body);
    expect(auditLines()).toEqual([expect.stringMatching(line)]);
  });

  it('changes SubOps does not report (a quote created, a client edited) post nothing', async () => {
    await start();
    await inUisp('POST', '/clients/1004/services', { servicePlanPeriodId: 37, activeFrom: '2026-01-01', invoicingStart: '2026-01-01' });
    await inUisp('PATCH', '/clients/1004', { city: 'Linden' });
    expect(h.uisp.sim.webhookEvents.map((e) => e.eventName)).toEqual(['service.add', 'client.edit']);
    expect(auditLines()).toEqual([]);
  });
});

describe('SubOps’ own changes', () => {
  it('a suspension made through another bot process (a replica) is recognised from its sealed audit record, not posted again', async () => {
    await start();
    const replica = await h.replica({ ownServices: true });
    // Webhooks held back until the replica has audited, as when processing outlasts its audit post.
    h.uisp.sim.setWebhookUrl(undefined);
    await replica.sender.slashCommand({ command: '/suspend', text: '101', userId: AGENT, channelId: CHANNEL });
    const { id } = await h.openedView();
    await h.fake.waitFor('views.update', (call) => JSON.stringify(call.args.view).includes('"block_id":"reason"'));
    await replica.sender.viewSubmission({ userId: AGENT, view: h.fake.views.get(id)!, values: { ...inputs({ service: '101' }), reason: selected('value', '1') } });
    await h.viewBecomes(id, 'suspension_confirm');
    await replica.sender.viewSubmission({ userId: AGENT, view: h.fake.views.get(id)!, values: {} });
    await replica.settled();
    h.uisp.sim.setWebhookUrl(`${h.origin}/uisp/webhook?token=${WEBHOOK_TOKEN}`);
    h.uisp.sim.resendWebhook(h.uisp.sim.webhookEvents[0]!.uuid);
    await h.uisp.sim.webhooksSettled();
    await h.settled();
    expect(h.uisp.sim.webhookEvents.map((e) => e.eventName)).toEqual(['service.suspend']);
    expect(confirmations()).toHaveLength(1);
    expect(auditLines()).toEqual([`suspend by <@${AGENT}>: suspended`]);
    expect(h.fake.callsTo('conversations.history')).toHaveLength(1);
  });

  it('a suspension made with /suspend is audited once, not reported again as a change made in UISP', async () => {
    await start();
    await suspendThroughSlack(h, 101, 2);
    expect(h.uisp.sim.webhookEvents.map((e) => e.eventName)).toEqual(['service.suspend']);
    expect(confirmations()).toHaveLength(1);
    expect(auditLines()).toEqual([`suspend by <@${AGENT}>: suspended`]);
  });
});

describe('delivery', () => {
  it('an event UISP sends again is processed once', async () => {
    await start();
    await inUisp('PATCH', '/clients/services/101/suspend', { suspensionReasonId: 1 });
    h.uisp.sim.resendWebhook(h.uisp.sim.webhookEvents[0]!.uuid);
    await h.uisp.sim.webhooksSettled();
    await h.settled();
    expect(h.uisp.sim.webhookDeliveries.map((d) => d.status)).toEqual([200, 200]);
    expect(confirmations()).toHaveLength(1);
    expect(auditLines()).toHaveLength(1);
  });

  it('an event UISP sends again to another replica (its first answer was lost) is posted once', async () => {
    await start();
    const other = await h.replica();
    await inUisp('PATCH', '/clients/services/101/suspend', { suspensionReasonId: 1 });
    h.uisp.sim.setWebhookUrl(other.webhookUrl);
    h.uisp.sim.resendWebhook(h.uisp.sim.webhookEvents[0]!.uuid);
    await h.uisp.sim.webhooksSettled();
    await other.settled();
    expect(h.uisp.sim.webhookDeliveries.map((d) => d.status)).toEqual([200, 200]);
    expect(auditLines()).toEqual([expect.stringContaining('Service #101 (Standard Monthly) of client')]);
    expect(h.logs.filter((line) => String(line.msg).startsWith('ignored a webhook event another SubOps process'))).toHaveLength(1);
  });

  it('an event replayed after a restart is not posted again: the store remembers it', async () => {
    await start();
    await inUisp('POST', '/payments', { clientId: 1001, amount: 2500 });
    await h.restart();
    h.uisp.sim.resendWebhook(h.uisp.sim.webhookEvents[0]!.uuid);
    await h.uisp.sim.webhooksSettled();
    await h.settled();
    expect(h.uisp.sim.webhookDeliveries.map((d) => d.status)).toEqual([200, 200]);
    expect(auditLines()).toEqual([expect.stringMatching(/^:moneybag: A payment of \*GYD 2,500\.00\*/)]);
  });

  it('a body the CRM does not confirm is ignored: its claims are never read or posted', async () => {
    await start();
    const forged = { uuid: '2c6984d7-03ae-4e48-a212-7b99378837a2', changeType: 'suspend', entity: 'service', entityId: '101', eventName: 'service.suspend' };
    const response = await fetch(`${h.origin}/uisp/webhook?token=${WEBHOOK_TOKEN}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(forged) });
    expect(response.status).toBe(200);
    await h.settled();
    expect(h.uisp.sim.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /crm/api/v1.0/webhook-events/2c6984d7-03ae-4e48-a212-7b99378837a2']);
    expect(auditLines()).toEqual([]);
    expect(h.logs.some((line) => line.uuid === forged.uuid && String(line.msg).includes('knows no webhook event'))).toBe(true);
  });

  it('refuses bodies without an event uuid (400) and, with WEBHOOK_TOKEN, URLs without the token (401)', async () => {
    await start({ env: { WEBHOOK_TOKEN: 'hook-SECRET-5d1e-a7c2f09b3e' } });
    const post = (query: string, body: string) => fetch(`${h.origin}/uisp/webhook${query}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect((await post('', '{}')).status).toBe(401);
    expect((await post('?token=wrong', '{}')).status).toBe(401);
    expect((await post('?token=hook-SECRET-5d1e-a7c2f09b3e', '{"uuid":"nope"}')).status).toBe(400);
    expect((await post('?token=hook-SECRET-5d1e-a7c2f09b3e', 'not json')).status).toBe(400);
    // The simulator is pointed at the URL with the token: real events still get through.
    await inUisp('PATCH', '/clients/services/101/suspend', { suspensionReasonId: 1 });
    expect(auditLines()).toHaveLength(1);
    expect(h.uisp.sim.requests.filter((r) => r.path.includes('webhook-events'))).toHaveLength(1);
    expect(h.rawLog()).not.toContain('hook-SECRET-5d1e-a7c2f09b3e');
  });
});

describe('a payment by a client whose service is suspended', () => {
  const paymentNotice = async () => {
    await inUisp('POST', '/payments', { clientId: 1005, amount: 10_000 });
    const [notice] = h.fake.messages(AUDIT_CHANNEL);
    return notice!;
  };

  it('posts an actionable notice; Unsuspend runs the normal flow and its audit, and its webhook is SubOps’ own', async () => {
    await start();
    const notice = await paymentNotice();
    expect(notice.text).toMatch(/^:moneybag: A payment of \*GYD 10,000\.00\* .*#1005 Ravi Persaud/);
    expect(shown(notice)).toContain('suspended service: service #104');
    expect(shown(notice)).toContain('"action_id":"uisp_unsuspend:104"');

    const button = buttons(notice).get('Unsuspend #104')!;
    const pressed = await h.sender.blockAction({ userId: AGENT, actionId: button.action_id, value: button.value!, message: notice });
    expect(pressed.status).toBe(200);
    await h.settled();
    await h.uisp.sim.webhooksSettled();
    await h.settled();

    expect(h.uisp.writes()).toEqual(['POST /crm/api/v1.0/payments', 'PATCH /crm/api/v1.0/clients/services/104/cancel-suspend']);
    expect(h.uisp.sim.data.services.find((s) => s.id === 104)!.status).toBe(1);
    const [updatedNotice, parent, audit] = h.fake.messages(AUDIT_CHANNEL).filter((m) => m.thread_ts === undefined);
    expect(shown(updatedNotice!)).not.toContain('"action_id":"uisp_unsuspend');
    expect(shown(updatedNotice!)).toContain(`Unsuspend of service #104 started by <@${AGENT}>`);
    expect(shown(parent!)).toContain('#104');
    expect(h.fake.messages(AUDIT_CHANNEL).find((m) => m.thread_ts === parent!.ts)!.text).toMatch(/^:white_check_mark: Service #104/);
    expect(audit!.text).toBe(`unsuspend by <@${AGENT}>: unsuspended`);
    // The thread of the un-suspension, and no "lifted in UISP" line for SubOps' own change.
    expect(auditLines().filter((line) => line.includes('not through the SubOps bot'))).toHaveLength(1);
  });

  it('a client with two suspended services: the notice is posted with one Unsuspend per service, and each lifts its own', async () => {
    await start();
    await inUisp('POST', '/clients/1005/services', { status: 1, servicePlanPeriodId: 37, activeFrom: '2026-01-01', invoicingStart: '2026-01-01' });
    const second = h.uisp.sim.data.services.at(-1)!.id;
    await inUisp('PATCH', `/clients/services/${second}/suspend`, { suspensionReasonId: 1 });
    await inUisp('POST', '/payments', { clientId: 1005, amount: 10_000 });
    const notice = h.fake.messages(AUDIT_CHANNEL).find((m) => m.text.startsWith(':moneybag:'));
    // Slack refuses a block with two buttons of one action_id: the notice would be lost.
    expect(notice, 'the payment notice was posted').toBeDefined();
    const unsuspends = [...buttons(notice!).entries()].filter(([label]) => label.startsWith('Unsuspend'));
    expect(unsuspends.map(([label]) => label)).toEqual(['Unsuspend #104', `Unsuspend #${second}`]);

    const [, pressed] = unsuspends[1]!;
    await h.sender.blockAction({ userId: AGENT, actionId: pressed.action_id, value: pressed.value!, message: notice! });
    await h.settled();
    expect(h.uisp.writes().filter((w) => w.includes('cancel-suspend'))).toEqual([`PATCH /crm/api/v1.0/clients/services/${second}/cancel-suspend`]);
  });

  it('a suspension lifted and imposed again (for Abuse) since the notice: its old Unsuspend opens the confirmation naming Abuse, and lifts nothing', async () => {
    await start();
    const notice = await paymentNotice();
    h.uisp.sim.data.suspensionReasons.push({ id: 9, name: 'Abuse' });
    await inUisp('PATCH', '/clients/services/104/cancel-suspend');
    await inUisp('PATCH', '/clients/services/104/suspend', { suspensionReasonId: 9 });
    const written = h.uisp.writes();

    const pressed = buttons(notice).get('Unsuspend #104')!;
    await h.sender.blockAction({ userId: AGENT, actionId: pressed.action_id, value: pressed.value!, message: notice });
    await h.settled();

    expect(h.uisp.writes()).toEqual(written);
    expect(h.uisp.sim.data.services.find((s) => s.id === 104)).toMatchObject({ status: 3, suspensionReasonId: 9 });
    const { id, view } = await h.openedView();
    expect(view.callback_id).toBe('suspension_confirm');
    expect(shown(view as { blocks?: unknown[] })).toContain('Abuse');
    expect(shown(view as { blocks?: unknown[] })).toContain('Suspended');
    // The notice still offers the button: nothing was started from it.
    expect(h.fake.messages(AUDIT_CHANNEL).find((m) => m.ts === notice.ts)!.text).toBe(notice.text);
    expect(shown(h.fake.messages(AUDIT_CHANNEL).find((m) => m.ts === notice.ts)!)).not.toContain('started by');

    // Confirmed in that modal, the Abuse suspension is lifted: the person saw it.
    await h.submit(id, {});
    await h.settled();
    expect(h.uisp.writes()).toEqual([...written, 'PATCH /crm/api/v1.0/clients/services/104/cancel-suspend']);
  });

  it('a suspension imposed again between the press and the write: the read right before the write leaves it alone, and the thread says why', async () => {
    await start();
    const notice = await paymentNotice();
    h.uisp.sim.data.suspensionReasons.push({ id: 9, name: 'Abuse' });
    const reads = h.uisp.sim.gate({ method: 'GET', path: /\/clients\/services\/104$/ });
    const pressed = buttons(notice).get('Unsuspend #104')!;
    const pressing = h.sender.blockAction({ userId: AGENT, actionId: pressed.action_id, value: pressed.value!, message: notice });
    // The press's check: UISP still says what the notice showed.
    await reads.arrived(1);
    await reads.release(0);
    // The lift's own read, right before its write: meanwhile the suspension is lifted and imposed again.
    await reads.arrived(2);
    await crm(h.uisp.sim, 'PATCH', '/clients/services/104/cancel-suspend');
    await crm(h.uisp.sim, 'PATCH', '/clients/services/104/suspend', { suspensionReasonId: 9 });
    const written = h.uisp.writes();
    reads.open();
    await pressing;
    await h.settled();
    await h.uisp.sim.webhooksSettled();
    await h.settled();

    expect(h.uisp.writes()).toEqual(written);
    expect(h.uisp.sim.data.services.find((s) => s.id === 104)).toMatchObject({ status: 3, suspensionReasonId: 9 });
    const replies = h.fake.messages(AUDIT_CHANNEL).filter((m) => m.thread_ts !== undefined);
    expect(replies.map((m) => m.text)).toContainEqual(expect.stringContaining('Service #104 was suspended again in UISP since it was shown, so its suspension was not lifted'));
  });

  it('a suspension unchanged since the notice: its Unsuspend lifts it at once, as before', async () => {
    await start();
    const notice = await paymentNotice();
    const pressed = buttons(notice).get('Unsuspend #104')!;
    const from = h.uisp.sim.requests.length;
    await h.sender.blockAction({ userId: AGENT, actionId: pressed.action_id, value: pressed.value!, message: notice });
    await h.settled();
    expect(h.uisp.writes()).toEqual(['POST /crm/api/v1.0/payments', 'PATCH /crm/api/v1.0/clients/services/104/cancel-suspend']);
    // Up to the lift, the press's comparison and the read right before the write: the service is not read a third time.
    const untilLift = h.uisp.sim.requests.slice(from).findIndex((r) => r.path.endsWith('/cancel-suspend'));
    expect(h.uisp.sim.requests.slice(from, from + untilLift).filter((r) => r.method === 'GET' && r.path.endsWith('/clients/services/104'))).toHaveLength(2);
    expect(h.fake.calls.filter((c) => c.method === 'views.open')).toEqual([]);
  });

  it('a button posted before buttons carried what they showed: the confirmation, nothing lifted from the button', async () => {
    await start();
    const notice = await paymentNotice();
    await h.sender.blockAction({ userId: AGENT, actionId: 'uisp_unsuspend', value: '{"serviceId":104}', message: notice });
    await h.settled();
    expect(h.uisp.writes()).toEqual(['POST /crm/api/v1.0/payments']);
    expect((await h.openedView()).view.callback_id).toBe('suspension_confirm');
  });

  it('access rules apply to the button: a member who may not act is refused and nothing is written', async () => {
    await start({ env: { ALLOWED_USER_IDS: AGENT } });
    const notice = await paymentNotice();
    await h.sender.blockAction({ userId: 'U0INTRUDER', actionId: 'uisp_unsuspend', value: '{"serviceId":104}', message: notice });
    await h.settled();
    expect(h.uisp.writes()).toEqual(['POST /crm/api/v1.0/payments']);
    expect(h.uisp.sim.data.services.find((s) => s.id === 104)!.status).toBe(3);
  });
});

describe('a burst', () => {
  it('500 events are each answered at once, processed without loss, with at most 6 UISP reads at a time', async () => {
    await start();
    const { sim } = h.uisp;
    for (let batch = 0; batch < 10; batch++) {
      await Promise.all(Array.from({ length: 50 }, (_, i) => crm(sim, 'POST', '/payments', { clientId: 1001, amount: 100 + batch * 50 + i })));
    }
    await sim.webhooksSettled();
    await h.settled();
    expect(sim.webhookDeliveries).toHaveLength(500);
    expect(sim.webhookDeliveries.every((d) => d.status === 200)).toBe(true);
    expect(Math.max(...sim.webhookDeliveries.map((d) => d.ms))).toBeLessThan(2_000);
    expect(confirmations()).toHaveLength(500);
    expect(auditLines().filter((line) => line.startsWith(':moneybag:'))).toHaveLength(500);
    // 3 events at a time, each with at most 2 reads in flight (the payment's client and services together).
    expect(maxConcurrent(sim.requests.filter((r) => r.method === 'GET'))).toBeLessThanOrEqual(6);
  }, 60_000);
});

/** The most requests in flight at once. */
function maxConcurrent(requests: { startedAt: number; endedAt: number }[]): number {
  const edges = requests.flatMap((r) => [[r.startedAt, 1] as const, [r.endedAt, -1] as const]).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let now = 0;
  let max = 0;
  for (const [, delta] of edges) max = Math.max(max, (now += delta));
  return max;
}
