/**
 * Outages in Slack (issue #40): one thread per outage in OUTAGES_CHANNEL_ID with whom it affects,
 * Acknowledge and Add update once across two processes, the recovery in the thread and ✅ on the parent,
 * a restart that finds the thread again, and /healthz saying when the watch cannot read UISP. The watch's
 * clock is the test's; each poll is called directly.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { WORLD_FILTERS, worldFromEnv, type SimulatorFilter } from '../../src/simulator/world.js';
import type { FakeMessage } from '../../src/playground/fake-slack.js';
import { OUTAGE_EVENT_TYPE } from '../../src/views/outages.js';
import { webApi } from '../../src/slack/bolt.js';
import { AGENT, BOT_TOKEN, buttons, inputs, shown, startHarness, type Harness } from './harness.js';

const OUTAGES = 'C0OUTAGES';
const LEAD = 'U0LEAD';
const DIAMOND_AP = '1c0f5e8b-2a3d-4b4c-9e6f-7d8a9b0c1d02';
const world = worldFromEnv();
const withOutages: readonly SimulatorFilter[] = [...new Set([...WORLD_FILTERS[world], 'outages' as const])];

let t = Date.now();
const now = () => t;
const MINUTE = 60_000;

let h: Harness;
afterEach(async () => {
  await h?.close();
});

const start = async (env: Record<string, string> = {}) => {
  t = Date.now();
  h = await startHarness({ events: { now }, env: { OUTAGES_CHANNEL_ID: OUTAGES, ...env }, simulator: { filters: withOutages } });
};

/** The outage threads' parents and their replies. */
const parents = () => h.fake.messages(OUTAGES).filter((m) => m.thread_ts === undefined || m.thread_ts === m.ts);
const replies = (ts: string) => h.fake.messages(OUTAGES).filter((m) => m.thread_ts === ts && m.ts !== ts);

/** The Diamond Tower AP went down 10 minutes ago, and the watch polled. */
async function diamondDown(): Promise<FakeMessage> {
  h.uisp.sim.takeDown(DIAMOND_AP, new Date(t - 10 * MINUTE));
  await h.events!.outages.poll();
  const [parent] = parents();
  if (!parent) throw new Error('no outage posted');
  return parent;
}

/** Presses a button of the parent as Slack shows it now, or as a person's screen still showed it (`shownAs`). */
const pressOn = (sender: Harness['sender'], ts: string, label: string, userId = AGENT, shownAs?: FakeMessage) => {
  const message = shownAs ?? h.fake.messages(OUTAGES).find((m) => m.ts === ts)!;
  const button = buttons(message).get(label);
  if (!button) throw new Error(`no button "${label}"`);
  return sender.blockAction({ userId, actionId: button.action_id, ...(button.value !== undefined && { value: button.value }), message, channelId: OUTAGES, messageTs: ts });
};

describe(`outage threads (${world} world)`, () => {
  it('a tower AP down: one thread in the outages channel with the device, its site, since when and exactly the customers below it', async () => {
    await start();
    const parent = await diamondDown();
    expect(parents()).toHaveLength(1);
    const text = shown(parent);
    expect(text).toContain('diamond-ap1 (Rocket 5AC Prism, ap, 10.20.1.2/24) at Diamond Tower, down since');
    expect(text).toContain('2 customers affected');
    expect(text).toContain('#1001 Marcus Baptiste: service #101 Standard Monthly (Active)');
    expect(text).toContain('#1007 Leon Hope');
    expect(text).not.toContain('Ravi Persaud');
    expect([...buttons(parent).keys()]).toEqual(['Acknowledge', 'Add update']);
    expect(parent.metadata).toMatchObject({ event_type: OUTAGE_EVENT_TYPE });
    // Polled again: nothing more.
    await h.events!.outages.poll();
    expect(h.fake.messages(OUTAGES)).toHaveLength(1);
  });

  it('when it comes back: the thread says so with the duration, the parent shows ✅ and no Acknowledge', async () => {
    await start();
    const { ts } = await diamondDown();
    h.uisp.sim.bringBack(DIAMOND_AP, new Date(t - 10 * MINUTE + 65 * MINUTE));
    t += 60 * MINUTE;
    await h.events!.outages.poll();
    expect(replies(ts).map(shown).join('\n')).toContain('after 1h 5m');
    const parent = h.fake.messages(OUTAGES).find((m) => m.ts === ts)!;
    expect(shown(parent)).toContain(':white_check_mark: *Outage:*');
    expect(shown(parent)).toContain('*Back up*');
    expect([...buttons(parent).keys()]).toEqual([]);
  });

  it('Acknowledge once across two processes: "@lead is on it" on the parent, one reply; the second press is told', async () => {
    await start();
    const { ts } = await diamondDown();
    const other = await h.replica();
    const before = h.fake.messages(OUTAGES).find((m) => m.ts === ts)!;
    await pressOn(h.sender, ts, 'Acknowledge', LEAD);
    await h.settled();
    // The second person's screen still shows the button.
    await pressOn(other.sender, ts, 'Acknowledge', AGENT, before);
    await other.settled();
    const acknowledged = replies(ts).filter((m) => shown(m).includes('acknowledged'));
    expect(acknowledged).toHaveLength(1);
    expect(shown(acknowledged[0]!)).toContain(`<@${LEAD}>`);
    const parent = h.fake.messages(OUTAGES).find((m) => m.ts === ts)!;
    expect(shown(parent)).toContain(`<@${LEAD}> is on it`);
    expect([...buttons(parent).keys()]).toEqual(['Add update']);
    expect(h.fake.responses.map((r) => JSON.stringify(r.body))).toEqual([expect.stringContaining('already acknowledged')]);
  });

  it('Add update: the note in the thread and on the parent’s last line, once even when Slack delivers the submission twice', async () => {
    await start();
    const { ts } = await diamondDown();
    await pressOn(h.sender, ts, 'Add update');
    const { id } = await h.openedView();
    const values = inputs({ outage_note: 'Crew on site, replacing the AP' });
    await h.submit(id, values);
    await h.settled();
    const other = await h.replica();
    await other.sender.viewSubmission({ userId: AGENT, view: h.fake.views.get(id)!, values });
    await other.settled();
    const updates = replies(ts).filter((m) => shown(m).includes('Crew on site'));
    expect(updates).toHaveLength(1);
    expect(shown(h.fake.messages(OUTAGES).find((m) => m.ts === ts)!)).toContain('Latest: Crew on site, replacing the AP');
  });

  it('an empty update is refused, naming the field, and nothing is posted', async () => {
    await start();
    const { ts } = await diamondDown();
    await pressOn(h.sender, ts, 'Add update');
    const { id } = await h.openedView();
    const reply = await h.submit(id, inputs({ outage_note: '   ' }));
    expect(JSON.stringify(reply.body)).toContain('outage_note');
    expect(replies(ts)).toHaveLength(0);
  });

  it('who may acknowledge is a setting: someone else is refused and nothing is posted', async () => {
    await start({ ACCESS_ACKNOWLEDGE_OUTAGE: LEAD });
    const { ts } = await diamondDown();
    await pressOn(h.sender, ts, 'Acknowledge', AGENT);
    await h.settled();
    expect(replies(ts)).toHaveLength(0);
    await pressOn(h.sender, ts, 'Acknowledge', LEAD);
    await h.settled();
    expect(replies(ts).map(shown).join('')).toContain(`<@${LEAD}> acknowledged`);
  });

  it('after a restart the recovery goes to the thread SubOps started before it', async () => {
    await start();
    const { ts } = await diamondDown();
    await h.restart();
    h.uisp.sim.bringBack(DIAMOND_AP, new Date(t - 5 * MINUTE));
    await h.events!.outages.poll();
    expect(parents()).toHaveLength(1);
    expect(replies(ts).map(shown).join('\n')).toContain('after 5m');
  });

  it('a device that keeps dropping briefly is posted once as flapping, with its total, and never as an outage', async () => {
    await start();
    t = Date.now() - 20 * MINUTE;
    await h.events!.outages.poll();
    for (const [down, up] of [[10, 40], [5, 55], [20, 50], [10, 30]] as const) {
      h.uisp.sim.takeDown(DIAMOND_AP, new Date(t + down * 1000));
      h.uisp.sim.bringBack(DIAMOND_AP, new Date(t + up * 1000));
      t += MINUTE;
      await h.events!.outages.poll();
    }
    const posted = h.fake.messages(OUTAGES);
    expect(posted.map(shown)).toEqual([expect.stringContaining('*Flapping:* diamond-ap1 at Diamond Tower went down 3 times in 60 minutes, each time briefly: 1m down in total.')]);
  });

  it('Show all lists every affected customer privately, read from UISP as it is now', async () => {
    await start();
    const parent = await diamondDown();
    // Ten or fewer customers show no button; the action is the same past ten (test/slack/outage-views.test.ts).
    await h.sender.blockAction({ userId: AGENT, actionId: 'outage_show_all', value: 'x', message: parent, channelId: OUTAGES, messageTs: parent.ts });
    await h.settled();
    const [answer] = h.fake.responses.map((r) => JSON.stringify(r.body));
    expect(answer).toContain('2 customers affected');
    expect(answer).toContain('#1001 Marcus Baptiste');
    expect(answer).toContain('#1007 Leon Hope');
    expect(h.fake.messages(OUTAGES)).toHaveLength(1);
  });

  it('a message SubOps did not seal is not an outage: Acknowledge on it posts nothing', async () => {
    await start();
    const parent = await diamondDown();
    const forged = { ...parent, ts: '1700000000.000900', metadata: { event_type: OUTAGE_EVENT_TYPE, event_payload: { ...(parent.metadata as { event_payload: object }).event_payload, seal: 'forged' } } };
    // Posted with the bot token (as the CLI could): SubOps' name on it, but not the bot's seal.
    const bot = new webApi.WebClient(BOT_TOKEN, { slackApiUrl: h.fake.apiUrl });
    await bot.chat.postMessage({ channel: OUTAGES, text: forged.text ?? '', blocks: forged.blocks as never, metadata: forged.metadata });
    const posted = h.fake.messages(OUTAGES).at(-1)!;
    await pressOn(h.sender, posted.ts, 'Acknowledge', AGENT);
    await h.settled();
    expect(replies(posted.ts)).toHaveLength(0);
    expect(h.fake.responses.map((r) => JSON.stringify(r.body))).toEqual([expect.stringContaining('not an outage SubOps posted')]);
  });

  it('/healthz says when the outage watch cannot read UISP, and nothing is posted meanwhile', async () => {
    await start();
    h.uisp.sim.setFaults([{ path: '/nms/api/v2.1/outages', kind: 'status', status: 503 }]);
    h.uisp.sim.takeDown(DIAMOND_AP, new Date(t - 10 * MINUTE));
    await h.events!.outages.poll();
    const health = (await (await fetch(`${h.opsOrigin}/healthz`)).json()) as { outageWatch?: { state: string; line: string } };
    expect(health.outageWatch?.state).toBe('failing');
    expect(health.outageWatch?.line).toMatch(/^outage watch: UISP not answering .*since \d{4}-/);
    expect(h.fake.messages(OUTAGES)).toHaveLength(0);
  });
});
