/**
 * The manual CRM–NMS link, watched: after /activate the new site is checked (one NMS request for every
 * pending site, asking for them by id) until it is linked by hand — "Linked in CRM" in the thread and on the parent — with one
 * reminder after LINK_REMINDER_HOURS; after a restart the pending links come back from UISP and Slack.
 * The clock is injected and each check is called directly: nothing waits for real time.
 */
import { afterEach, describe, expect, it } from 'vitest';
import * as linkWatch from '../../src/commands/link-watch/index.js';
import { siteMarker } from '../../src/services/activation/markers.js';
import { createLogger } from '../../src/slack/logging.js';
import { nms } from '../simulator/helpers.js';
import { AUDIT_CHANNEL, CHANNEL, inputs, shown, startHarness, type Harness } from './harness.js';

const HOUR = 3_600_000;
// The fake Slack stamps messages with the wall clock: the test clock starts a minute after it.
let t = Date.now();
const now = () => t;

let h: Harness;
afterEach(async () => {
  await h?.close();
});

const start = async () => {
  t = Date.now() + 60_000;
  h = await startHarness({ events: { now }, env: { LINK_REMINDER_HOURS: '24' } });
};

/** Runs /activate to the end; returns the new site's id and the thread's parent ts. */
async function activate(device: string, first: string, last: string): Promise<{ siteId: string; clientId: number; parentTs: string }> {
  const before = h.fake.messages(CHANNEL).filter((m) => m.thread_ts === undefined).length;
  await h.command('/activate', `${device} ${first} ${last}`);
  const { id } = await h.openedView((call) => JSON.stringify(call.args).includes(device));
  await h.submit(id, inputs({ device, firstName: first, lastName: last }));
  await h.fake.waitFor('chat.postMessage', (call) => call.args.thread_ts !== undefined && String(call.args.text).includes(`${first} ${last}`) && String(call.args.text).includes('One manual step left'));
  await h.settled();
  const parent = h.fake.messages(CHANNEL).filter((m) => m.thread_ts === undefined)[before]!;
  const site = h.uisp.sim.data.sites.find((s) => s.identification.name === `${first} ${last}`)!;
  return { siteId: site.id, clientId: Number(/Created by SubOps for CRM client (\d+) /.exec(site.description.note ?? '')![1]), parentTs: parent.ts };
}

/** What someone does by hand in the CRM web interface: the NMS site now carries the client binding. */
function linkByHand(siteId: string, clientId: number): void {
  const site = h.uisp.sim.data.sites.find((s) => s.id === siteId)!;
  site.ucrm = { client: { id: String(clientId), name: 'linked', isLead: false }, service: null };
  site.description.ucrmId = String(clientId);
}

const siteChecks = () => h.uisp.sim.requests.filter((r) => r.method === 'GET' && r.path === '/nms/api/v2.1/sites' && r.query.ucrmDetails === 'true');
const thread = (parentTs: string) => h.fake.messages(CHANNEL).filter((m) => m.thread_ts === parentTs);

describe('after an activation', () => {
  it('watches the site until it is linked by hand: "Linked in CRM" in the thread and on the parent', async () => {
    await start();
    const { siteId, clientId, parentTs } = await activate('10.20.1.88', 'Jane', 'Doe');
    expect(h.events!.links.pending().map((link) => [link.siteId, link.clientId, link.thread])).toEqual([[siteId, clientId, { channel: CHANNEL, ts: parentTs }]]);

    const afterActivation = siteChecks().length;
    await h.events!.links.check();
    expect(siteChecks()).toHaveLength(afterActivation + 1);
    expect(thread(parentTs).some((m) => m.text.includes('Linked in CRM'))).toBe(false);

    linkByHand(siteId, clientId);
    await h.events!.links.check();
    const linked = thread(parentTs).at(-1)!;
    expect(linked.text).toBe(`:white_check_mark: *Linked in CRM*: NMS site "Jane Doe" is now linked to client <${h.uisp.sim.url}/crm/client/${clientId}|#${clientId}>.`);
    const parent = h.fake.messages(CHANNEL).find((m) => m.ts === parentTs)!;
    expect(shown(parent)).toContain('*Activated*');
    expect(shown(parent)).toContain('Linked in CRM');
    expect(h.events!.links.pending()).toEqual([]);

    // Nothing pending: no more requests.
    await h.events!.links.check();
    expect(siteChecks()).toHaveLength(afterActivation + 2);
  });

  it('one NMS request per check for every pending site: those sites by id, not the whole list (where NMS honours ?id=)', async () => {
    await start();
    const sites = [await activate('10.20.1.88', 'Jane', 'Doe'), await activate('10.20.3.12', 'Shanice', 'Williams')].map((a) => a.siteId);
    expect(h.events!.links.pending()).toHaveLength(2);
    const before = h.uisp.sim.requests.length;
    await h.events!.links.check();
    const asked = h.uisp.sim.requests.slice(before);
    expect(asked.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /nms/api/v2.1/sites']);
    // The log keeps a repeated parameter's last value: the second id asked.
    if (h.uisp.sim.world === 'stock') expect(asked[0]!.query).toEqual({ id: sites[1], ucrmDetails: 'true' });
  });

  it('a site watched while a check reads the others is not taken for gone: the next check reports its link', async () => {
    await start();
    const first = await activate('10.20.1.88', 'Jane', 'Doe');
    const parent = h.uisp.sim.data.sites.find((s) => s.identification.name === 'Parika Tower')!.id;
    const made = await nms(h.uisp.sim, 'POST', '/sites', { name: 'Shanice Williams', type: 'endpoint', parentSiteId: parent, note: siteMarker(1004, '7b2d4e6f') });
    const held = h.uisp.sim.gate({ method: 'GET', path: '/nms/api/v2.1/sites' });
    const checking = h.events!.links.check();
    await held.arrived(1);
    // What an activation ending now does: its site is watched from now on.
    h.events!.links.watch({ siteId: made.body.id, siteName: 'Shanice Williams', clientId: 1004, thread: null });
    held.open();
    await checking;
    expect(h.events!.links.pending().map((link) => link.siteId)).toEqual([first.siteId, made.body.id]);
    linkByHand(made.body.id, 1004);
    await h.events!.links.check();
    await h.settled();
    expect(h.fake.messages(AUDIT_CHANNEL).at(-1)!.text).toContain('*Linked in CRM*: NMS site "Shanice Williams"');
  });

  it('one reminder with the CRM link after LINK_REMINDER_HOURS without a link, never two', async () => {
    await start();
    const { clientId, parentTs } = await activate('10.20.1.88', 'Jane', 'Doe');
    t += 23 * HOUR;
    await h.events!.links.check();
    expect(thread(parentTs).filter((m) => m.text.includes('Reminder'))).toEqual([]);
    t += HOUR;
    await h.events!.links.check();
    await h.events!.links.check();
    const reminders = thread(parentTs).filter((m) => m.text.includes('Reminder'));
    expect(reminders.map((m) => m.text)).toEqual([
      `:alarm_clock: *Reminder:* NMS site "Jane Doe" is still not linked in the CRM, 24 h after the activation. In the CRM web interface, link client <${h.uisp.sim.url}/crm/client/${clientId}|#${clientId}> to NMS site "Jane Doe".`,
    ]);
  });
});

describe('after an install sheet', () => {
  it("its rows' manual links come in one reply with each client's CRM page, each watched: \"Linked in CRM\" in the sheet's thread, the parent left with the counts", async () => {
    await start();
    await h.command('/activate', 'sheet');
    const { id } = await h.openedView();
    await h.submit(id, inputs({ sheet: ['device,first_name,last_name', '10.20.1.88,Jane,Doe', 'NS-Fraser,Dwayne,Fraser'].join('\n') }));
    await h.viewBecomes(id, 'sheet_check');
    await h.submit(id, {});
    await h.fake.waitFor('chat.postMessage', (call) => String(call.args.text) === '2 manual CRM–NMS links left.');
    await h.settled();
    const parent = h.fake.messages(CHANNEL).find((m) => m.thread_ts === undefined)!;
    const reminders = thread(parent.ts).filter((m) => m.text === '2 manual CRM–NMS links left.');
    expect(reminders).toHaveLength(1);
    const pending = h.events!.links.pending();
    expect(pending.map((link) => [link.siteName, link.thread])).toEqual([
      ['Jane Doe', { channel: CHANNEL, ts: parent.ts }],
      ['Dwayne Fraser', { channel: CHANNEL, ts: parent.ts }],
    ]);
    for (const link of pending) expect(shown(reminders[0]!)).toContain(`<${h.uisp.sim.url}/crm/client/${link.clientId}|#${link.clientId} `);
    expect(shown(reminders[0]!)).toMatch(/row 1 \(line 2\): client .* to NMS site \\"Jane Doe\\" and device /);

    const jane = pending.find((link) => link.siteName === 'Jane Doe')!;
    linkByHand(jane.siteId, jane.clientId);
    await h.events!.links.check();
    expect(thread(parent.ts).at(-1)!.text).toBe(`:white_check_mark: *Linked in CRM*: NMS site "Jane Doe" is now linked to client <${h.uisp.sim.url}/crm/client/${jane.clientId}|#${jane.clientId}>.`);
    // The parent still says the sheet's counts: one of its two links is made, not "Linked in CRM".
    expect(shown(h.fake.messages(CHANNEL).find((m) => m.ts === parent.ts)!)).not.toContain('Linked in CRM');
    expect(h.events!.links.pending().map((link) => link.siteName)).toEqual(['Dwayne Fraser']);
  });
});

describe('several processes watching the same site', () => {
  it('a replica that (re)started finds the pending site too: the reminder and "Linked in CRM" are each posted once', async () => {
    await start();
    const { siteId, clientId, parentTs } = await activate('10.20.1.88', 'Jane', 'Doe');
    const other = await h.replica();
    await linkWatch.resume(other.app.client, { events: other.events, auditChannelId: AUDIT_CHANNEL, logger: createLogger('silent'), identity: h.identity }, now);
    other.events!.links.stop();
    expect(other.events!.links.pending().map((link) => [link.siteId, link.thread])).toEqual([[siteId, { channel: CHANNEL, ts: parentTs }]]);

    t += 25 * HOUR;
    await Promise.all([h.events!.links.check(), other.events!.links.check()]);
    linkByHand(siteId, clientId);
    await Promise.all([h.events!.links.check(), other.events!.links.check()]);
    await Promise.all([h.settled(), other.settled()]);
    expect(thread(parentTs).filter((m) => m.text.includes('Reminder'))).toHaveLength(1);
    expect(thread(parentTs).filter((m) => m.text.includes('Linked in CRM'))).toHaveLength(1);
    // The owner let go once it was linked: at its next check the other process finds it done, and says nothing.
    await Promise.all([h.events!.links.check(), other.events!.links.check()]);
    await Promise.all([h.settled(), other.settled()]);
    expect([h.events!.links.pending(), other.events!.links.pending()]).toEqual([[], []]);
    expect(thread(parentTs).filter((m) => m.text.includes('Linked in CRM'))).toHaveLength(1);
  });
});

describe('one owner at a time', () => {
  /** The first process watches the site, and a second one (a replica, started later) knows it too. */
  async function twoWatching() {
    await start();
    const activated = await activate('10.20.1.88', 'Jane', 'Doe');
    await h.events!.links.check();
    const other = await h.replica();
    await linkWatch.resume(other.app.client, { events: other.events, auditChannelId: AUDIT_CHANNEL, logger: createLogger('silent'), identity: h.identity }, now);
    other.events!.links.stop();
    linkByHand(activated.siteId, activated.clientId);
    return { ...activated, other };
  }
  const linkedIn = (parentTs: string) => thread(parentTs).filter((m) => m.text.includes('Linked in CRM'));

  it('the owner reports the link; the other process leaves the site alone while the owner holds it', async () => {
    const { parentTs, other } = await twoWatching();
    await other.events!.links.check();
    expect(linkedIn(parentTs)).toEqual([]);
    expect(other.events!.links.pending()).toHaveLength(1);
    await h.events!.links.check();
    await h.settled();
    expect(linkedIn(parentTs)).toHaveLength(1);
  });

  it('a process that stops hands its watches over: the other reports at its next check', async () => {
    const { parentTs, other } = await twoWatching();
    h.events!.links.stop();
    await h.events!.links.handOver();
    await other.events!.links.check();
    await other.settled();
    expect(linkedIn(parentTs)).toHaveLength(1);
  });

  it('a process that died holding a watch loses it when its lease runs out (three check intervals)', async () => {
    const { parentTs, other } = await twoWatching();
    t += 2 * 60_000;
    await other.events!.links.check();
    expect(linkedIn(parentTs)).toEqual([]);
    t += 60_000;
    await other.events!.links.check();
    await other.settled();
    expect(linkedIn(parentTs)).toHaveLength(1);
  });
});

describe('after a restart', () => {
  it('the pending link comes back from UISP (SubOps’ marker, no binding) and its thread from the audit message', async () => {
    await start();
    const { siteId, clientId, parentTs } = await activate('10.20.1.88', 'Jane', 'Doe');
    await h.restart();
    // Only sites SubOps created and nobody linked: not the sample's linked client sites.
    expect(h.events!.links.pending().map((link) => [link.siteId, link.thread, link.reminded])).toEqual([[siteId, { channel: CHANNEL, ts: parentTs }, false]]);

    linkByHand(siteId, clientId);
    await h.events!.links.check();
    expect(thread(parentTs).at(-1)!.text).toContain('*Linked in CRM*');
    expect(shown(h.fake.messages(CHANNEL).find((m) => m.ts === parentTs)!)).toContain('Linked in CRM');
  });

  it('a reminder already posted is not posted again; one that was due while SubOps was down is', async () => {
    await start();
    const reminded = await activate('10.20.1.88', 'Jane', 'Doe');
    t += 25 * HOUR;
    await h.events!.links.check();
    const waiting = await activate('10.20.3.12', 'Shanice', 'Williams');
    await h.restart();
    t += 25 * HOUR;
    await h.events!.links.check();
    expect(thread(reminded.parentTs).filter((m) => m.text.includes('Reminder'))).toHaveLength(1);
    expect(thread(waiting.parentTs).filter((m) => m.text.includes('Reminder'))).toHaveLength(1);
  });

  it('without its audit message the link is still watched, and reported in the audit channel', async () => {
    await start();
    const { siteId, clientId } = await activate('10.20.1.88', 'Jane', 'Doe');
    for (const message of h.fake.messages(AUDIT_CHANNEL)) expect(message.metadata).toBeDefined();
    h.fake.failNext('conversations.history', { error: 'missing_scope' });
    await h.restart();
    expect(h.events!.links.pending().map((link) => [link.siteId, link.thread])).toEqual([[siteId, null]]);
    linkByHand(siteId, clientId);
    await h.events!.links.check();
    expect(h.fake.messages(AUDIT_CHANNEL).at(-1)!.text).toContain('*Linked in CRM*: NMS site "Jane Doe"');
  });
});
