/**
 * Who may act, which requests count, and a hostile client name: through the bot's real HTTP receiver
 * with the playground's own signing secret.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isRecord } from '../../src/playground/fake-slack-api.js';
import { PLAYGROUND_AGENT, PLAYGROUND_VISITOR, SUPPORT_CHANNEL } from '../../src/playground/playground.js';
import { signSlackRequest } from '../../src/playground/slack-sender.js';
import { linesWith, startE2e, type E2e } from './harness.js';

let e2e: E2e;
beforeEach(async () => {
  e2e = await startE2e();
});
afterEach(async () => {
  await e2e.close();
});

/** Slack calls besides the start-up check's (auth.test, and conversations.info on the audit channel). */
const slackEffects = () => e2e.playground.fake.calls.filter((call) => !['auth.test', 'conversations.info'].includes(call.method));

describe('access', () => {
  it('refuses a user who is not allowed, privately, before anything reaches UISP or opens', async () => {
    const { result, transcript } = await e2e.chat(['/payments', '/activate 10.20.1.88 ada lovelace', '/suspend 101'], PLAYGROUND_VISITOR);
    expect(result).toEqual({ ok: true });
    expect(linesWith(transcript, '#support @visitor> ')).toHaveLength(3);
    expect(linesWith(transcript, '(only you) SubOps: ⛔ You are not allowed to run SubOps commands.')).toHaveLength(3);
    expect(e2e.playground.simulator.requests).toEqual([]);
    expect(slackEffects()).toEqual([]);
  });
});

describe('request authenticity', () => {
  const payments = () => new URLSearchParams({ command: '/payments', text: '', user_id: PLAYGROUND_AGENT.id, channel_id: SUPPORT_CHANNEL.id, team_id: 'T0001', trigger_id: 't.1', response_url: e2e.playground.fake.responseUrl() }).toString();
  const form = 'application/x-www-form-urlencoded';
  const now = () => Math.floor(Date.now() / 1000);

  it('answers 401 to a request signed with another secret, and does nothing', async () => {
    const command = payments();
    const reply = await e2e.playground.sender.send(command, form, { signature: signSlackRequest('not-the-signing-secret', now(), command) });
    expect(reply.status).toBe(401);
    expect(e2e.playground.simulator.requests).toEqual([]);
    expect(slackEffects()).toEqual([]);
    expect(e2e.playground.fake.responses).toEqual([]);
  });

  it('answers 401 to a correctly signed request from ten minutes ago (a replay), and does nothing', async () => {
    const reply = await e2e.playground.sender.send(payments(), form, { timestamp: now() - 10 * 60 });
    expect(reply.status).toBe(401);
    expect(e2e.playground.simulator.requests).toEqual([]);
    expect(slackEffects()).toEqual([]);
    expect(e2e.playground.fake.responses).toEqual([]);
  });

  it('the same request, signed now, is answered', async () => {
    expect((await e2e.playground.sender.send(payments(), form)).status).toBe(200);
    await e2e.playground.settled();
    expect(e2e.playground.fake.responses).toHaveLength(1);
  });
});

/** Every mrkdwn string in a Slack payload: mrkdwn text objects, and a message's top-level text. */
function mrkdwnTexts(payload: Record<string, unknown>): string[] {
  const found: string[] = typeof payload.text === 'string' ? [payload.text] : [];
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(walk);
    else if (isRecord(value)) {
      if (value.type === 'mrkdwn' && typeof value.text === 'string') found.push(value.text);
      Object.values(value).forEach(walk);
    }
  };
  walk(payload.blocks);
  walk(payload.view);
  return found;
}

describe('a client named <!channel>', () => {
  it('is shown as text everywhere SubOps names it, and pings nobody', async () => {
    const marcus = e2e.playground.simulator.data.clients.find((c) => c.id === 1001)!;
    marcus.firstName = '<!channel>';
    e2e.playground.simulator.data.sites.find((site) => site.ucrm?.client?.id === '1001')!.ucrm!.client!.name = '<!channel> Baptiste';
    const { result, transcript } = await e2e.chat([
      // Marcus's radio taken for a new customer: the move confirmation, the thread and the audit name its client.
      '/activate 10.20.1.21 Jane Doe', '', '', '', '', '', '', 'y',
      '/payments 1001',
      '/payments add 1001 10',
      '', '', '', '',
      '/suspend 101', '', '', '1', 'y',
    ]);
    expect(result).toEqual({ ok: true });

    const payloads = [...slackEffects().map((call) => call.args), ...e2e.playground.fake.responses.map((response) => response.body)];
    const naming = payloads.filter((payload) => JSON.stringify(payload).includes('!channel'));
    // The activation thread and update, the listing, the payment view and message, the confirmation, the suspension thread.
    expect(naming.length).toBeGreaterThanOrEqual(8);
    for (const payload of naming) {
      const texts = mrkdwnTexts(payload).filter((text) => text.includes('!channel'));
      for (const text of texts) {
        expect(text).toContain('&lt;!channel&gt;');
        expect(text).not.toContain('<!channel>');
      }
    }

    expect(transcript).toContain('It is authorized on site Marcus Baptiste of client #1001 <!channel> Baptiste.');
    expect(transcript).toContain('device moved from "Marcus Baptiste" (client #1001 <!channel> Baptiste)');
    expect(transcript).toContain('(only you) SubOps: Payments of client #1001 <!channel> Baptiste');
    expect(transcript).toContain('recorded payment #');
    expect(transcript).toContain('for client #1001 <!channel> Baptiste.');
    expect(transcript).toContain('│ Client: #1001 <!channel> Baptiste');
    expect(transcript).toContain('Suspension of service #101 Standard Monthly of client #1001 <!channel> Baptiste');
    expect(transcript).not.toContain('@channel');
  });
});
