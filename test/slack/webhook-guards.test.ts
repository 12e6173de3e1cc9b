/**
 * The UISP webhook endpoint against abuse, end to end (the simulator as UISP, the fake Slack): off
 * without WEBHOOK_TOKEN; the token in a header; an old payment.add replayed after its client was
 * suspended, and a suspension lifted before its event arrived, logged and ignored — never posted with
 * an action button; a flood of unknown uuids from another address limited to its rate while UISP's own
 * events are taken and reported.
 */
import { randomUUID } from 'node:crypto';
import { request, type IncomingHttpHeaders } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { AUDIT_CHANNEL, shown, startHarness, WEBHOOK_TOKEN, type Harness, type HarnessOptions, changeInUisp } from './harness.js';

let h: Harness;
afterEach(async () => {
  await h?.close();
});

const start = async (options: HarnessOptions = {}) => {
  h = await startHarness({ events: {}, ...options });
};

const DAY = 24 * 3_600_000;

/** A change made in UISP outside SubOps, and everything it sets off, finished. */
const inUisp = (method: string, path: string, body?: unknown) => changeInUisp(h, method, path, body);

const auditLines = () => h.fake.messages(AUDIT_CHANNEL).map((m) => m.text);
const confirmations = () => h.uisp.sim.requests.filter((r) => r.path.startsWith('/crm/api/v1.0/webhook-events/'));
const logged = (message: string) => h.logs.filter((line) => String(line.msg).includes(message));

/** POSTs a webhook body from `from` (another loopback address is another source). */
function deliver(body: unknown, { from = '127.0.0.1', query = `?token=${WEBHOOK_TOKEN}`, headers = {} }: { from?: string; query?: string; headers?: Record<string, string> } = {}): Promise<{ status: number; headers: IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const req = request(`${h.origin}/uisp/webhook${query}`, { method: 'POST', localAddress: from, headers: { 'content-type': 'application/json', ...headers } }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers }));
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

describe('WEBHOOK_TOKEN', () => {
  it('without it the endpoint is not served (404), nothing is read, and start-up says so in one line', async () => {
    await start({ env: { WEBHOOK_TOKEN: '' } });
    expect(logged('WEBHOOK_TOKEN is not set')).toEqual([expect.objectContaining({ level: 40, msg: expect.stringContaining('the UISP webhook endpoint (/uisp/webhook) is off') })]);
    await inUisp('PATCH', '/clients/services/101/suspend', { suspensionReasonId: 1 });
    expect(h.uisp.sim.webhookDeliveries.map((d) => d.status)).toEqual([404]);
    expect((await deliver({ uuid: h.uisp.sim.webhookEvents[0]!.uuid }, { query: '?token=anything' })).status).toBe(404);
    await h.settled();
    expect(confirmations()).toEqual([]);
    expect(auditLines()).toEqual([]);
  });

  it('is accepted in the X-Webhook-Token header or as an Authorization bearer; a wrong one gets 401; never logged', async () => {
    await start();
    h.uisp.sim.setWebhookUrl(undefined);
    await inUisp('PATCH', '/clients/services/101/suspend', { suspensionReasonId: 1 });
    await inUisp('PATCH', '/clients/services/105/suspend', { suspensionReasonId: 1 });
    const [first, second] = h.uisp.sim.webhookEvents;
    expect((await deliver({ uuid: first!.uuid }, { query: '', headers: { 'x-webhook-token': 'wrong' } })).status).toBe(401);
    expect((await deliver({ uuid: first!.uuid }, { query: '', headers: { 'x-webhook-token': WEBHOOK_TOKEN } })).status).toBe(200);
    expect((await deliver({ uuid: second!.uuid }, { query: '', headers: { authorization: `Bearer ${WEBHOOK_TOKEN}` } })).status).toBe(200);
    await h.settled();
    // Both notices, each once (the two events are handled at once: either may be posted first).
    expect(auditLines().sort()).toEqual([expect.stringContaining('Service #101'), expect.stringContaining('Service #105')]);
    expect(h.rawLog()).not.toContain(WEBHOOK_TOKEN);
  });
});

describe('events that no longer match what UISP says', () => {
  it('a month-old payment.add replayed after the client was suspended is logged and ignored: no post, no Unsuspend button', async () => {
    let t = Date.now();
    await start({ events: { now: () => t } });
    await inUisp('POST', '/payments', { clientId: 1001, amount: 2500 });
    const payment = h.uisp.sim.webhookEvents[0]!;
    await inUisp('PATCH', '/clients/services/101/suspend', { suspensionReasonId: 1 });
    expect(auditLines()).toEqual([expect.stringMatching(/^:moneybag: A payment of \*GYD 2,500\.00\*/), expect.stringMatching(/^:double_vertical_bar: Service #101 .* was \*suspended\*/)]);

    // A month later (the memory of uuids lasts 24 h), someone replays the payment's uuid.
    t += 30 * DAY;
    expect((await deliver({ uuid: payment.uuid })).status).toBe(200);
    await h.settled();
    expect(confirmations().filter((r) => r.path.endsWith(payment.uuid))).toHaveLength(2);
    expect(auditLines()).toHaveLength(2);
    expect(h.fake.messages(AUDIT_CHANNEL).some((m) => shown(m).includes('uisp_unsuspend'))).toBe(false);
    expect(logged('no longer matches what the CRM says now')).toEqual([
      expect.objectContaining({ uuid: payment.uuid, change: 'payment-added', reason: expect.stringContaining('more than 24 h ago (WEBHOOK_PAYMENT_WINDOW_HOURS)') }),
    ]);
  });

  it('a suspension lifted before its event arrives is ignored; the lift is reported', async () => {
    await start();
    // UISP's webhook queue is late: both changes are made before either event is delivered.
    h.uisp.sim.setWebhookUrl(undefined);
    await inUisp('PATCH', '/clients/services/101/suspend', { suspensionReasonId: 1 });
    await inUisp('PATCH', '/clients/services/101/cancel-suspend');
    const [suspension, lift] = h.uisp.sim.webhookEvents;
    expect([suspension!.eventName, lift!.eventName]).toEqual(['service.suspend', 'service.suspend_cancel']);
    h.uisp.sim.setWebhookUrl(`${h.origin}/uisp/webhook?token=${WEBHOOK_TOKEN}`);
    h.uisp.sim.resendWebhook(suspension!.uuid);
    h.uisp.sim.resendWebhook(lift!.uuid);
    await h.uisp.sim.webhooksSettled();
    await h.settled();
    expect(auditLines()).toEqual([expect.stringMatching(/^:arrow_forward: The suspension of service #101 .* was \*lifted\* in UISP/)]);
    expect(logged('no longer matches what the CRM says now')).toEqual([expect.objectContaining({ uuid: suspension!.uuid, reason: 'service #101 is not suspended now (status 1)' })]);
  });
});

describe('a flood from another address', () => {
  it('is limited to WEBHOOK_RATE_PER_MINUTE (429 + Retry-After) and costs a CRM read only within it; UISP’s own events are taken and reported', async () => {
    await start({ env: { WEBHOOK_RATE_PER_MINUTE: '5' } });
    const flood = await Promise.all(Array.from({ length: 40 }, () => deliver({ uuid: randomUUID() }, { from: '127.0.0.2' })));
    expect(flood.filter((r) => r.status === 200)).toHaveLength(5);
    const limited = flood.filter((r) => r.status === 429);
    expect(limited).toHaveLength(35);
    for (const reply of limited) expect(Number(reply.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    for (const reply of limited) expect(Number(reply.headers['retry-after'])).toBeLessThanOrEqual(12);
    expect(logged('exceed WEBHOOK_RATE_PER_MINUTE')).toEqual([expect.objectContaining({ source: '127.0.0.2' })]);

    // UISP (the simulator, from 127.0.0.1) meanwhile.
    await inUisp('PATCH', '/clients/services/101/suspend', { suspensionReasonId: 1 });
    await inUisp('POST', '/payments', { clientId: 1001, amount: 2500 });
    expect(h.uisp.sim.webhookDeliveries.map((d) => d.status)).toEqual([200, 200]);
    expect(auditLines()).toEqual([expect.stringContaining('Service #101'), expect.stringContaining('A payment of *GYD 2,500.00*')]);
    // 5 unknown uuids and UISP's 2 events: one confirmation each.
    expect(confirmations()).toHaveLength(7);
    expect(logged('knows no webhook event')).toHaveLength(5);
  });
});
