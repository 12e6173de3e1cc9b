/**
 * Access control, request authenticity, ack timing and secrecy, through the real HTTP receiver.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { SLASH_COMMANDS } from '../../src/commands/index.js';
import { signSlackRequest } from '../../src/playground/slack-sender.js';
import { AGENT, BOT_TOKEN, CHANNEL, inputs, shown, SIGNING_SECRET, startHarness, type Harness } from './harness.js';

let h: Harness;
afterEach(async () => {
  await h?.close();
});

const OPEN_WARNING = 'ALLOWED_EVERYONE=true: every member of the workspace may use SubOps';

describe('access', () => {
  it('refuses a user who is not allowed, ephemerally, and runs nothing', async () => {
    h = await startHarness({ env: { ALLOWED_USER_IDS: `${AGENT}, U0LEAD` } });
    expect(h.logs.some((l) => String(l.msg).includes(OPEN_WARNING))).toBe(false);

    const refused = await h.command('/activate', '10.20.1.88 jane doe', 'U0INTRUDER');
    expect(refused.status).toBe(200);
    expect(refused.body.response_type).toBe('ephemeral');
    expect(refused.body.text).toContain('You are not allowed to run SubOps commands');

    // A modal the agent opened, submitted by someone else, is refused too.
    await h.command('/activate');
    const { id } = await h.openedView();
    const submitted = await h.submit(id, inputs({ device: '10.20.1.88', firstName: 'Jane', lastName: 'Doe' }), 'U0INTRUDER');
    expect(submitted.body.response_action).toBe('update');
    expect(JSON.stringify(submitted.body.view)).toContain('You are not allowed');

    const clicked = await h.sender.blockAction({ userId: 'U0INTRUDER', actionId: 'activation_retry', channelId: CHANNEL, messageTs: '1700000000.000100', value: '{}' });
    expect(clicked.status).toBe(200);
    await h.settled();
    expect(h.fake.responses.map((r) => String(r.body.text))).toEqual([expect.stringContaining('You are not allowed')]);

    expect(h.fake.callsTo('views.open')).toHaveLength(1);
    expect(h.uisp.sim.requests).toEqual([]);
    expect(h.fake.callsTo('chat.postMessage')).toEqual([]);
  });

  it('allows members of ALLOWED_USERGROUP_ID, reading the group once for a burst of commands', async () => {
    h = await startHarness({ env: { ALLOWED_USERGROUP_ID: 'S0OPS' }, fakeSlack: { usergroups: { S0OPS: ['U0GROUPIE'] } } });
    const member = await h.command('/subops', 'help', 'U0GROUPIE');
    expect(member.body.text).toBe('SubOps commands');
    const again = await h.command('/subops', '', 'U0GROUPIE');
    expect(again.body.text).toBe('SubOps commands');
    const outsider = await h.command('/subops', 'help', 'U0OTHER');
    expect(outsider.body.text).toContain('You are not allowed');
    expect(h.fake.callsTo('usergroups.users.list')).toHaveLength(1);
  });

  it('lets everyone act when ALLOWED_EVERYONE=true opens it (no list set), and warns about it at startup', async () => {
    h = await startHarness({ env: { ALLOWED_EVERYONE: 'true' } });
    expect(h.logs.filter((l) => String(l.msg).includes(OPEN_WARNING))).toEqual([expect.objectContaining({ level: 40 })]);
    expect((await h.command('/subops', '', 'U0ANYONE')).body.text).toBe('SubOps commands');
  });
});

describe('help', () => {
  it('/subops help and /activate help explain every command', async () => {
    h = await startHarness();
    for (const [command, text] of [
      ['/subops', 'help'],
      ['/activate', 'help'],
    ] as const) {
      const reply = await h.command(command, text);
      expect(reply.body.response_type).toBe('ephemeral');
      for (const c of SLASH_COMMANDS) expect(shown(reply.body)).toContain(c.name);
    }
    expect(h.fake.callsTo('views.open')).toEqual([]);
  });
});

describe('request authenticity', () => {
  const body = new URLSearchParams({ command: '/activate', text: '10.20.1.88 jane doe', user_id: AGENT, channel_id: CHANNEL, trigger_id: 't', team_id: 'T0001', response_url: 'http://127.0.0.1:9/x' }).toString();
  const form = 'application/x-www-form-urlencoded';
  // The start-up check reads auth.test and the audit channel; anything else would be the request's doing.
  const sideEffects = () => h.fake.calls.filter((c) => !['auth.test', 'conversations.info'].includes(c.method));

  it('rejects a bad signature', async () => {
    h = await startHarness();
    const reply = await h.sender.send(body, form, { signature: signSlackRequest('not-the-secret', Math.floor(Date.now() / 1000), body) });
    expect(reply.status).toBe(401);
    expect(sideEffects()).toEqual([]);
    expect(h.uisp.sim.requests).toEqual([]);
  });

  it('rejects a correctly signed request with a stale timestamp (replay)', async () => {
    h = await startHarness();
    const stale = Math.floor(Date.now() / 1000) - 10 * 60;
    const reply = await h.sender.send(body, form, { timestamp: stale, signature: signSlackRequest(SIGNING_SECRET, stale, body) });
    expect(reply.status).toBe(401);
    expect(sideEffects()).toEqual([]);
    expect(h.uisp.sim.requests).toEqual([]);
  });
});

describe('acknowledgement', () => {
  it('acks before UISP has answered anything, and does the work after', async () => {
    // Ordering, not a stopwatch: UISP requests are parked until the ack is in. An ack that waited for
    // UISP would never come (Bolt would answer 404 after 3 s), and nothing would be parked yet.
    h = await startHarness({ gateUisp: true });
    const gate = h.gate!;
    expect((await h.command('/payments')).status).toBe(200);
    await gate.somethingHeld();
    expect(h.uisp.sim.requests).toEqual([]);
    expect(h.fake.responses).toEqual([]);
    gate.release();
    await h.settled();
    expect(h.fake.responses).toHaveLength(1);

    gate.shut();
    await h.command('/activate');
    const { id } = await h.openedView();
    const before = h.uisp.sim.requests.length;
    const reply = await h.submit(id, inputs({ device: '10.20.1.51', firstName: 'Priya', lastName: 'Ramnarine' }));
    expect(reply.body.response_action).toBe('update');
    await gate.somethingHeld();
    expect(h.uisp.sim.requests).toHaveLength(before);
    gate.release();
    await h.viewBecomes(id, 'activate_confirm');
  });
});

describe('secrets', () => {
  it('never appear in the logs or in anything sent to Slack', async () => {
    h = await startHarness();
    await h.command('/activate');
    const { id } = await h.openedView();
    await h.submit(id, inputs({ device: '10.20.1.88', firstName: 'Jane', lastName: 'Doe' }));
    await h.fake.waitFor('chat.postMessage', (call) => String(call.args.text).includes('One manual step left'));
    const sentToSlack = JSON.stringify(h.fake.calls.map((c) => c.args));
    for (const secret of [BOT_TOKEN, SIGNING_SECRET, h.uisp.sim.token]) {
      expect(h.rawLog()).not.toContain(secret);
      expect(sentToSlack).not.toContain(secret);
    }
  });

  it('a request no route serves (a GET, a mistyped path) is logged by its path, never its query string (WEBHOOK_TOKEN)', async () => {
    const token = 'hook-SECRET-in-the-query-string';
    h = await startHarness({ events: {}, env: { WEBHOOK_TOKEN: token } });
    const get = await fetch(`${h.origin}/uisp/webhook?token=${token}`);
    const mistyped = await fetch(`${h.origin}/uisp/webhooks?token=${token}&response_url=https%3A%2F%2Fhooks.slack.com%2Fsecret`, { method: 'POST', body: '{}' });
    expect([get.status, mistyped.status]).toEqual([404, 404]);
    await h.settled();
    expect(h.rawLog()).not.toContain(token);
    expect(h.rawLog()).not.toContain('hooks.slack.com');
    const unmatched = h.logs.filter((l) => String(l.msg).includes('no route'));
    expect(unmatched).toEqual([expect.objectContaining({ method: 'GET', path: '/uisp/webhook' }), expect.objectContaining({ method: 'POST', path: '/uisp/webhooks' })]);
  });
});
