/**
 * GET /healthz under load, on the ops listener: every request is answered from one shared probe result,
 * refreshed at most once per interval (the clock is injected), requests during a probe wait for that
 * one, and a probe that UISP does not answer is cut off at its own timeout with its request aborted.
 * UISP requests are counted at the simulator, Slack's at the fake.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startHarness, type Harness } from './harness.js';

let h: Harness;
afterEach(async () => {
  await h?.close();
});

const PROBE_PATHS = ['/crm/api/v1.0/service-suspension-reasons', '/nms/api/v2.1/devices/discovered'];
const probeRequests = () => h.uisp.sim.requests.filter((r) => PROBE_PATHS.includes(r.path));
/** auth.test calls beyond the one of the start-up check. */
const slackProbes = () => h.fake.callsTo('auth.test').length - 1;

async function burst(size: number): Promise<{ status: number; body: Record<string, any> }[]> {
  return Promise.all(
    Array.from({ length: size }, async () => {
      const response = await fetch(`${h.opsOrigin}/healthz`);
      return { status: response.status, body: (await response.json()) as Record<string, any> };
    }),
  );
}

describe('GET /healthz: one shared probe', () => {
  it('a burst of 200 requests makes one probe (one CRM read, one NMS read, one auth.test); the next only after the interval', async () => {
    let t = 1_000_000;
    h = await startHarness({ health: { now: () => t, cacheMs: 5_000 } });
    const first = await burst(200);
    expect(first.every((answer) => answer.status === 200 && answer.body.status === 'ok')).toBe(true);
    expect(new Set(first.map((answer) => answer.body.checkedAt)).size).toBe(1);
    expect(probeRequests().map((r) => r.path).sort()).toEqual(PROBE_PATHS);
    expect(slackProbes()).toBe(1);

    t += 4_999;
    await burst(200);
    expect(probeRequests()).toHaveLength(2);
    expect(slackProbes()).toBe(1);

    t += 1;
    const later = await burst(200);
    expect(probeRequests()).toHaveLength(4);
    expect(slackProbes()).toBe(2);
    expect(h.health.probes).toBe(2);
    expect(later[0]!.body.checkedAt).not.toBe(first[0]!.body.checkedAt);
  });

  it('reads endpoints that exist: UISP answers every probe read with 200, never a 404', async () => {
    h = await startHarness();
    const [answer] = await burst(1);
    expect(answer).toMatchObject({ status: 200, body: { status: 'ok', uisp: { ok: true } } });
    expect(probeRequests().map((r) => [r.method, r.path, r.status]).sort()).toEqual(PROBE_PATHS.map((path) => ['GET', path, 200]));
    expect(h.uisp.sim.requests.filter((r) => r.status === 404)).toEqual([]);
  });

  it('a 404 from UISP (UISP_URL pointing at something else) is a failed probe: 503', async () => {
    h = await startHarness();
    h.uisp.sim.setFaults([{ path: PROBE_PATHS[1]!, kind: 'status', status: 404 }]);
    const [answer] = await burst(1);
    expect(answer).toMatchObject({ status: 503, body: { status: 'degraded', uisp: { ok: false }, slack: { ok: true } } });
  });

  it('requests that come while a probe runs wait for that probe rather than starting another', async () => {
    h = await startHarness();
    const gate = h.uisp.sim.gate({ path: PROBE_PATHS[1]! });
    const waiting = burst(100);
    await gate.arrived(1);
    const more = burst(100);
    // The probe is held at UISP; nothing else has been asked.
    expect(probeRequests()).toHaveLength(2);
    await gate.release(0);
    const answers = [...(await waiting), ...(await more)];
    expect(answers.every((answer) => answer.status === 200)).toBe(true);
    expect(probeRequests()).toHaveLength(2);
    expect(h.health.probes).toBe(1);
  });

  it('a UISP that does not answer is cut off at the probe’s own timeout: 503, and the request is aborted, not left open', async () => {
    h = await startHarness({ health: { timeoutMs: 200 } });
    h.uisp.sim.setFaults([{ path: '/nms/api/v2.1/devices/*', kind: 'hang' }]);
    const [answer] = await burst(1);
    expect(answer!.status).toBe(503);
    expect(answer!.body).toMatchObject({ status: 'degraded', uisp: { ok: false, error: expect.stringContaining('no complete answer within 200 ms') }, slack: { ok: true } });
    expect(answer!.body.uisp.ms).toBeLessThan(2_000);
    const hung = probeRequests().find((r) => r.path.startsWith('/nms/'))!;
    // The simulator sees the connection closed by SubOps (the hang itself never ends until it closes).
    await vi.waitFor(() => expect(hung.endedAt).not.toBeNaN());
    expect(hung.status).toBe(0);
    // Never retried.
    expect(probeRequests()).toHaveLength(2);
  });
});

describe('GET /livez: liveness, beside /healthz (readiness)', () => {
  it('answers 200 at once while UISP does not answer (where /healthz waits, then says 503), and while draining; asks neither UISP nor Slack', async () => {
    h = await startHarness();
    const gate = h.uisp.sim.gate({ path: PROBE_PATHS[1]! });
    const readiness = burst(1);
    await gate.arrived(1);
    const uispAsked = h.uisp.sim.requests.length;
    const slackAsked = h.fake.calls.length;
    const live = await fetch(`${h.opsOrigin}/livez`);
    expect(live.status).toBe(200);
    expect(await live.json()).toEqual({ status: 'alive' });
    expect(h.uisp.sim.requests.length).toBe(uispAsked);
    expect(h.fake.calls.length).toBe(slackAsked);
    // Draining for a restart: not ready for work, still alive (a supervisor must not cut the drain short).
    expect(await h.work.drain(0)).toBe(true);
    expect((await fetch(`${h.opsOrigin}/livez`)).status).toBe(200);
    await gate.release(0);
    expect((await readiness)[0]).toMatchObject({ status: 503, body: { status: 'draining' } });
    expect(h.uisp.sim.requests.length).toBe(uispAsked);
  });
});
