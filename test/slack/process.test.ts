/**
 * The bot process under stress, through its real HTTP receiver: malformed signed requests, a drain for
 * SIGTERM while an activation runs, and GET /healthz.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { signSlackRequest } from '../../src/playground/slack-sender.js';
import { AGENT, AUDIT_CHANNEL, CHANNEL, inputs, shown, SIGNING_SECRET, startHarness, type Harness } from './harness.js';

let h: Harness;
afterEach(async () => {
  await h?.close();
});

const FORM = 'application/x-www-form-urlencoded';
const JSON_TYPE = 'application/json';
const payload = (value: string) => new URLSearchParams({ payload: value }).toString();
const user = { id: AGENT, team_id: 'T0001' };

describe('malformed signed requests', () => {
  const cases: [string, string, string][] = [
    ['payload=null', payload('null'), FORM],
    ['a payload that is not JSON', payload('{"type":'), FORM],
    ['a payload that is a string', payload('"view_submission"'), FORM],
    ['a payload that is an array', payload('[]'), FORM],
    ['a JSON body of null', 'null', JSON_TYPE],
    ['a block_actions without a user', payload(JSON.stringify({ type: 'block_actions', actions: [{ action_id: 'activation_retry' }], team: { id: 'T0001' } })), FORM],
    ['a view_submission without a user', payload(JSON.stringify({ type: 'view_submission', view: { id: 'V1', callback_id: 'payment_form' } })), FORM],
    ['a block_actions with user: null', payload(JSON.stringify({ type: 'block_actions', user: null, actions: [{ action_id: 'x' }] })), FORM],
    ['an unknown type', payload(JSON.stringify({ type: 'something_new', user })), FORM],
    ['no type at all', payload(JSON.stringify({ user })), FORM],
    ['a slash command without a user', new URLSearchParams({ command: '/activate', channel_id: CHANNEL, trigger_id: 't' }).toString(), FORM],
  ];

  it('each get a 400 at once, run nothing, and the process keeps serving', async () => {
    h = await startHarness();
    for (const [name, body, contentType] of cases) {
      const reply = await h.sender.send(body, contentType);
      expect(reply.status, name).toBe(400);
    }
    // Only the start-up check's calls: no request reached a listener.
    expect(h.fake.calls.map((c) => c.method)).toEqual(['auth.test', 'conversations.info']);
    expect(h.uisp.sim.requests).toEqual([]);
    expect(h.logs.filter((l) => l.msg === 'refused a signed request that is not a Slack payload (HTTP 400)')).toHaveLength(cases.length);
    expect(h.logs.find((l) => String(l.problem).includes('null'))).toBeDefined();
    // Still serving.
    expect((await h.command('/subops', 'help')).body.text).toBe('SubOps commands');
  });

  it('unsigned, they are still refused as unauthenticated (401), whatever they contain', async () => {
    h = await startHarness();
    const body = payload('null');
    const now = Math.floor(Date.now() / 1000);
    const reply = await h.sender.send(body, FORM, { signature: signSlackRequest('not-the-secret', now, body) });
    expect(reply.status).toBe(401);
    expect(signSlackRequest(SIGNING_SECRET, now, body)).not.toBe(signSlackRequest('not-the-secret', now, body));
  });
});

describe('shutting down (SIGTERM)', () => {
  it('turns new work away politely, lets the running activation finish and post its last update, then reports drained', async () => {
    h = await startHarness({ gateUisp: true });
    const gate = h.gate!;
    await h.command('/activate');
    const { id } = await h.openedView();
    await h.submit(id, inputs({ device: '10.20.1.88', firstName: 'Jane', lastName: 'Doe' }));
    await gate.somethingHeld();

    const drained = h.work.drain(60_000);
    const command = await h.command('/activate', '10.20.1.21');
    expect(command.body.response_type).toBe('ephemeral');
    expect(command.body.text).toContain('SubOps is restarting; try again in a minute');
    await h.command('/payments', 'add');
    expect(h.fake.callsTo('views.open')).toHaveLength(1);

    gate.release();
    expect(await drained).toBe(true);
    const parent = h.fake.messages(CHANNEL).find((m) => !m.thread_ts)!;
    expect(shown(parent)).toContain('*Activated*');
    expect(h.fake.messages(CHANNEL).some((m) => m.text.includes('One manual step left'))).toBe(true);
    expect(h.fake.messages(AUDIT_CHANNEL)).toHaveLength(1);
  });

  it('keeps a submitted form when it refuses it: the notice is pushed on top', async () => {
    h = await startHarness();
    await h.command('/activate');
    const { id } = await h.openedView();
    expect(await h.work.drain(60_000)).toBe(true);
    const reply = await h.submit(id, inputs({ device: '10.20.1.88', firstName: 'Jane', lastName: 'Doe' }));
    expect(reply.body.response_action).toBe('push');
    expect(JSON.stringify(reply.body.view)).toContain('restarting');
    expect(h.uisp.sim.requests).toEqual([]);
  });

  it('reports false when the grace period ends with work still running', async () => {
    h = await startHarness({ gateUisp: true });
    await h.command('/payments');
    await h.gate!.somethingHeld();
    expect(await h.work.drain(1)).toBe(false);
    expect(h.work.inFlight).toBe(1);
  });
});

describe('GET /healthz', () => {
  async function healthz(): Promise<{ status: number; body: Record<string, any> }> {
    const response = await fetch(`${h.opsOrigin}/healthz`);
    return { status: response.status, body: (await response.json()) as Record<string, any> };
  }

  it('says UISP and Slack are reachable', async () => {
    h = await startHarness();
    const { status, body } = await healthz();
    expect(status).toBe(200);
    expect(body).toMatchObject({ status: 'ok', uisp: { ok: true }, slack: { ok: true }, inFlight: 0 });
    expect(h.uisp.sim.requests.map((r) => `${r.method} ${r.path}`).sort()).toEqual(['GET /crm/api/v1.0/service-suspension-reasons', 'GET /nms/api/v2.1/devices/discovered']);
  });

  it('says which one is not, with 503', async () => {
    h = await startHarness();
    h.uisp.sim.setFaults([{ path: '/crm/*', kind: 'status', status: 503 }]);
    h.fake.failNext('auth.test', { error: 'invalid_auth' });
    const { status, body } = await healthz();
    expect(status).toBe(503);
    expect(body.status).toBe('degraded');
    expect(body.uisp).toMatchObject({ ok: false, error: expect.stringContaining('HTTP 503') });
    expect(body.slack).toMatchObject({ ok: false, error: 'invalid_auth' });
    expect(JSON.stringify(body)).not.toContain(h.uisp.sim.token);
  });

  it('answers 503 draining while the process shuts down', async () => {
    h = await startHarness();
    await h.work.drain(1_000);
    const { status, body } = await healthz();
    expect(status).toBe(503);
    expect(body.status).toBe('draining');
  });
});
