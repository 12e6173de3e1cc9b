/**
 * Typeahead in the forms over HTTP: the device and client fields are external_select menus; typing in
 * them sends a signed block_suggestion, answered from the services' index with the typed text first (so
 * it can still be submitted as typed) and the matches; a picked option is submitted like a typed value.
 * A user who may not run SubOps gets no options and nothing is read from UISP.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { expectValidModal, expectValidOptions } from './block-kit.js';
import { AUDIT_CHANNEL, inputs, selected, startHarness, type Harness } from './harness.js';

let h: Harness;
afterEach(async () => {
  await h?.close();
});

type Options = { options: { text: { text: string }; value: string; description?: { text: string } }[] };

async function openForm(command: string, text: string, callbackId: string) {
  await h.command(command, text);
  const opened = await h.openedView((call) => (call.args.view as { callback_id?: string }).callback_id === callbackId);
  return { id: opened.id, view: h.fake.views.get(opened.id)! };
}

const typing = (view: Record<string, unknown>, actionId: string, value: string, userId?: string) =>
  h.sender.blockSuggestion({ userId: userId ?? 'U0AGENT', view, actionId, value });

/** The form views as a Block Kit validator sees them: the external_select elements are valid. */
function typeaheadElements(view: Record<string, unknown>): { action_id: string; type: string }[] {
  return (view.blocks as { element?: { type: string; action_id: string } }[]).flatMap((b) => (b.element?.type === 'external_select' ? [b.element] : []));
}

describe('typeahead fields', () => {
  it('the activation form offers devices from both NMS lists and CRM clients as the agent types', async () => {
    h = await startHarness();
    const { view } = await openForm('/activate', '', 'activate_form');
    expectValidModal(h.fake.callsTo('views.open').at(-1)!.args.view);
    expect(typeaheadElements(view).map((e) => e.action_id)).toEqual(['typeahead_device', 'typeahead_client']);

    const devices = (await typing(view, 'typeahead_device', 'baptiste')).body as Options;
    expect(devices.options.map((o) => [o.text.text, o.value])).toEqual([
      ['Use “baptiste”', 'baptiste'],
      [expect.stringContaining('cpe-baptiste · 10.20.1.21'), '10.20.1.21'],
    ]);
    expectValidOptions(devices);
    const discovered = (await typing(view, 'typeahead_device', '10.20.1.88')).body as Options;
    expectValidOptions(discovered);
    // An exact match needs no echo of the typed text: the device itself is first.
    expect(discovered.options[0]).toMatchObject({ value: '10.20.1.88', description: { text: expect.stringContaining('discovered') } });

    const clients = (await typing(view, 'typeahead_client', 'marine')).body as Options;
    expectValidOptions(clients);
    expect(clients.options.map((o) => [o.text.text, o.value])).toEqual([
      ['Use “marine”', 'marine'],
      ['#1006 Bartica Marine Supplies', '1006'],
    ]);
  });

  it('the suspension form offers clients; picking one lists its services', async () => {
    h = await startHarness();
    const { id, view } = await openForm('/suspend', '', 'suspension_form');
    expect(typeaheadElements(view).map((e) => e.action_id)).toEqual(['suspension_client_lookup']);
    const clients = (await typing(view, 'suspension_client_lookup', 'persaud')).body as Options;
    const ravi = clients.options.find((o) => o.text.text === '#1005 Ravi Persaud')!;
    await h.sender.blockAction({ userId: 'U0AGENT', actionId: 'suspension_client_lookup', view: h.fake.views.get(id)!, selectedOption: { text: { type: 'plain_text', text: ravi.text.text }, value: ravi.value } });
    await h.viewBecomes(id, 'suspension_form', '/unsuspend 104');
  });

  it('a picked client is submitted like a typed id: the payment is recorded for that client', async () => {
    h = await startHarness();
    const { id, view } = await openForm('/payments', 'add', 'payment_form');
    const picked = ((await typing(view, 'typeahead_client', 'kevin')).body as Options).options.find((o) => o.value === '1008')!;
    await h.submit(id, {
      ...inputs({ amount: '1500' }),
      client: { typeahead_client: { type: 'external_select', selected_option: { text: { type: 'plain_text', text: picked.text.text }, value: picked.value } } },
    });
    await h.fake.waitFor('chat.postMessage', (call) => call.args.channel === AUDIT_CHANNEL);
    expect(h.uisp.sim.requests.filter((r) => r.method === 'POST').map((r) => r.body)).toEqual([expect.objectContaining({ clientId: 1008, amount: 1500 })]);
  });

  it('reads UISP once for many keystrokes (the index is cached)', async () => {
    h = await startHarness();
    const { view } = await openForm('/activate', '', 'activate_form');
    for (const typed of ['b', 'ba', 'bap', 'bapt']) await typing(view, 'typeahead_device', typed);
    expect(h.uisp.sim.requests.filter((r) => r.method === 'GET' && r.path === '/nms/api/v2.1/devices')).toHaveLength(1);
  });

  it('the client field asks the CRM for what was typed, never for the whole client list', async () => {
    h = await startHarness();
    const { view } = await openForm('/activate', '', 'activate_form');
    for (const typed of ['pe', 'per', 'persaud']) {
      const clients = (await typing(view, 'typeahead_client', typed)).body as Options;
      expect(clients.options.map((o) => o.value)).toEqual([typed, '1005']);
    }
    const clientReads = h.uisp.sim.requests.filter((r) => r.method === 'GET' && r.path === '/crm/api/v1.0/clients');
    expect(clientReads.map((r) => r.query.query)).toEqual(['pe', 'per', 'persaud']);
  });

  it('offers a user who may not run SubOps no options, and reads nothing from UISP', async () => {
    h = await startHarness({ env: { ALLOWED_USER_IDS: 'U0AGENT' } });
    const { view } = await openForm('/activate', '', 'activate_form');
    const before = h.uisp.sim.requests.length;
    const reply = await typing(view, 'typeahead_client', 'singh', 'U0STRANGER');
    expect(reply.body).toEqual({ options: [] });
    expect(h.uisp.sim.requests.length).toBe(before);
    expect(h.fake.callsTo('chat.postEphemeral')).toHaveLength(0);
    expect(h.fake.responses).toHaveLength(0);
  });

  it('the form still takes typed text (the playground and Slack send it as the typed-text option)', async () => {
    h = await startHarness();
    const { id } = await openForm('/activate', 'no-such-cpe jane doe', 'activate_form');
    const reply = await h.submit(id, { ...inputs({ firstName: 'jane', lastName: 'doe' }), device: selected('typeahead_device', 'no-such-cpe') });
    expect(reply.status).toBe(200);
    await h.viewBecomes(id, 'activate_form', 'Device not found');
    expect(h.uisp.writes()).toEqual([]);
  });
});
