/**
 * The Home tab over the simulator and the fake Slack: opening it publishes the agent's and the team's
 * recent operations (read back from the audit channel's message metadata), the activations still
 * awaiting their manual CRM–NMS link (read from UISP: the endpoint sites not bound to the CRM), and
 * buttons that open the forms.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { webApi } from '@slack/bolt';
import { slackAuditSink } from '../../src/slack/audit.js';
import { WORLD_FILTERS, worldFromEnv } from '../../src/simulator/world.js';
import { expectValidHome, expectValidModal } from './block-kit.js';
import { AGENT, AUDIT_CHANNEL, BOT_TOKEN, CHANNEL, inputs, shown, startHarness, type Harness } from './harness.js';

let h: Harness;
afterEach(async () => {
  await h?.close();
});

type HomeView = { id: string; blocks: unknown[] } & Record<string, unknown>;

/** Opens the Home tab as `userId`; the view SubOps published is checked against the Block Kit schema. Returns the tab as Slack now shows it. */
async function openHome(userId = AGENT): Promise<HomeView> {
  const published = h.fake.callsTo('views.publish').length;
  const reply = await h.sender.event({ type: 'app_home_opened', user: userId, channel: 'D0HOME', tab: 'home' });
  expect(reply.status).toBe(200);
  const call = await h.fake.waitFor('views.publish', (c) => c.args.user_id === userId && h.fake.callsTo('views.publish').indexOf(c) >= published);
  expect(call.response.ok).toBe(true);
  expectValidHome(call.args.view);
  await h.settled();
  return h.fake.homes.get(userId) as HomeView;
}

/** Runs /activate to the end as the agent: an audit record, and a site awaiting its manual link. */
async function activate(device: string, first: string, last: string): Promise<void> {
  await h.command('/activate', `${device} ${first} ${last}`);
  const { id } = await h.openedView((call) => JSON.stringify(call.args).includes(device));
  await h.submit(id, inputs({ device, firstName: first, lastName: last }));
  await h.fake.waitFor('chat.postMessage', (call) => call.args.channel === AUDIT_CHANNEL && JSON.stringify(call.args.metadata ?? '').includes('activate'));
  await h.settled();
}

/** What the CLI posts to the audit channel for a payment recorded by the OS user "alice". */
async function cliPaymentRecord(): Promise<void> {
  const client = new webApi.WebClient(BOT_TOKEN, { slackApiUrl: h.fake.apiUrl });
  await slackAuditSink(client, AUDIT_CHANNEL).write({
    action: 'payment',
    targets: { paymentId: 9001, clientId: 1002 },
    result: 'recorded',
    ok: true,
    summary: 'Payment of 5000.00 GYD recorded for client #1002',
    actor: { via: 'cli', username: 'alice' },
  });
}

describe('the Home tab', () => {
  it("shows the agent's and the team's recent operations and the activations awaiting their CRM link", async () => {
    h = await startHarness();
    await activate('10.20.1.88', 'Jane', 'Doe');
    await cliPaymentRecord();

    const before = h.uisp.sim.requests.length;
    const home = await openHome();
    // One NMS question for the pending links: the endpoint sites not bound to the CRM, never the whole site list where NMS honours the filters;
    // and one for the outages in progress (none here: nothing more).
    const nms = h.uisp.sim.requests.slice(before).filter((r) => r.path.startsWith('/nms/'));
    expect(nms.map((r) => `${r.method} ${r.path}`).sort()).toEqual(['GET /nms/api/v2.1/outages', 'GET /nms/api/v2.1/sites']);
    const asked = nms.filter((r) => r.path === '/nms/api/v2.1/sites');
    if (h.uisp.sim.world === 'stock') expect(asked[0]!.query).toEqual({ type: 'endpoint', ucrm: 'false', ucrmDetails: 'true' });
    const text = shown(home);
    const site = h.uisp.sim.data.sites.find((s) => s.identification.name === 'Jane Doe')!;
    const clientId = /Created by SubOps for CRM client (\d+) /.exec(site.description.note ?? '')![1];

    const [mine, team] = [text.indexOf('Your recent operations'), text.indexOf("The team's recent operations")];
    const missing = text.indexOf('Activations awaiting the manual CRM–NMS link');
    expect(mine).toBeGreaterThan(-1);
    // The agent's own list has the activation and not alice's CLI payment; the team's has both, newest first.
    const mineText = text.slice(mine, team);
    expect(mineText).toContain('*activate* by <@U0AGENT>: activated');
    expect(mineText).not.toContain('alice');
    const teamText = text.slice(team, missing);
    expect(teamText.indexOf('*payment* by alice (CLI): recorded')).toBeGreaterThan(-1);
    expect(teamText.indexOf('*payment* by alice (CLI)')).toBeLessThan(teamText.indexOf('*activate* by <@U0AGENT>'));
    expect(text.slice(missing)).toContain(`NMS site \\"Jane Doe\\" → link it to client <`);
    expect(text.slice(missing)).toContain(`|#${clientId}>`);
    // Read back from Slack, not from memory: the audit channel's history with its metadata.
    expect(h.fake.callsTo('conversations.history').some((call) => call.args.channel === AUDIT_CHANNEL && String(call.args.include_all_metadata) === 'true')).toBe(true);
  });

  it('says so when nothing happened yet and every site is linked', async () => {
    h = await startHarness();
    const home = await openHome();
    expect(shown(home)).toContain('You have no recent operations.');
    expect(shown(home)).toContain('None: every activated site is linked to its CRM client.');
  });

  it('shows the outages in progress, each with its headline and how many customers it affects; none, no section', async () => {
    const world = worldFromEnv();
    h = await startHarness({ simulator: { world, filters: [...new Set([...WORLD_FILTERS[world], 'outages' as const])] } });
    expect(shown(await openHome())).not.toContain('Outages in progress');
    h.uisp.sim.takeDown('1c0f5e8b-2a3d-4b4c-9e6f-7d8a9b0c1d02', new Date(Date.now() - 65 * 60_000));
    h.uisp.sim.takeDown('2d1a6f9c-3b4e-4c5d-8f7a-8e9b0c1d2e03', new Date(Date.now() - 3 * 60_000));
    const text = shown(await openHome());
    const section = text.slice(text.indexOf('*Outages in progress (2)*'));
    expect(section).toMatch(/enmore-ap1 \([^)]*\) at Enmore Tower, down since [^(]* UTC \(3m\) — \*1 customer affected\*/);
    expect(section).toMatch(/diamond-ap1 \(Rocket 5AC Prism, ap, 10\.20\.1\.2\/24\) at Diamond Tower, down since [^(]* UTC \(1h 5m\) — \*2 customers affected\*/);
  });

  it('opens the forms from its buttons; results go to the agent’s DM', async () => {
    h = await startHarness();
    const home = await openHome();
    const pressHome = (actionId: string) => h.sender.blockAction({ userId: AGENT, actionId, view: home });

    await pressHome('home_payment');
    expect((await h.openedView((call) => (call.args.view as { callback_id?: string }).callback_id === 'payment_form')).view.callback_id).toBe('payment_form');
    await pressHome('home_suspend');
    const suspension = await h.openedView((call) => (call.args.view as { callback_id?: string }).callback_id === 'suspension_form');
    expect(String(suspension.view.private_metadata)).toContain(`"channelId":"${AGENT}"`);
    await pressHome('home_activate');
    await h.openedView((call) => (call.args.view as { callback_id?: string }).callback_id === 'activate_form');
  });

  it('looks up a client from its button: the card arrives in the DM with the bot', async () => {
    h = await startHarness();
    const home = await openHome();
    await h.sender.blockAction({ userId: AGENT, actionId: 'home_lookup_client', view: home });
    const { id } = await h.openedView((call) => (call.args.view as { callback_id?: string }).callback_id === 'home_client_lookup');
    expectValidModal(h.fake.callsTo('views.open').at(-1)!.args.view);

    const empty = await h.submit(id, inputs({ query: '' }));
    expect(empty.body).toMatchObject({ response_action: 'errors', errors: { query: expect.stringContaining('client name') } });

    await h.submit(id, inputs({ query: '#1001' }));
    const posted = await h.fake.waitFor('chat.postMessage', (call) => String(call.args.channel).startsWith('D'));
    expect(shown(posted.args as { text?: string; blocks?: unknown[] })).toContain('Marcus Baptiste');
  });

  it('refuses a user who may not run SubOps: a refusal tab, nothing read', async () => {
    h = await startHarness({ env: { ALLOWED_USER_IDS: AGENT } });
    const home = await openHome('U0STRANGER');
    expect(shown(home)).toContain('You are not allowed to run SubOps commands');
    expect(h.fake.callsTo('conversations.history')).toHaveLength(0);
    expect(h.uisp.sim.requests.filter((r) => r.path === '/nms/api/v2.1/sites')).toHaveLength(0);
    expect(h.fake.messages(CHANNEL)).toHaveLength(0);
  });

  it('refuses a button pressed on a Home tab by someone no longer allowed: the tab turns into the refusal, no form opens', async () => {
    h = await startHarness({ env: { ALLOWED_USER_IDS: AGENT } });
    const home = await openHome();
    await h.sender.blockAction({ userId: 'U0STRANGER', actionId: 'home_payment', view: home });
    const refusal = await h.fake.waitFor('views.publish', (call) => call.args.user_id === 'U0STRANGER');
    expectValidHome(refusal.args.view);
    expect(shown(refusal.args.view as { blocks: unknown[] })).toContain('You are not allowed to run SubOps commands');
    expect(h.fake.callsTo('views.open')).toHaveLength(0);
  });
});
