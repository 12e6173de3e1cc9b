/**
 * Concurrent activations, suspensions and payments converge. Each services container has its own
 * dispatcher and locks, as a separate CLI process or bot replica would; UISP (the simulator, with a
 * little latency so requests interleave) is all they share.
 */
import { describe, expect, it } from 'vitest';
import type { Services } from '../../src/services/container.js';
import type { RunningSimulator } from '../../src/simulator/index.js';
import { activate, fleetCustomer, fleetPerTest, holdings } from '../support/fleet.js';

const fleet = fleetPerTest();
let sim: RunningSimulator;
async function start(processes: number, latencyMs = 3, env: Record<string, string> = {}): Promise<Services[]> {
  const started = await fleet.start(processes, latencyMs, env);
  sim = fleet.sim;
  return started;
}

const posts = (path: RegExp) => sim.requests.filter((r) => r.method === 'POST' && path.test(r.path));

describe('activations of the same new customer at the same time', () => {
  it('four processes, the device typed four ways: one client, one Active service, one site, authorized once', async () => {
    const processes = await start(4);
    const customer = fleetCustomer(0);
    const results = await Promise.all(processes.map((services, i) => activate(services, { device: customer.typed[i]!, firstName: 'fleet', lastName: customer.lastName.toLowerCase() })));

    expect(results.filter((r) => r.outcome !== 'activated' && r.outcome !== 'already-activated').map((r) => r.message)).toEqual([]);
    expect(results.map((r) => r.outcome)).toContain('activated');
    const held = holdings(sim, customer);
    expect(held.clients).toHaveLength(1);
    expect(held.active).toHaveLength(1);
    expect(held.services).toHaveLength(1);
    expect(held.sites).toHaveLength(1);
    // A site started for a client that turned out to be another process's duplicate is removed again: no orphan.
    expect(sim.data.sites.filter((s) => s.identification.name === `Fleet ${customer.lastName}`)).toHaveLength(1);
    expect(held.device.identification).toMatchObject({ authorized: true, site: { id: held.sites[0]!.id } });
    // Every authorization NMS applied went onto the site kept (one sent to a site its run removed meanwhile is refused, and read again).
    expect(new Set(posts(/\/authorize$/).filter((r) => r.status < 300).map((r) => (r.body as { siteId: string }).siteId))).toEqual(new Set([held.sites[0]!.id]));
    // Every process reports the records UISP kept.
    for (const result of results) {
      expect(result).toMatchObject({ client: { id: held.clients[0]!.id }, service: { id: held.active[0]!.id }, site: { id: held.sites[0]!.id } });
    }
  });

  it('in one process, runs on the same device take turns: the second finds it done and writes nothing', async () => {
    const [services] = await start(1);
    const customer = fleetCustomer(1);
    const [a, b] = await Promise.all([
      activate(services!, { device: customer.typed[0], firstName: 'Fleet', lastName: customer.lastName }),
      activate(services!, { device: customer.typed[2], firstName: 'Fleet', lastName: customer.lastName }),
    ]);
    expect([a.outcome, b.outcome].sort()).toEqual(['activated', 'already-activated']);
    expect(posts(/\/clients$/)).toHaveLength(1);
    expect(posts(/\/services$/)).toHaveLength(1);
    expect(posts(/\/sites$/)).toHaveLength(1);
    expect(posts(/\/authorize$/)).toHaveLength(1);
    expect(sim.requests.filter((r) => r.method === 'DELETE')).toEqual([]);
  });

  it('a run that had to wait releases its lock however it ends, so later runs are never stuck', async () => {
    const [services] = await start(1);
    const customer = fleetCustomer(2);
    sim.setFaults([{ method: 'POST', path: /\/authorize$/, kind: 'status', status: 422 }]);
    const failed = await Promise.all([0, 1].map(() => activate(services!, { device: customer.typed[0], firstName: 'Fleet', lastName: customer.lastName })));
    expect(failed.map((r) => r.outcome)).toEqual(['failed', 'failed']);
    sim.setFaults([]);
    expect((await activate(services!, { device: customer.typed[3], firstName: 'Fleet', lastName: customer.lastName })).outcome).toBe('activated');
    expect(holdings(sim, customer).clients).toHaveLength(1);
  });
});

describe('a UISP that never finishes answering', () => {
  it('a trickled body ends the step at the total deadline, says what was done, and frees the device for the next run', async () => {
    // The deadline is the subject: generous enough that a busy machine never makes another request miss it.
    const [services] = await start(1, 0, { UISP_DEADLINE_MS: '2500', UISP_RETRIES: '0', UISP_WRITE_RETRIES: '0' });
    const customer = fleetCustomer(3);
    const request = { device: customer.typed[0], firstName: 'Fleet', lastName: customer.lastName };
    // The client and the site are created; the service's answer trickles, and so does the read that
    // would find whether it landed. The device is not let on without an Active service known.
    sim.setFaults([{ path: /\/services$/, kind: 'trickle', intervalMs: 60_000 }]);

    const first = await activate(services!, request);
    expect(first.outcome).toBe('failed');
    expect(first.message).toMatch(/failed at the service step: CRM POST \/crm\/api\/v1\.0\/clients\/\d+\/services: no complete answer within 2500 ms\. UISP may or may not have applied this change/);
    expect(first.done).toEqual([expect.stringMatching(/^Created client/), 'Created NMS site "Fleet Custd"']);
    expect(first.notDone).toEqual(['create the Active service', 'authorize cpe-fleet-3']);

    // The same device again, in the same process: its lock was released, and the service that did land
    // is found, not made a second time; nor is the site. Only the authorization is left to do.
    sim.setFaults([]);
    const second = await activate(services!, { ...request, device: customer.typed[3] });
    expect(second).toMatchObject({ outcome: 'activated', done: ['Authorized cpe-fleet-3 onto site "Fleet Custd"'] });
    expect(holdings(sim, customer).active).toHaveLength(1);
    expect(holdings(sim, customer).sites).toHaveLength(1);
    expect(posts(/\/sites$/)).toHaveLength(1);
    expect(posts(/\/services$/)).toHaveLength(1);
  });
});

describe('suspensions and payments requested twice', () => {
  it('the same suspension from two processes at once is applied once; each reports it done or already done', async () => {
    const processes = await start(2);
    const outcomes = await Promise.all(processes.map(async ({ suspensions }) => suspensions.suspend(101, await suspensions.resolveReason('1'))));
    expect(outcomes.map((o) => o.kind)).toContain('done');
    for (const outcome of outcomes) expect(['done', 'already']).toContain(outcome.kind);
    expect(sim.data.services.find((s) => s.id === 101)!.suspensionPeriods).toHaveLength(1);
  });

  it('the same payment operation submitted three times, at once and again later, records one payment', async () => {
    const [first, second] = await start(2);
    const input = { clientId: 1001, amount: 2500, method: 'cash', note: 'counter' };
    const before = sim.data.payments.length;
    const together = await Promise.all([0, 1, 2].map(() => first!.payments.record(input, { operationKey: 'V0PAY1' })));
    const again = await second!.payments.record(input, { operationKey: 'V0PAY1' });

    expect(sim.data.payments).toHaveLength(before + 1);
    expect(posts(/\/payments$/)).toHaveLength(1);
    expect(together.map((r) => r.alreadyRecorded).sort()).toEqual([false, true, true]);
    expect(again).toMatchObject({ alreadyRecorded: true, payment: { id: together[0]!.payment.id, note: 'counter' } });
    // Another operation with the same values is another payment.
    await second!.payments.record(input, { operationKey: 'V0PAY2' });
    expect(sim.data.payments).toHaveLength(before + 2);
  });
});
