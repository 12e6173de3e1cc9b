/**
 * /client and /device over the simulator and the fake Slack: cards, lists and "nothing matches", each
 * Block Kit validated, and every button: Open, Suspend/Unsuspend, Record payment and Activate start
 * the existing flows pre-filled, under the same access rules as the commands.
 */
import { describe, expect, it } from 'vitest';
import { answer } from './answers.js';
import { expectValidModal } from './block-kit.js';
import { WORLD_FILTERS, worldFromEnv } from '../../src/simulator/world.js';
import { AGENT, buttons, CHANNEL, inputs, preselected, press, selected, shown, harnessPerTest } from './harness.js';

const { start } = harnessPerTest();


describe('/client', () => {
  it('answers the agent alone with the card: balance, services with state and reason, last payment, site and devices, and the buttons that apply', async () => {
    const harness = await start();
    expect((await harness.command('/client', '#1005')).body).toBe('');
    const card = await answer(harness, 0);
    const text = shown(card);
    expect(text).toContain('Ravi Persaud · client #1005');
    expect(text).toContain('*Balance*\\nGYD -20,000.00 (owes GYD 20,000.00)');
    expect(text).toContain(`${harness.uisp.sim.url}/crm/client/1005|Open client #1005`);
    expect(text).toContain('*#104 Standard Monthly*  Suspended (Non-payment)  ·  GYD 10,000.00 / month');
    expect(text).toMatch(/\*Last payment\* {2}`\d{4}-\d\d-\d\d` {2}\*GYD [\d,]+\.\d\d\*/);
    expect(text).toContain('*NMS site Ravi Persaud*  (linked in the CRM)');
    expect(text).toContain(':large_green_circle: *cpe-persaud*  NanoBeam 5AC Gen2  ·  online  ·  -63 dBm · up 22d 1h  ·  10.20.2.44');
    expect([...buttons(card).keys()]).toEqual(['Unsuspend #104', 'Record payment']);
    expect(harness.fake.callsTo('chat.postMessage')).toEqual([]);
    expect(harness.uisp.writes()).toEqual([]);
  });

  it('lists clients of the same name with what tells them apart; Open replaces the list with that card', async () => {
    const harness = await start();
    await harness.command('/client', 'kevin singh');
    const list = await answer(harness, 0);
    expect(shown(list)).toContain('2 clients match “kevin singh”');
    expect(shown(list)).toContain('*#1009 Kevin Singh*\\n2 Canje Road, New Amsterdam  ·  ksingh.berbice@example.com  ·  +592 688 5530');
    expect(await press(harness, list, 'Open 1009')).toMatchObject({ status: 200 });
    const card = await answer(harness, 1);
    expect(harness.fake.responses[1]!.body.replace_original).toBe(true);
    expect(shown(card)).toContain('Kevin Singh · client #1009');
    // No service yet: the card offers an activation for this very client.
    expect([...buttons(card).keys()]).toEqual(['Record payment', 'Activate']);
  });

  it('says when nothing matches and offers /activate with the typed name', async () => {
    const harness = await start();
    await harness.command('/client', 'ada lovelace');
    const none = await answer(harness, 0);
    expect(none.text).toBe('No CRM client matches “ada lovelace” (active or archived).');
    await press(harness, none, 'Activate a new customer');
    const { view } = await harness.openedView();
    expectValidModal(harness.fake.callsTo('views.open').at(-1)!.args.view);
    expect(view.callback_id).toBe('activate_form');
    expect(JSON.stringify(view)).toContain('"initial_value":"ada"');
    expect(JSON.stringify(view)).toContain('"initial_value":"lovelace"');
  });

  it('names bad input and a missing argument without asking UISP', async () => {
    const harness = await start();
    expect((await harness.command('/client', '')).body.text).toContain('Usage: `/client <name | id | #id>`');
    await harness.command('/client', '#0');
    expect((await answer(harness, 0)).text).toBe(':x: Client id must be greater than 0.');
    expect(harness.uisp.sim.requests).toEqual([]);
  });

  it('shows an archived client without buttons, and what it could not read', async () => {
    const harness = await start();
    harness.uisp.sim.setFaults([{ method: 'GET', path: '/nms/api/v2.1/devices', kind: 'status', status: 503 }]);
    await harness.command('/client', 'leon hope');
    const card = await answer(harness, 0);
    expect(shown(card)).toContain('Archived in the CRM: restore the client there before changing anything.');
    expect(shown(card)).toContain(':warning: Could not read the NMS sites and devices: NMS GET /nms/api/v2.1/devices');
    expect(buttons(card).size).toBe(0);
  });
});

describe('card buttons start the existing flows, pre-filled', () => {
  it('Unsuspend opens the unsuspend form with the service, which lifts the suspension after confirmation', async () => {
    const harness = await start();
    await harness.command('/client', '1005');
    await press(harness, await answer(harness, 0), 'Unsuspend #104');
    const { id, view } = await harness.openedView();
    expectValidModal(harness.fake.callsTo('views.open').at(-1)!.args.view);
    expect(view.callback_id).toBe('suspension_form');
    expect(JSON.stringify(view)).toContain('"initial_value":"104"');
    await harness.submit(id, inputs({ service: '104' }));
    await harness.viewBecomes(id, 'suspension_confirm');
    await harness.submit(id, {});
    await harness.fake.waitFor('chat.update', (call) => call.args.channel === CHANNEL);
    expect(harness.uisp.writes()).toEqual(['PATCH /crm/api/v1.0/clients/services/104/cancel-suspend']);
  });

  it('Suspend opens the suspend form with the service and the CRM reasons', async () => {
    const harness = await start();
    await harness.command('/client', '1001');
    await press(harness, await answer(harness, 0), 'Suspend #101');
    const { id, view } = await harness.openedView();
    expect(JSON.stringify(view)).toContain('"initial_value":"101"');
    await harness.fake.waitFor('views.update', (call) => call.args.view_id === id && JSON.stringify(call.args.view).includes('Non-payment'));
    await harness.submit(id, { ...inputs({ service: '101' }), reason: selected('value', '3') });
    expect(JSON.stringify(await harness.viewBecomes(id, 'suspension_confirm'))).toContain('Equipment issue');
  });

  it('Record payment opens the payment form for the client, which records in this channel', async () => {
    const harness = await start();
    await harness.command('/client', '1006');
    await press(harness, await answer(harness, 0), 'Record payment');
    const { id, view } = await harness.openedView();
    expect(view.callback_id).toBe('payment_form');
    expect(JSON.stringify(view)).toContain(preselected('1006'));
    await harness.submit(id, inputs({ client: '1006', amount: '25,000' }));
    await harness.fake.waitFor('chat.postMessage', (call) => call.args.channel === CHANNEL);
    expect(harness.uisp.writes()).toEqual(['POST /crm/api/v1.0/payments']);
    expect(harness.uisp.sim.requests.find((r) => r.method === 'POST')?.body).toMatchObject({ clientId: 1006, amount: 25000 });
  });

  it('Activate opens the activation form with the client’s name and id', async () => {
    const harness = await start();
    await harness.command('/client', '1004');
    await press(harness, await answer(harness, 0), 'Activate');
    const { view } = await harness.openedView();
    const form = JSON.stringify(view);
    for (const value of ['Shanice', 'Williams']) expect(form).toContain(`"initial_value":"${value}"`);
    expect(form).toContain(preselected('1004'));
    expect(harness.uisp.writes()).toEqual([]);
  });

  it('every button passes the access rules: a user who may not act gets the refusal and no form', async () => {
    const harness = await start({ env: { ALLOWED_USER_IDS: AGENT } });
    await harness.command('/client', '1005');
    const card = await answer(harness, 0);
    await press(harness, card, 'Unsuspend #104', 'U0STRANGER');
    await press(harness, card, 'Record payment', 'U0STRANGER');
    await harness.settled();
    expect(harness.fake.callsTo('views.open')).toEqual([]);
    const refusals = harness.fake.responses.slice(1).map((r) => String(r.body.text));
    expect(refusals).toHaveLength(2);
    for (const refusal of refusals) expect(refusal).toContain('You are not allowed to run SubOps commands');
    expect((await harness.command('/client', '1005', 'U0STRANGER')).body.text).toContain('You are not allowed to run SubOps commands');
  });
});

describe('/device', () => {
  it('shows a device with its site and the client that site belongs to; Open client shows the client’s card', async () => {
    const harness = await start();
    await harness.command('/device', 'B4:FB:E4:1A:2B:21');
    const card = await answer(harness, 0);
    const text = shown(card);
    for (const field of ['*Model*\\nLiteBeam 5AC Gen2', '*Status*\\nonline', '*Signal · uptime*\\n-58 dBm · up 7d 9h', '*IP · MAC*\\n10.20.1.21\\nB4:FB:E4:1A:2B:21', '*Authorized*\\nyes', '*Role*\\nstation', '*Site*\\nMarcus Baptiste (endpoint)', '*Client*\\n#1001 Marcus Baptiste']) {
      expect(text).toContain(field);
    }
    await press(harness, card, 'Open client #1001');
    expect(shown(await answer(harness, 1))).toContain('Marcus Baptiste · client #1001');
  });

  it('a discovered device offers "Activate for a customer", pre-filled with the device', async () => {
    const harness = await start();
    await harness.command('/device', '10.20.1.88');
    const card = await answer(harness, 0);
    expect(shown(card)).toContain('*Status*\\ndiscovered, not authorized');
    await press(harness, card, 'Activate for a customer');
    const { view } = await harness.openedView();
    expect(JSON.stringify(view)).toContain(preselected('10.20.1.88'));
  });

  it('lists devices whose name contains the text, opens one, and says when none matches', async () => {
    const harness = await start();
    await harness.command('/device', 'ap1');
    const list = await answer(harness, 0);
    expect(shown(list)).toContain('3 devices match “ap1”');
    await press(harness, list, 'Open 10.20.2.2');
    expect(shown(await answer(harness, 1))).toContain('Device enmore-ap1');
    await harness.command('/device', 'nothing-here');
    expect((await answer(harness, 2)).text).toBe('No NMS device matches “nothing-here”');
  });
});

describe('cards during an outage (issue #40)', () => {
  it("/client and /device say since when and which device for the tower's customer, not for a neighbour tower's", async () => {
    const world = worldFromEnv();
    const harness = await start({ simulator: { world, filters: [...new Set([...WORLD_FILTERS[world], 'outages' as const])] } });
    harness.uisp.sim.takeDown('1c0f5e8b-2a3d-4b4c-9e6f-7d8a9b0c1d02', new Date('2026-11-28T14:02:00Z'));
    const line = ':rotating_light: *Affected by an outage since 2026-11-28 14:02 UTC (diamond-ap1 at Diamond Tower)*';
    await harness.command('/client', '#1001');
    expect(shown(await answer(harness, 0))).toContain(line);
    await harness.command('/device', '10.20.1.21');
    expect(shown(await answer(harness, 1))).toContain(line);
    await harness.command('/client', '#1005');
    expect(shown(await answer(harness, 2))).not.toContain('outage');
  });
});
