/**
 * A fault the fake Slack cannot produce: the connection to Slack's Web API drops (no HTTP answer at
 * all). nock 14 intercepts the Web API client's fetch for just the calls that should fail.
 */
import nock from 'nock';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { AGENT, CHANNEL, inputs, startHarness, type Harness } from './harness.js';

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
  nock.enableNetConnect(/127\.0\.0\.1/);
});
afterEach(async () => {
  nock.cleanAll();
  nock.restore();
  nock.activate();
  await h.close();
});

it('finishes the activation when the connection drops while posting a step, and tells the agent privately', async () => {
  await h.command('/activate');
  const { id } = await h.openedView();
  // The first threaded reply (and the client's retries of it) never reaches Slack.
  const dropped = nock(new URL(h.fake.apiUrl).origin, { allowUnmocked: true })
    .post('/api/chat.postMessage', (body: Record<string, unknown>) => typeof body.thread_ts === 'string')
    .times(3)
    .replyWithError({ code: 'ECONNRESET', message: 'socket hang up' });

  await h.submit(id, inputs({ device: '10.20.1.88', firstName: 'Jane', lastName: 'Doe' }));
  const told = await h.fake.waitFor('chat.postEphemeral', (call) => call.args.user === AGENT, 15_000);

  expect(dropped.isDone()).toBe(true);
  expect(String(told.args.text)).toContain('Slack did not show every step');
  expect(String(told.args.text)).toContain('Outcome: *activated*');
  // UISP got every write, and the thread still ends with the manual-link reminder.
  expect(h.uisp.writes().some((w) => w.endsWith('/authorize'))).toBe(true);
  expect(h.fake.messages(CHANNEL).some((m) => m.text.includes('One manual step left'))).toBe(true);
}, 20_000);
