/** /suspend and /unsuspend end to end: form, CRM lookup, confirmation, the write, thread and audit. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { crm } from '../simulator/helpers.js';
import { AGENT, AUDIT_CHANNEL, CHANNEL, inputs, selected, shown, startHarness, type Harness } from './harness.js';

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(async () => {
  await h.close();
});

const hasBlock = (blockId: string) => (call: { args: Record<string, unknown> }) => JSON.stringify(call.args.view).includes(`"block_id":"${blockId}"`);

describe('/suspend', () => {
  it('pre-fills the service id, fills in the CRM reasons, confirms, suspends and reports in a thread', async () => {
    expect((await h.command('/suspend', '101')).body).toBe('');
    const { id, view } = await h.openedView();
    expect(view.callback_id).toBe('suspension_form');
    expect(JSON.stringify(view)).toContain('"initial_value":"101"');
    await h.fake.waitFor('views.update', hasBlock('reason'));
    const filled = JSON.stringify(h.fake.views.get(id));
    for (const reason of ['Non-payment', 'Customer request', 'Equipment issue', 'Relocation']) expect(filled).toContain(reason);

    const checking = await h.submit(id, { ...inputs({ service: '101' }), reason: selected('value', '2') });
    expect(checking.body.response_action).toBe('update');
    const confirm = JSON.stringify(await h.viewBecomes(id, 'suspension_confirm'));
    expect(confirm).toContain('#1001 Marcus Baptiste');
    expect(confirm).toContain('#101');
    expect(confirm).toContain('*Current status*\\nActive');
    expect(confirm).toContain('*Reason*\\nCustomer request');
    expect(h.uisp.writes()).toEqual([]);

    const done = await h.submit(id, {});
    expect(JSON.stringify(done.body.view)).toContain(`<#${CHANNEL}>`);
    await h.fake.waitFor('chat.update', (call) => call.args.channel === CHANNEL);

    const suspendCall = h.uisp.sim.requests.filter((r) => r.method !== 'GET');
    expect(suspendCall.map((r) => [r.method, r.path, r.body])).toEqual([['PATCH', '/crm/api/v1.0/clients/services/101/suspend', { suspensionReasonId: 2 }]]);
    const [parent, reply] = h.fake.messages(CHANNEL);
    expect(parent!.text).toContain('Suspension of service #101');
    expect(parent!.text).toContain(`requested by <@${AGENT}>`);
    expect(shown(parent!)).toContain('*Done*: service suspended.');
    expect(reply!.thread_ts).toBe(parent!.ts);
    expect(reply!.text).toContain('The CRM now reports status *Suspended*, reason Customer request');

    await h.fake.waitFor('chat.postMessage', (call) => call.args.channel === AUDIT_CHANNEL);
    expect(shown(h.fake.messages(AUDIT_CHANNEL)[0]!)).toContain('*suspend* by <@U0AGENT>: *suspended*');
    expect(h.logs.find((l) => l.audit)).toMatchObject({ action: 'suspend', result: 'suspended', targets: { serviceId: 101, clientId: 1001, reasonId: 2 } });
  });

  it('lists a client’s services to pick from when the agent enters a client id', async () => {
    await h.command('/suspend');
    const { id } = await h.openedView();
    await h.fake.waitFor('views.update', hasBlock('reason'));
    const lookup = await h.sender.blockAction({ userId: AGENT, actionId: 'suspension_client_lookup', view: h.fake.views.get(id)!, selectedOption: { text: { type: 'plain_text', text: '#1006 Bartica Marine Supplies' }, value: '1006' }, values: inputs({ client: '1006' }) });
    expect(lookup.status).toBe(200);
    await h.fake.waitFor('views.update', hasBlock('clientService'));
    const form = JSON.stringify(h.fake.views.get(id));
    expect(form).toContain('Service of Bartica Marine Supplies');
    expect(form).toContain('#105');

    await h.submit(id, { ...inputs({ client: '1006' }), clientService: selected('value', '105'), reason: selected('value', '1') });
    const confirm = JSON.stringify(await h.viewBecomes(id, 'suspension_confirm'));
    expect(confirm).toContain('#1006 Bartica Marine Supplies');
    expect(confirm).toContain('Non-payment');
  });

  it('rejects a missing or malformed service under the field, and an unknown one after the lookup', async () => {
    await h.command('/suspend');
    const { id } = await h.openedView();
    await h.fake.waitFor('views.update', hasBlock('reason'));
    expect((await h.submit(id, { reason: selected('value', '1') })).body).toEqual({
      response_action: 'errors',
      errors: { service: 'Enter a service id, or a client id (then Enter) and pick one of its services.' },
    });
    expect((await h.submit(id, { ...inputs({ service: '12a' }), reason: selected('value', '1') })).body.errors).toEqual({ service: 'Service id must be a positive whole number such as 1001 or #1001.' });

    await h.submit(id, { ...inputs({ service: '999' }), reason: selected('value', '1') });
    await h.viewBecomes(id, 'suspension_form', 'No CRM service #999.');
    expect(h.uisp.writes()).toEqual([]);
  });

  it('takes service and client ids written with #', async () => {
    await h.command('/suspend', '#101');
    const { id } = await h.openedView();
    await h.fake.waitFor('views.update', hasBlock('reason'));
    await h.submit(id, { ...inputs({ service: '#101' }), reason: selected('value', '2') });
    expect(JSON.stringify(await h.viewBecomes(id, 'suspension_confirm'))).toContain('#1001 Marcus Baptiste');
    expect(h.uisp.sim.requests.map((r) => r.path)).toContain('/crm/api/v1.0/clients/services/101');
  });

  it('answers a malformed argument ephemerally without opening anything', async () => {
    const reply = await h.command('/suspend', 'everyone');
    expect(reply.body.response_type).toBe('ephemeral');
    expect(reply.body.text).toContain('Service id must be a positive whole number such as 1001 or #1001. You typed `everyone`.');
    expect(h.fake.callsTo('views.open')).toEqual([]);
  });
});

describe('Slack refuses the parent message', () => {
  it('lifts the suspension all the same, tells the agent privately what happened, and records the audit entry unlinked', async () => {
    await h.command('/unsuspend', '104');
    const { id } = await h.openedView();
    await h.submit(id, inputs({ service: '104' }));
    await h.viewBecomes(id, 'suspension_confirm');
    h.fake.failNext('chat.postMessage', { error: 'not_in_channel' });
    await h.submit(id, {});
    const told = await h.fake.waitFor('chat.postEphemeral');
    expect(told.args).toMatchObject({ channel: CHANNEL, user: AGENT });
    expect(String(told.args.text)).toContain(`I could not post in <#${CHANNEL}> (not_in_channel), so here is what happened.`);
    expect(String(told.args.text)).toContain('Service #104 unsuspended. The CRM now reports status *Active*');
    expect(h.uisp.writes()).toEqual(['PATCH /crm/api/v1.0/clients/services/104/cancel-suspend']);
    await h.fake.waitFor('chat.postMessage', (call) => call.args.channel === AUDIT_CHANNEL);
    expect(h.fake.messages(CHANNEL)).toEqual([]);
    expect(h.fake.callsTo('chat.update')).toEqual([]);
    expect(h.logs.find((l) => l.audit)).toMatchObject({ action: 'unsuspend', result: 'unsuspended', ok: true });
  });
});

describe('/unsuspend', () => {
  it('lifts the suspension through cancel-suspend, never /unsuspend', async () => {
    await h.command('/unsuspend', '104');
    const { id, view } = await h.openedView();
    expect(JSON.stringify(view)).not.toContain('"block_id":"reason"');
    await h.submit(id, inputs({ service: '104' }));
    const confirm = JSON.stringify(await h.viewBecomes(id, 'suspension_confirm'));
    expect(confirm).toContain('#1005 Ravi Persaud');
    expect(confirm).toContain('*Current status*\\nSuspended');
    expect(confirm).toContain('Lift suspension');

    await h.submit(id, {});
    await h.fake.waitFor('chat.update', (call) => call.args.channel === CHANNEL);
    expect(h.uisp.writes()).toEqual(['PATCH /crm/api/v1.0/clients/services/104/cancel-suspend']);
    expect(h.uisp.sim.requests.some((r) => r.path.endsWith('/unsuspend'))).toBe(false);
    const [parent, reply] = h.fake.messages(CHANNEL);
    expect(parent!.text).toContain('Lifting the suspension of service #104');
    expect(reply!.text).toContain('Service #104 unsuspended. The CRM now reports status *Active*');
    await h.fake.waitFor('chat.postMessage', (call) => call.args.channel === AUDIT_CHANNEL);
    expect(h.logs.find((l) => l.audit)).toMatchObject({ action: 'unsuspend', result: 'unsuspended', ok: true });
  });

  it('shows the reason in force; a suspension lifted and imposed again for Abuse while the confirmation was open is shown again, not lifted', async () => {
    h.uisp.sim.data.suspensionReasons.push({ id: 9, name: 'Abuse' });
    await h.command('/unsuspend', '104');
    const { id } = await h.openedView();
    await h.submit(id, inputs({ service: '104' }));
    expect(JSON.stringify(await h.viewBecomes(id, 'suspension_confirm'))).toContain('*Suspended for*\\nNon-payment');
    await crm(h.uisp.sim, 'PATCH', '/clients/services/104/cancel-suspend');
    await crm(h.uisp.sim, 'PATCH', '/clients/services/104/suspend', { suspensionReasonId: 9 });
    const written = h.uisp.writes();

    await h.submit(id, {});
    const again = JSON.stringify(await h.viewBecomes(id, 'suspension_confirm', 'Abuse'));
    await h.settled();
    expect(again).toContain('*Suspended for*\\nAbuse');
    expect(again).toContain('changed in UISP while this confirmation was open');
    expect(h.uisp.writes()).toEqual(written);
    expect(h.fake.messages(CHANNEL)).toEqual([]);

    await h.submit(id, {});
    await h.fake.waitFor('chat.update', (call) => call.args.channel === CHANNEL);
    expect(h.uisp.writes()).toEqual([...written, 'PATCH /crm/api/v1.0/clients/services/104/cancel-suspend']);
  });
});

describe('suspensions follow the service’s state', () => {
  it('/suspend of a suspended service writes nothing and offers to lift the suspension instead', async () => {
    await h.command('/suspend', '104');
    const { id } = await h.openedView();
    await h.fake.waitFor('views.update', hasBlock('reason'));
    await h.submit(id, { ...inputs({ service: '104' }), reason: selected('value', '1') });
    const offer = await h.viewBecomes(id, 'suspension_confirm');
    const text = JSON.stringify(offer);
    expect(text).toContain('Service #104 is already suspended. Nothing was changed. Lift the suspension instead?');
    expect(text).toContain('*Current status*\\nSuspended');
    expect(offer.submit).toMatchObject({ text: 'Lift suspension' });
    expect(JSON.parse(String(offer.private_metadata))).toMatchObject({ action: 'unsuspend', serviceId: 104 });
    expect(h.uisp.writes()).toEqual([]);

    await h.submit(id, {});
    await h.fake.waitFor('chat.update', (call) => call.args.channel === CHANNEL);
    expect(h.uisp.writes()).toEqual(['PATCH /crm/api/v1.0/clients/services/104/cancel-suspend']);
  });

  it.each([
    ['102', 'Quoted'],
    ['103', 'Obsolete'],
  ])('/suspend of service #%s (%s) is refused under the field, without UISP’s raw error, and writes nothing', async (serviceId, state) => {
    await h.command('/suspend', serviceId);
    const { id } = await h.openedView();
    await h.fake.waitFor('views.update', hasBlock('reason'));
    await h.submit(id, { ...inputs({ service: serviceId }), reason: selected('value', '1') });
    // What the agent sees (the blocks), not the view's random hash, which may contain "422" by chance.
    const form = JSON.stringify((await h.viewBecomes(id, 'suspension_form', 'only an Active service')).blocks);
    expect(form).toContain(`Service #${serviceId} is ${state}: only an Active service can be suspended. Nothing was changed.`);
    expect(form).not.toMatch(/422|Validation failed/);
    expect(h.uisp.writes()).toEqual([]);
  });

  it('/unsuspend of an Active service writes nothing and offers the suspend form for it instead', async () => {
    await h.command('/unsuspend', '101');
    const { id } = await h.openedView();
    await h.submit(id, inputs({ service: '101' }));
    const form = await h.viewBecomes(id, 'suspension_form', 'not suspended');
    const text = JSON.stringify(form);
    expect(text).toContain('Service #101 is not suspended (status Active): there is no suspension to lift. Nothing was changed. To suspend it instead, pick a reason.');
    expect(text).toContain('"initial_value":"101"');
    expect(text).toContain('"block_id":"reason"');
    expect(JSON.parse(String(form.private_metadata))).toMatchObject({ action: 'suspend' });
    expect(h.uisp.writes()).toEqual([]);
  });

  it('the client lookup shows each service’s state and offers only the action that applies', async () => {
    await h.command('/suspend');
    const { id } = await h.openedView();
    await h.fake.waitFor('views.update', hasBlock('reason'));
    await h.sender.blockAction({ userId: AGENT, actionId: 'suspension_client_lookup', view: h.fake.views.get(id)!, selectedOption: { text: { type: 'plain_text', text: '#1005 Ravi Persaud' }, value: '1005' }, values: inputs({ client: '1005' }) });
    await h.fake.waitFor('views.update', (call) => JSON.stringify(call.args.view).includes('/unsuspend 104'));
    const suspendForm = JSON.stringify(h.fake.views.get(id));
    expect(suspendForm).not.toContain('"block_id":"clientService"');
    expect(suspendForm).toContain('No service of client #1005 Ravi Persaud can be suspended.');
    expect(suspendForm).toContain('#104 Standard Monthly (Suspended): use `/unsuspend 104`');

    await h.command('/unsuspend');
    const unsuspend = await h.openedView((call) => JSON.stringify(call.args.view).includes('Lift suspension'));
    await h.sender.blockAction({ userId: AGENT, actionId: 'suspension_client_lookup', view: h.fake.views.get(unsuspend.id)!, selectedOption: { text: { type: 'plain_text', text: '#1005 Ravi Persaud' }, value: '1005' }, values: inputs({ client: '1005' }) });
    await h.fake.waitFor('views.update', (call) => call.args.view_id === unsuspend.id && hasBlock('clientService')(call));
    const select = JSON.stringify(h.fake.views.get(unsuspend.id));
    expect(select).toContain('#104 Standard Monthly (Suspended)');
    expect(h.uisp.writes()).toEqual([]);
  });

  it('suspended by someone else after the confirmation was shown: nothing is written, the thread and the audit say so', async () => {
    await h.command('/suspend', '101');
    const { id } = await h.openedView();
    await h.fake.waitFor('views.update', hasBlock('reason'));
    await h.submit(id, { ...inputs({ service: '101' }), reason: selected('value', '1') });
    await h.viewBecomes(id, 'suspension_confirm');
    h.uisp.sim.data.services.find((s) => s.id === 101)!.status = 3;

    await h.submit(id, {});
    await h.fake.waitFor('chat.update', (call) => call.args.channel === CHANNEL);
    expect(h.uisp.writes()).toEqual([]);
    const [parent, reply] = h.fake.messages(CHANNEL);
    expect(shown(parent!)).toContain('*Nothing to do*: already suspended.');
    expect(reply!.text).toBe(':information_source: Service #101 is already suspended. Nothing was changed.');
    await h.fake.waitFor('chat.postMessage', (call) => call.args.channel === AUDIT_CHANNEL);
    expect(h.logs.find((l) => l.audit)).toMatchObject({ via: 'slack', actor: AGENT, action: 'suspend', result: 'already-suspended', ok: true });
  });
});
