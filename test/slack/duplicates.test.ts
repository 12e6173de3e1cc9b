/**
 * Late duplicates in Slack, end to end over the simulator and the fake Slack (issue §5): an activation,
 * a /client card or a UISP event that meets two SubOps-made Active services of one client posts one
 * audit-channel notice (never a second, whichever replica meets it) naming both, the one the activation
 * reported, and Remove duplicate; a click removes the late one only if it still may, updates the notice
 * (what happened, who pressed) and is an audit record; a second click says it is already removed. An
 * activation that meets SubOps-made namesakes of its client with nothing under them (left by a run that
 * failed midway) names them the same way, and a click removes the empty client.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { crm } from '../simulator/helpers.js';
import { invoice, seedClientDuplicate, seedServiceDuplicate, seedSubOpsSite } from '../support/late-duplicates.js';
import { answer } from './answers.js';
import { expectValidMessage } from './block-kit.js';
import { AGENT, AUDIT_CHANNEL, buttons, CHANNEL, inputs, shown, startHarness, type Harness, type HarnessOptions } from './harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});
const start = async (options: HarnessOptions = {}) => (h = await startHarness(options));

const LEAD = 'U0LEAD';
type Message = ReturnType<Harness['fake']['messages']>[number];

const notices = (harness: Harness) => harness.fake.messages(AUDIT_CHANNEL).filter((m) => (m.metadata as { event_type?: string } | undefined)?.event_type === 'subops_late_duplicate');
const auditLines = (harness: Harness) => harness.fake.messages(AUDIT_CHANNEL).map((m) => m.text);
const deletes = (harness: Harness) => harness.uisp.writes().filter((w) => w.startsWith('DELETE'));
const servicesOf = (harness: Harness, clientId: number) => harness.uisp.sim.data.services.filter((s) => s.clientId === clientId).map((s) => s.id);

/** /activate through the form, to the end of its thread. */
async function activate(harness: Harness, device: string, first: string, last: string): Promise<void> {
  const after = (method: string, count: number) => (call: unknown) => harness.fake.callsTo(method).indexOf(call as never) >= count;
  const opened = after('views.open', harness.fake.callsTo('views.open').length);
  const posted = after('chat.postMessage', harness.fake.callsTo('chat.postMessage').length);
  await harness.command('/activate', `${device} ${first} ${last}`);
  const { id } = await harness.openedView(opened);
  await harness.submit(id, inputs({ device, firstName: first, lastName: last }));
  await harness.fake.waitFor('chat.postMessage', (call) => posted(call) && String(call.args.text).includes('One manual step left'));
  await harness.settled();
}

/** Presses a notice's Remove duplicate as Slack sends it (from the message as the presser's client shows it). */
async function pressRemove(harness: Harness, notice: Message, userId = LEAD, label = 'Remove duplicate'): Promise<void> {
  const button = buttons(notice).get(label);
  if (!button) throw new Error(`no "${label}" in ${[...buttons(notice).keys()].join(', ')}`);
  await harness.sender.blockAction({ userId, actionId: button.action_id, value: button.value!, message: notice, channelId: AUDIT_CHANNEL, messageTs: notice.ts });
  await harness.settled();
}

const current = (harness: Harness, notice: Message) => harness.fake.messages(AUDIT_CHANNEL).find((m) => m.ts === notice.ts)!;

describe('an activation that meets a late duplicate', () => {
  it('posts one notice naming both services, the kept one as reported by the activation, with Remove duplicate; a second activation posts none', async () => {
    const harness = await start();
    const { kept, late } = await seedServiceDuplicate(harness.uisp.sim);
    await activate(harness, '10.20.3.12', 'Shanice', 'Williams');
    const [notice, ...more] = notices(harness);
    expect(more).toEqual([]);
    expectValidMessage({ text: notice!.text, blocks: notice!.blocks ?? [] });
    const text = shown(notice!);
    expect(text).toContain(`Client #1004 Shanice Williams has 2 Active services made by SubOps: #${kept} \\"Standard Monthly\\" (the one activations keep and report) and #${late} \\"Standard Monthly\\"`);
    expect(text).toContain(`*Kept:* service #${kept} \\"Standard Monthly\\", the one the activation reported.`);
    expect(text).toContain(`*Made late:* service #${late}`);
    expect(text).toContain('Met by an activation of this client.');
    expect([...buttons(notice!).keys()]).toEqual(['Remove duplicate']);
    expect(JSON.parse(buttons(notice!).get('Remove duplicate')!.value!)).toEqual({ clientId: 1004, record: 'service', keptId: kept, duplicateId: late });
    // Nothing is removed on its own.
    expect(servicesOf(harness, 1004)).toEqual([kept, late]);
    expect(deletes(harness)).toEqual([]);

    await activate(harness, '10.20.3.12', 'Shanice', 'Williams');
    expect(notices(harness)).toHaveLength(1);
  });
});

describe('Remove duplicate', () => {
  it('removes the late service, says so on the notice with who pressed, and records the audit; a second press says it is already removed', async () => {
    const harness = await start();
    const { kept, late } = await seedServiceDuplicate(harness.uisp.sim);
    await activate(harness, '10.20.3.12', 'Shanice', 'Williams');
    const notice = notices(harness)[0]!;

    await pressRemove(harness, notice);
    expect(servicesOf(harness, 1004)).toEqual([kept]);
    expect(deletes(harness)).toEqual([`DELETE /crm/api/v1.0/clients/services/${late}`]);
    const updated = current(harness, notice);
    expectValidMessage({ text: updated.text, blocks: updated.blocks ?? [] });
    expect(shown(updated)).toContain(`:wastebasket: Removed service #${late} \\"Standard Monthly\\" of client #1004; service #${kept} \\"Standard Monthly\\", the one the activation reported, stays. (removed by <@${LEAD}>)`);
    expect(buttons(updated).size).toBe(0);
    expect(auditLines(harness)).toContain(`remove-duplicate by <@${LEAD}>: removed`);

    // The same button again, from a client still showing it: UISP is read again, nothing is deleted twice.
    const responses = harness.fake.responses.length;
    await pressRemove(harness, notice, AGENT);
    expect(deletes(harness)).toHaveLength(1);
    expect(harness.fake.responses.slice(responses).map((r) => r.body.text)).toEqual([`:information_source: Service #${late} is already removed: UISP no longer has it. Nothing was changed.`]);
    expect(current(harness, notice)).toEqual(updated);
    expect(auditLines(harness)).toContain(`remove-duplicate by <@${AGENT}>: already-removed`);
  });

  it('refuses an invoiced late service: the notice says why, nothing is deleted', async () => {
    const harness = await start();
    const { kept, late } = await seedServiceDuplicate(harness.uisp.sim);
    await activate(harness, '10.20.3.12', 'Shanice', 'Williams');
    const invoiceId = invoice(harness.uisp.sim, 1004, [late]);

    await pressRemove(harness, notices(harness)[0]!);
    expect(deletes(harness)).toEqual([]);
    expect(servicesOf(harness, 1004)).toEqual([kept, late]);
    const updated = current(harness, notices(harness)[0]!);
    expect(shown(updated)).toContain(`:no_entry_sign: Not removed: Service #${late} \\"Standard Monthly\\" has been invoiced (invoice #${invoiceId}): SubOps never removes an invoiced service; settle it in the CRM. Nothing was changed. (pressed by <@${LEAD}>)`);
    expect(buttons(updated).size).toBe(0);
    expect(auditLines(harness)).toContain(`remove-duplicate by <@${LEAD}>: refused:invoiced`);
  });
});

describe('an activation that meets an empty SubOps-made namesake of its client', () => {
  const recordOf = (m: Message) => (m.metadata as { event_payload?: { record?: string } } | undefined)?.event_payload?.record;
  const clientsNamed = (harness: Harness) => harness.uisp.sim.data.clients.filter((c) => c.firstName === 'Jane' && c.lastName === 'Doe').map((c) => c.id);

  it('posts a notice naming the namesake with Remove duplicate; a click removes exactly that client, then its site', async () => {
    const harness = await start();
    const { kept, late } = await seedClientDuplicate(harness.uisp.sim);
    const lateSite = await seedSubOpsSite(harness.uisp.sim, late, 'Jane Doe');
    await activate(harness, '10.20.1.88', 'Jane', 'Doe');

    const forClient = notices(harness).filter((m) => recordOf(m) === 'client');
    expect(forClient).toHaveLength(1);
    const notice = forClient[0]!;
    expectValidMessage({ text: notice.text, blocks: notice.blocks ?? [] });
    const text = shown(notice);
    expect(text).toContain(`Client #${kept} Jane Doe has SubOps-made namesakes with no service: #${late} \\"Jane Doe\\" (made late, or left by an activation that failed midway); activations use #${kept}`);
    expect(text).toContain(`client #${kept} \\"Jane Doe\\">, the one activations use.`);
    expect(text).toContain(`*Empty namesake:* <`);
    expect(text).toContain(`|client #${late} \\"Jane Doe\\">`);
    expect(text).toContain('no service, no payment and no invoice');
    expect(JSON.parse(buttons(notice).get('Remove duplicate')!.value!)).toEqual({ clientId: kept, record: 'client', keptId: kept, duplicateId: late });
    // The namesake's site is named in the site notice, beside the one the activation made.
    const siteNotice = notices(harness).find((m) => recordOf(m) === 'site')!;
    expect(shown(siteNotice)).toContain(`*Made late:* NMS site \\"Jane Doe\\" (${lateSite})`);
    // Nothing is removed on its own.
    expect(clientsNamed(harness)).toEqual([kept, late]);
    expect(deletes(harness)).toEqual([]);

    await pressRemove(harness, notice);
    expect(deletes(harness)).toEqual([`DELETE /crm/api/v1.0/clients/${late}`]);
    expect(clientsNamed(harness)).toEqual([kept]);
    const updated = current(harness, notice);
    expectValidMessage({ text: updated.text, blocks: updated.blocks ?? [] });
    expect(shown(updated)).toContain(
      `:wastebasket: Removed client #${late} \\"Jane Doe\\", an empty namesake of client #${kept}; client #${kept} \\"Jane Doe\\", the one activations use, stays. (removed by <@${LEAD}>)`,
    );
    expect(buttons(updated).size).toBe(0);
    expect(auditLines(harness)).toContain(`remove-duplicate by <@${LEAD}>: removed`);
    expect(harness.logs.find((line) => line.audit === true && line.action === 'remove-duplicate')).toMatchObject({ targets: { clientId: kept, lateClientId: late }, result: 'removed' });

    // The namesake gone, its site is an orphan: its own button removes it.
    await pressRemove(harness, siteNotice);
    expect(deletes(harness)).toEqual([`DELETE /crm/api/v1.0/clients/${late}`, `DELETE /nms/api/v2.1/sites/${lateSite}`]);
  });

  it('refuses once the namesake has a payment: the notice says why, no DELETE', async () => {
    const harness = await start();
    const { kept, late } = await seedClientDuplicate(harness.uisp.sim);
    await activate(harness, '10.20.1.88', 'Jane', 'Doe');
    const notice = notices(harness).find((m) => recordOf(m) === 'client')!;
    const paid = await crm(harness.uisp.sim, 'POST', '/payments', { clientId: late, amount: 5000 });
    expect(paid.status).toBe(201);

    await pressRemove(harness, notice);
    expect(deletes(harness)).toEqual([]);
    expect(clientsNamed(harness)).toEqual([kept, late]);
    expect(shown(current(harness, notice))).toContain(`:no_entry_sign: Not removed: Client #${late} \\"Jane Doe\\" has a payment recorded (payment #${paid.body.id})`);
    expect(auditLines(harness)).toContain(`remove-duplicate by <@${LEAD}>: refused:has-payments`);
  });
});

describe('a /client card that meets a late duplicate', () => {
  it('shows a line on the card and posts the notice once, however often the card is opened', async () => {
    const harness = await start();
    const { kept, late } = await seedServiceDuplicate(harness.uisp.sim);
    await harness.command('/client', '#1004');
    const card = await answer(harness, 0);
    expect(shown(card)).toContain(`:warning: *Late duplicate:* Client #1004 Shanice Williams has 2 Active services made by SubOps: #${kept}`);
    expect(shown(card)).toContain('Its notice in the audit channel has *Remove duplicate*.');
    await harness.command('/client', '#1004');
    await answer(harness, 1);
    expect(notices(harness)).toHaveLength(1);
    expect(shown(notices(harness)[0]!)).toContain('Met by a /client card.');
    expect(shown(notices(harness)[0]!)).toContain(`*Made late:* service #${late}`);
  });
});

describe('two replicas that meet the same late duplicate', () => {
  it('post one notice between them: the late record is claimed in the store before its notice is posted', async () => {
    const harness = await start();
    const other = await harness.replica();
    const { late } = await seedServiceDuplicate(harness.uisp.sim);
    await Promise.all([harness.command('/client', '#1004'), other.sender.slashCommand({ command: '/client', text: '#1004', userId: AGENT, channelId: CHANNEL })]);
    await Promise.all([harness.settled(), other.settled()]);
    expect(notices(harness)).toHaveLength(1);
    expect(shown(notices(harness)[0]!)).toContain(`*Made late:* service #${late}`);
  });
});

describe('a notice Slack refused', () => {
  it('is forgotten: the next meeting posts it', async () => {
    const harness = await start();
    await seedServiceDuplicate(harness.uisp.sim);
    harness.fake.failNext('chat.postMessage', { error: 'not_in_channel' });
    await harness.command('/client', '#1004');
    await answer(harness, 0);
    expect(notices(harness)).toEqual([]);
    expect(harness.logs.some((line) => line.flow === 'late-duplicates' && String(line.msg).includes('could not post a late-duplicate notice'))).toBe(true);
    await harness.command('/client', '#1004');
    await answer(harness, 1);
    expect(notices(harness)).toHaveLength(1);
  });
});

describe('a UISP event about a client’s service', () => {
  it('a late create arriving as service.add posts the notice; a later service.edit of the same client posts none', async () => {
    const harness = await start({ events: {} });
    const { late } = await seedServiceDuplicate(harness.uisp.sim);
    await harness.uisp.sim.webhooksSettled();
    await harness.settled();
    expect(notices(harness)).toHaveLength(1);
    expect(shown(notices(harness)[0]!)).toContain('Met by a UISP event about one of the client’s services.');

    const edited = await crm(harness.uisp.sim, 'PATCH', `/clients/services/${late}`, { name: 'Standard Monthly (shop)' });
    expect(edited.status).toBe(200);
    await harness.uisp.sim.webhooksSettled();
    await harness.settled();
    expect(harness.uisp.sim.webhookEvents.map((e) => e.eventName)).toEqual(['service.add', 'service.add', 'service.edit']);
    expect(notices(harness)).toHaveLength(1);
  });
});

describe('Remove duplicate under APPROVAL_REQUIRED_FOR=delete-service (issue #37 §9)', () => {
  const APPROVALS = 'C0APPROVALS';
  const approvals = { env: { APPROVAL_REQUIRED_FOR: 'delete-service', APPROVALS_CHANNEL_ID: APPROVALS, ACCESS_APPROVE: 'S0LEADS' }, fakeSlack: { usergroups: { S0LEADS: [LEAD] } } };
  const requests = (harness: Harness) => harness.fake.messages(APPROVALS).filter((m) => m.thread_ts === undefined);

  async function approve(harness: Harness, request: Message): Promise<void> {
    const button = buttons(request).get('Approve')!;
    await harness.sender.blockAction({ userId: LEAD, actionId: button.action_id, value: button.value!, message: request, channelId: APPROVALS, messageTs: request.ts });
    await harness.settled();
  }

  it('an Active late service: the press asks for approval and deletes nothing; approved by someone else, it is removed, on fresh reads', async () => {
    const harness = await start(approvals);
    const { kept, late } = await seedServiceDuplicate(harness.uisp.sim);
    await activate(harness, '10.20.3.12', 'Shanice', 'Williams');
    const responses = harness.fake.responses.length;
    await pressRemove(harness, notices(harness)[0]!, AGENT);
    expect(deletes(harness)).toEqual([]);
    expect(harness.fake.responses.slice(responses).map((r) => r.body.text)).toEqual([
      `:lock: Removing Active service #${late} needs an approver's approval: the request is in <#${APPROVALS}>. Nothing was changed yet; it runs once approved, after reading UISP again.`,
    ]);
    const [request] = requests(harness);
    expect(shown(request!)).toContain(`<@${AGENT}> asks to remove the late duplicate service *#${late}* of client *#1004*`);
    expect(shown(request!)).toContain(`Deletes service #${late}, an Active late duplicate`);

    await approve(harness, request!);
    expect(deletes(harness)).toEqual([`DELETE /crm/api/v1.0/clients/services/${late}`]);
    expect(servicesOf(harness, 1004)).toEqual([kept]);
    expect(harness.logs.find((line) => line.audit === true && line.action === 'remove-duplicate')).toMatchObject({ result: 'removed', approvedBy: LEAD });
  });

  it('a late client (with anything under it): the press asks for approval and deletes nothing', async () => {
    const harness = await start(approvals);
    const { kept, late } = await seedClientDuplicate(harness.uisp.sim);
    await activate(harness, '10.20.1.88', 'Jane', 'Doe');
    const notice = notices(harness).find((m) => (m.metadata as { event_payload?: { record?: string } }).event_payload?.record === 'client')!;
    await pressRemove(harness, notice, AGENT);
    expect(deletes(harness)).toEqual([]);
    expect(shown(requests(harness)[0]!)).toContain(`Deletes client #${late}, a late namesake, with anything under it`);
    await approve(harness, requests(harness)[0]!);
    expect(deletes(harness)).toEqual([`DELETE /crm/api/v1.0/clients/${late}`]);
    expect(harness.uisp.sim.data.clients.some((c) => c.id === kept)).toBe(true);
  });
});
