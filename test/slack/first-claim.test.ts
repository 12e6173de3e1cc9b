import { webApi } from '@slack/bolt';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PLAYGROUND_WORKSPACE } from '../../src/playground/fake-slack-api.js';
import { startFakeSlack, type FakeSlack } from '../../src/playground/fake-slack.js';
import { claimFirst, compareTs } from '../../src/slack/first-claim.js';
import { startForgingSlack, type ForgingSlack } from './forger.js';

const CHANNEL = 'C0APPROVALS';
const identity = { botUserId: PLAYGROUND_WORKSPACE.botUserId, botId: PLAYGROUND_WORKSPACE.botId, appId: PLAYGROUND_WORKSPACE.appId };
const logger = pino({ level: 'silent' });

let fake: FakeSlack;
let forging: ForgingSlack;
let replicaA: webApi.WebClient;
let replicaB: webApi.WebClient;

beforeEach(async () => {
  fake = await startFakeSlack();
  forging = await startForgingSlack();
  forging.forwardTo(fake);
  // Two processes: two clients, one Slack (through the forger, so another app's message can be planted).
  replicaA = new webApi.WebClient('xoxb-a', { slackApiUrl: forging.apiUrl, retryConfig: { retries: 0 } });
  replicaB = new webApi.WebClient('xoxb-b', { slackApiUrl: forging.apiUrl, retryConfig: { retries: 0 } });
});

afterEach(async () => {
  await forging.close();
  await fake.close();
});

const claim = (client: webApi.WebClient, threadTs: string, who: string) =>
  claimFirst({ client, identity, logger }, { channel: CHANNEL, threadTs }, 'subops_test_claim', `request-${threadTs}`, { text: `claimed by ${who}`, payload: { by: who } });

const claimsIn = (threadTs: string) => fake.messages(CHANNEL).filter((m) => m.thread_ts === threadTs && m.ts !== threadTs);

describe('claimFirst: the earliest SubOps claim in the conversation wins', () => {
  it('two processes claiming at the same moment: one wins, the other deletes its claim', async () => {
    const parent = await replicaA.chat.postMessage({ channel: CHANNEL, text: 'request' });
    // Both claims are posted before either process reads the thread back.
    const reads = fake.hold('conversations.replies');
    const first = claim(replicaA, parent.ts!, 'A');
    const second = claim(replicaB, parent.ts!, 'B');
    await reads.arrived(2);
    reads.release();
    const outcomes = await Promise.all([first, second]);

    expect(outcomes.filter((o) => o.won)).toHaveLength(1);
    const winner = outcomes.find((o) => o.won)!;
    const loser = outcomes.find((o) => !o.won)!;
    expect(loser.won || loser.winner.ts).toBe(winner.won && winner.ts);
    // The thread shows one claim: the winner's.
    expect(claimsIn(parent.ts!).map((m) => m.ts)).toEqual([winner.won && winner.ts]);
  });

  it('a claim made after another one is settled loses to it', async () => {
    const parent = await replicaA.chat.postMessage({ channel: CHANNEL, text: 'request' });
    const first = await claim(replicaA, parent.ts!, 'A');
    const second = await claim(replicaB, parent.ts!, 'B');
    expect(first.won).toBe(true);
    expect(second).toMatchObject({ won: false, winner: { payload: { by: 'A' } } });
    expect(claimsIn(parent.ts!)).toHaveLength(1);
  });

  it("another app's message with the same claim metadata changes nothing", async () => {
    const parent = await replicaA.chat.postMessage({ channel: CHANNEL, text: 'request' });
    await forging.post('another app', CHANNEL, {
      thread_ts: parent.ts,
      text: 'claimed',
      metadata: { event_type: 'subops_test_claim', event_payload: { claim: `request-${parent.ts}`, by: 'forger' } },
    });
    expect(await claim(replicaA, parent.ts!, 'A')).toMatchObject({ won: true });
  });

  it('orders Slack timestamps exactly', () => {
    expect(compareTs('1700000000.000100', '1700000000.000099')).toBeGreaterThan(0);
    expect(compareTs('1699999999.999999', '1700000000.000000')).toBeLessThan(0);
    expect(compareTs('1700000000.5', '1700000000.500000')).toBe(0);
  });
});
