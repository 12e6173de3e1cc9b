/** Fault injection, latency, the request log and sequentialRoundTrips. */
import { afterEach, describe, expect, it } from 'vitest';
import { sequentialRoundTrips, startSimulator, type FaultRule, type RecordedRequest, type RunningSimulator } from '../../src/simulator/index.js';
import { call, CRM, crm, NMS, nms } from './helpers.js';

const running: RunningSimulator[] = [];
async function start(...args: Parameters<typeof startSimulator>): Promise<RunningSimulator> {
  const sim = await startSimulator(...args);
  running.push(sim);
  return sim;
}
afterEach(async () => {
  await Promise.all(running.splice(0).map((sim) => sim.close()));
});

describe('faults', () => {
  it('status: answers the status with the system’s error body, for the first `times` matching requests', async () => {
    const sim = await start({ faults: [{ path: `${CRM}/clients`, kind: 'status', status: 503, times: 2 }] });
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push(await crm(sim, 'GET', '/clients'));
    expect(statuses.map((a) => a.status)).toEqual([503, 503, 200]);
    expect(statuses[0]!.body).toEqual({ code: 503, message: expect.any(String) });
    expect(sim.requests.map((r) => r.status)).toEqual([503, 503, 200]);
  });

  it('status with retryAfter: a 429 (or 503) carries Retry-After in seconds, as a rate-limited UISP sends it', async () => {
    const sim = await start({ faults: [{ path: `${CRM}/clients`, kind: 'status', status: 429, retryAfter: 2, times: 1 }] });
    const limited = await fetch(`${sim.url}${CRM}/clients`, { headers: { 'X-Auth-Token': sim.token } });
    expect([limited.status, limited.headers.get('retry-after')]).toEqual([429, '2']);
    const next = await fetch(`${sim.url}${CRM}/clients`, { headers: { 'X-Auth-Token': sim.token } });
    expect([next.status, next.headers.get('retry-after')]).toEqual([200, null]);
    expect(() => sim.setFaults([{ path: '/x', kind: 'hang', retryAfter: 1 }])).toThrow(RangeError);
  });

  it('status defaults to 500; NMS faults use the NMS error shape', async () => {
    const sim = await start({ faults: [{ path: `${NMS}/devices*`, kind: 'status' }] });
    expect(await nms(sim, 'GET', '/devices/discovered')).toEqual({ status: 500, body: { statusCode: 500, error: 'Internal Server Error', message: 'Internal Server Error' } });
    expect((await nms(sim, 'GET', '/sites')).status).toBe(200);
  });

  it('matches by method, exact path, prefix or RegExp', async () => {
    const sim = await start({
      faults: [
        { method: 'post', path: /\/authorize$/, kind: 'status', status: 502 },
        { path: `${CRM}/payments`, kind: 'status', status: 429 },
      ],
    });
    expect((await nms(sim, 'POST', '/devices/x/authorize', { siteId: 'y' })).status).toBe(502);
    expect((await crm(sim, 'GET', '/payments?limit=1')).status).toBe(429);
    expect((await crm(sim, 'GET', '/payment-methods')).status).toBe(200);
  });

  it('setFaults replaces the rules at run time', async () => {
    const sim = await start();
    sim.setFaults([{ path: '*', kind: 'status', status: 500, times: 1 }]);
    expect((await crm(sim, 'GET', '/clients/1001')).status).toBe(500);
    expect((await crm(sim, 'GET', '/clients/1001')).status).toBe(200);
    sim.setFaults([]);
    expect((await crm(sim, 'GET', '/clients/1001')).status).toBe(200);
  });

  it('rate: the same seed fails the same requests on every run; another seed differs', async () => {
    const rule: FaultRule = { path: `${CRM}/*`, kind: 'status', status: 500, rate: 0.5 };
    const pattern = async (seed: number) => {
      const sim = await start({ faults: [rule], seed });
      const statuses: number[] = [];
      for (let i = 0; i < 30; i++) statuses.push((await crm(sim, 'GET', '/service-plans')).status);
      return statuses.join(',');
    };
    const first = await pattern(42);
    expect(first).toContain('500');
    expect(first).toContain('200');
    expect(await pattern(42)).toBe(first);
    expect(await pattern(7)).not.toBe(first);
  });

  it('rejects impossible rules', async () => {
    const sim = await start();
    expect(() => sim.setFaults([{ path: '*', kind: 'status', rate: 2 }])).toThrow(/rate/);
    expect(() => sim.setFaults([{ path: '*', kind: 'status', status: 42 }])).toThrow(/status/);
  });

  it('hang: the request never gets an answer until close() ends it', async () => {
    const sim = await start({ faults: [{ path: `${NMS}/sites`, kind: 'hang' }] });
    const pending = nms(sim, 'GET', '/sites');
    let settled = false;
    void pending.then(
      () => (settled = true),
      () => (settled = true),
    );
    // The request has arrived (a signal, not a quiet period): it is in flight, unanswered.
    await sim.received(1);
    expect(settled).toBe(false);
    expect(sim.requests[0]).toMatchObject({ path: `${NMS}/sites`, status: 0, endedAt: Number.NaN });
    await sim.close();
    await expect(pending).rejects.toThrow();
    expect(sim.requests[0]!.status).toBe(0);
    expect(Number.isFinite(sim.requests[0]!.endedAt)).toBe(true);
  });

  it('reset: the connection is destroyed without an answer', async () => {
    const sim = await start({ faults: [{ method: 'POST', path: `${CRM}/payments`, kind: 'reset', times: 1 }] });
    await expect(crm(sim, 'POST', '/payments', { clientId: 1001, amount: 1 })).rejects.toThrow();
    expect(sim.requests[0]).toMatchObject({ method: 'POST', status: 0, body: { clientId: 1001, amount: 1 } });
    expect((await crm(sim, 'POST', '/payments', { clientId: 1001, amount: 1 })).status).toBe(201);
  });
});

describe('faults after the write is applied, trickles and late completion', () => {
  const adas = (sim: RunningSimulator) => sim.data.clients.filter((c) => c.firstName === 'Ada');
  const ada = { clientType: 1, isLead: false, firstName: 'Ada', lastName: 'Lovelace' };

  it('status after: the client is created, but the answer is a 503', async () => {
    const sim = await start({ faults: [{ method: 'POST', path: `${CRM}/clients`, kind: 'status', status: 503, phase: 'after', times: 1 }] });
    expect((await crm(sim, 'POST', '/clients', ada)).status).toBe(503);
    expect(adas(sim)).toHaveLength(1);
  });

  it('status before (the default) changes nothing', async () => {
    const sim = await start({ faults: [{ method: 'POST', path: `${CRM}/clients`, kind: 'status', status: 503, times: 1 }] });
    expect((await crm(sim, 'POST', '/clients', ada)).status).toBe(503);
    expect(adas(sim)).toHaveLength(0);
  });

  it('reset after: the payment is recorded, and the connection dropped without an answer', async () => {
    const sim = await start({ faults: [{ method: 'POST', path: `${CRM}/payments`, kind: 'reset', phase: 'after' }] });
    const before = sim.data.payments.length;
    await expect(crm(sim, 'POST', '/payments', { clientId: 1001, amount: 1 })).rejects.toThrow();
    expect(sim.data.payments).toHaveLength(before + 1);
    expect(sim.requests[0]!.status).toBe(0);
  });

  it('hang after: the site exists while its creation is still unanswered', async () => {
    const sim = await start({ faults: [{ method: 'POST', path: `${NMS}/sites`, kind: 'hang', phase: 'after' }] });
    const pending = nms(sim, 'POST', '/sites', { name: 'Ada Lovelace', type: 'endpoint' });
    void pending.catch(() => {});
    await sim.received(1);
    await sim.settled();
    expect(sim.data.sites.some((site) => site.identification.name === 'Ada Lovelace')).toBe(true);
    expect(sim.requests[0]!.status).toBe(0);
  });

  it('trickle: the real answer arrives a byte at a time, complete', async () => {
    const sim = await start({ faults: [{ method: 'GET', path: `${CRM}/clients/1001`, kind: 'trickle', intervalMs: 0 }] });
    const answer = await crm(sim, 'GET', '/clients/1001');
    expect(answer).toMatchObject({ status: 200, body: { id: 1001, firstName: 'Marcus' } });
  });

  it('late: the write lands after the client has given up; settled() says when', async () => {
    const sim = await start({ faults: [{ method: 'POST', path: `${CRM}/clients`, kind: 'late', delayMs: 200 }] });
    const giveUp = new AbortController();
    const sent = fetch(`${sim.url}${CRM}/clients`, {
      method: 'POST',
      headers: { 'X-Auth-Token': sim.token, 'content-type': 'application/json' },
      body: JSON.stringify(ada),
      signal: giveUp.signal,
    });
    await sim.received(1);
    giveUp.abort();
    await expect(sent).rejects.toThrow();
    expect(adas(sim)).toHaveLength(0);
    await sim.settled();
    expect(adas(sim)).toHaveLength(1);
  });

  it('phase applies to status, hang and reset only; intervals and delays are ms ≥ 0', async () => {
    const sim = await start();
    expect(() => sim.setFaults([{ path: '*', kind: 'trickle', phase: 'before' }])).toThrow(/phase/);
    expect(() => sim.setFaults([{ path: '*', kind: 'late', delayMs: -1 }])).toThrow(/delayMs/);
  });
});

describe('deleting what SubOps created twice', () => {
  it('DELETE /clients/{id} removes the client with its services', async () => {
    const sim = await start();
    expect((await crm(sim, 'DELETE', '/clients/1002')).status).toBe(200);
    expect((await crm(sim, 'GET', '/clients/1002')).status).toBe(404);
    expect(sim.data.services.some((s) => s.clientId === 1002)).toBe(false);
    expect((await crm(sim, 'DELETE', '/clients/1002')).status).toBe(404);
  });

  it('ids of deleted records are never handed out again, as with the CRM’s auto-increment', async () => {
    const sim = await start();
    const first = await crm(sim, 'POST', '/clients', { clientType: 1, isLead: false, firstName: 'Ada', lastName: 'Lovelace' });
    await crm(sim, 'DELETE', `/clients/${first.body.id}`);
    const second = await crm(sim, 'POST', '/clients', { clientType: 1, isLead: false, firstName: 'Ada', lastName: 'Lovelace' });
    expect(second.body.id).toBe(first.body.id + 1);
  });

  it('DELETE /sites/{id} removes an empty site and refuses one with devices on it', async () => {
    const sim = await start();
    const created = await nms(sim, 'POST', '/sites', { name: 'Spare', type: 'endpoint' });
    expect(await nms(sim, 'DELETE', `/sites/${created.body.id}`)).toMatchObject({ status: 200, body: { result: true } });
    expect((await nms(sim, 'GET', `/sites/${created.body.id}`)).status).toBe(404);
    // Marcus Baptiste's endpoint site holds cpe-baptiste.
    expect(await nms(sim, 'DELETE', '/sites/1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c56')).toMatchObject({ status: 400, body: { message: 'Site is not empty.' } });
  });
});

describe('latency and the request log', () => {
  it('delays every response by latencyMs; setLatency changes it', async () => {
    const sim = await start({ latencyMs: 80 });
    let t0 = performance.now();
    await crm(sim, 'GET', '/service-plans');
    expect(performance.now() - t0).toBeGreaterThanOrEqual(75);
    await call(sim, 'GET', `${NMS}/devices`, undefined, {}); // a 401 waits too
    expect(performance.now() - t0).toBeGreaterThanOrEqual(155);
    sim.setLatency(0);
    t0 = performance.now();
    await crm(sim, 'GET', '/service-plans');
    expect(performance.now() - t0).toBeLessThan(60);
    expect(() => sim.setLatency(-1)).toThrow(RangeError);
  });

  it('records every request in arrival order with method, path, query, body, status and timing', async () => {
    const sim = await start();
    await crm(sim, 'GET', '/payments?limit=2&clientId=1001');
    await call(sim, 'GET', `${CRM}/clients`, undefined, {});
    await nms(sim, 'POST', '/sites', { name: 'Test' });
    expect(sim.requests.map(({ method, path, query, body, status }) => ({ method, path, query, body, status }))).toEqual([
      { method: 'GET', path: `${CRM}/payments`, query: { limit: '2', clientId: '1001' }, body: undefined, status: 200 },
      { method: 'GET', path: `${CRM}/clients`, query: {}, body: undefined, status: 401 },
      { method: 'POST', path: `${NMS}/sites`, query: {}, body: { name: 'Test' }, status: 200 },
    ]);
    for (const r of sim.requests) expect(r.endedAt).toBeGreaterThanOrEqual(r.startedAt);
    expect(sim.requests[1]!.startedAt).toBeGreaterThanOrEqual(sim.requests[0]!.endedAt);
  });
});

describe('sequentialRoundTrips', () => {
  const at = (startedAt: number, endedAt: number): RecordedRequest => ({ method: 'GET', path: '/', query: {}, body: undefined, status: 200, startedAt, endedAt });

  it.each([
    ['no requests', 0, []],
    ['one', 1, [at(0, 10)]],
    ['three overlapping', 1, [at(0, 10), at(1, 9), at(2, 12)]],
    ['back to back', 3, [at(0, 10), at(10, 20), at(20, 30)]],
    ['two concurrent steps', 2, [at(0, 10), at(1, 11), at(12, 20), at(12, 22), at(13, 19)]],
    ['a long request beside a chain', 3, [at(0, 100), at(1, 10), at(11, 20), at(21, 30)]],
    ['unfinished ones ignored', 1, [at(0, 10), at(11, Number.NaN)]],
  ])('%s → %i', (_case, expected, requests) => {
    expect(sequentialRoundTrips(requests)).toBe(expected);
  });

  it('counts concurrent fetches once and sequential ones each', async () => {
    const sim = await start({ latencyMs: 30 });
    await Promise.all([crm(sim, 'GET', '/clients'), crm(sim, 'GET', '/service-plans'), nms(sim, 'GET', '/devices'), nms(sim, 'GET', '/devices/discovered')]);
    expect(sequentialRoundTrips(sim.requests)).toBe(1);

    sim.requests.length = 0;
    for (const path of ['/clients', '/service-plans', '/payment-methods']) await crm(sim, 'GET', path);
    expect(sequentialRoundTrips(sim.requests)).toBe(3);

    sim.requests.length = 0;
    await Promise.all([crm(sim, 'GET', '/clients'), nms(sim, 'GET', '/sites')]);
    await Promise.all([crm(sim, 'GET', '/clients/1001/services'), nms(sim, 'GET', '/devices')]);
    expect(sequentialRoundTrips(sim.requests)).toBe(2);
  });
});

describe('gates: a held request refused, dropped and applied late; chosen site ids', () => {
  let sim: RunningSimulator;
  const newClient = { clientType: 1, isLead: false, firstName: 'Gated', lastName: 'Person' };
  const named = () => sim.data.clients.filter((c) => c.lastName === 'Person').length;

  it('released as unavailable: a 503 in the CRM’s shape, and nothing applied', async () => {
    sim = await start();
    const gate = sim.gate({ method: 'POST', path: `${CRM}/clients` });
    const answer = crm(sim, 'POST', '/clients', newClient);
    await gate.arrived(1);
    await gate.release(0, 'unavailable');
    expect((await answer).status).toBe(503);
    expect(named()).toBe(0);
  });

  it('dropped: the client sees its connection reset and nothing applied, until a release applies it late', async () => {
    sim = await start();
    const gate = sim.gate({ method: 'POST', path: `${CRM}/clients` });
    const answer = crm(sim, 'POST', '/clients', newClient).then(
      () => 'answered',
      () => 'reset',
    );
    await gate.arrived(1);
    await gate.drop(0);
    expect(await answer).toBe('reset');
    expect(named()).toBe(0);
    await gate.release(0);
    expect(named()).toBe(1);
  });

  it('nextSiteIds: the next sites created get those ids, in the order they are applied, and answer with them', async () => {
    sim = await start();
    sim.nextSiteIds('00000000-0000-4000-8000-000000000001');
    const made = await nms(sim, 'POST', '/sites', { name: 'Chosen', type: 'endpoint' });
    const random = await nms(sim, 'POST', '/sites', { name: 'Random', type: 'endpoint' });
    expect(made.body.id).toBe('00000000-0000-4000-8000-000000000001');
    expect(sim.data.sites.filter((s) => s.id === made.body.id)).toHaveLength(1);
    expect(random.body.id).not.toBe(made.body.id);
    expect(sim.data.sites.some((s) => s.id === random.body.id)).toBe(true);
  });
});
