/**
 * Work in flight survives a hard stop (issue #28 §4): an operation is recorded in the store while it
 * runs; when its process stops hard (here: it stops answering and renews nothing, as a killed process),
 * the next process to sweep says so in its thread once its lease has run out, with Retry where one makes
 * sense. A process that stops cleanly, or an operation that ended, leaves nothing to say.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { AGENT, CHANNEL, inputs, shown, startHarness, suspendThroughSlack, type Harness } from './harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const LEASE_MS = 120_000;
const SITE_POSTS = /^\/nms\/api\/v2\.1\/sites$/;

describe('an activation whose process stopped hard', () => {
  it('is reported in its thread by the next process, with a Retry that finishes it there', async () => {
    let clock = Date.now();
    const harness = (h = await startHarness({ now: () => clock }));
    // The first process gets as far as creating the site, and never hears back: it is killed there.
    const sites = harness.uisp.sim.gate({ method: 'POST', path: SITE_POSTS });
    await harness.command('/activate', '10.20.1.88 ada lovelace');
    const { id } = await harness.openedView();
    await harness.submit(id, inputs({ device: '10.20.1.88', firstName: 'ada', lastName: 'lovelace' }));
    await sites.arrived(1);
    await harness.fake.waitFor('chat.postMessage', (call) => call.args.thread_ts !== undefined && String(call.args.text).includes('client'));
    const parent = harness.fake.messages(CHANNEL).find((m) => m.thread_ts === undefined)!;

    // Within the lease the run counts as alive: nothing is said. The next process is another one (its own locks).
    const next = await harness.replica({ ownServices: true });
    expect(await next.app.sweepInFlight()).toBe(0);
    clock += LEASE_MS;
    expect(await next.app.sweepInFlight()).toBe(1);
    const stopped = harness.fake.messages(CHANNEL).filter((m) => m.thread_ts === parent.ts && m.text.startsWith('SubOps stopped'));
    expect(stopped).toHaveLength(1);
    expect(shown(stopped[0]!)).toContain('*SubOps stopped* before this activation of *10.20.1.88* ended (its process was restarted, killed or stalled). UISP may hold more than this thread shows: *Retry* reads it and finishes what is missing.');
    expect(shown(stopped[0]!)).not.toContain('nothing after them');
    expect(shown(stopped[0]!)).toContain('"action_id":"activation_retry"');
    // Said once: a second sweep, by any process, finds nothing.
    expect(await next.app.sweepInFlight()).toBe(0);
    expect(await harness.app.sweepInFlight()).toBe(0);

    // Retry, pressed on that message, runs on the next process and converges in the same thread.
    await next.sender.blockAction({ userId: AGENT, actionId: 'activation_retry', message: stopped[0]! });
    await sites.arrived(2);
    await sites.release(1);
    await harness.fake.waitFor('chat.postMessage', (call) => call.args.thread_ts === parent.ts && String(call.args.text).includes('One manual step left'));
    await next.settled();
    expect(harness.uisp.writes().filter((w) => w === 'POST /crm/api/v1.0/clients')).toHaveLength(1);
    expect(harness.uisp.sim.data.sites.filter((s) => s.identification.name === 'Ada Lovelace')).toHaveLength(1);
    // The killed process's request is let go only so that the test can close (a killed process sends nothing more).
    sites.open();
  });

  it('an operation that ended leaves nothing behind: no sweep says anything, however late', async () => {
    let clock = Date.now();
    const harness = (h = await startHarness({ now: () => clock }));
    await suspendThroughSlack(harness, 101, 2);
    clock += 10 * LEASE_MS;
    const next = await harness.replica();
    expect(await next.app.sweepInFlight()).toBe(0);
    expect(harness.fake.messages(CHANNEL).some((m) => m.text.includes('SubOps stopped'))).toBe(false);
  });
});
