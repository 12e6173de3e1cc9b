/**
 * Concurrent and repeated activations, with the interleaving forced by the simulator's gates (requests
 * held until the test releases them, in the order it chooses), never by timing. Each services container
 * is a process of its own (its own dispatcher and locks); UISP is all they share. What UISP holds is
 * counted by the tests' own rule (`holdings`: names, the documented note line, CRM bindings).
 */
import { describe, expect, it } from 'vitest';
import type { Services } from '../../src/services/container.js';
import type { RunningSimulator } from '../../src/simulator/index.js';
import { activate, fleetCustomer, fleetPerTest, holdings } from '../support/fleet.js';

const fleet = fleetPerTest();
let sim: RunningSimulator;
async function start(processes: number, env: Record<string, string> = {}): Promise<Services[]> {
  const started = await fleet.start(processes, 0, env);
  sim = fleet.sim;
  return started;
}

const customer = fleetCustomer(0);
const request = (device = customer.typed[0]) => ({ device, firstName: 'Fleet', lastName: customer.lastName });
const requestsOf = (method: string, path: RegExp) => sim.requests.filter((r) => r.method === method && path.test(r.path));
const SITES = /^\/nms\/api\/v2\.1\/sites$/;

/**
 * P and Q activate the customer at once, their site POSTs held by a gate: P's arrives first, Q's second.
 * Q's goes through and Q finishes; then P's is released as `pHow` says.
 */
async function qBeforeP(p: Services, q: Services, beforeP: () => void = () => {}, pHow: 'answer' | 'lose-answer' = 'answer') {
  const gate = sim.gate({ method: 'POST', path: SITES });
  const pRun = activate(p, request());
  await gate.arrived(1);
  const qRun = activate(q, request(customer.typed[2]));
  await gate.arrived(2);
  await gate.release(1);
  const qResult = await qRun;
  beforeP();
  await gate.release(0, pHow);
  gate.open();
  return { pResult: await pRun, qResult };
}

/** A customer a first run left with a client and an Active service but no site (every site POST refused). */
async function leftWithoutSite(services: Services) {
  sim.setFaults([{ method: 'POST', path: '/nms/api/v2.1/sites', kind: 'status', status: 500 }]);
  const failed = await activate(services, request());
  sim.setFaults([]);
  expect(failed).toMatchObject({ outcome: 'failed', failedStep: 'site' });
  return failed;
}

describe('a failed run, a finished run: the next one starts at once', () => {
  it('the re-run a failure recommends starts at once, fails the same way while UISP does, then converges', async () => {
    const [services] = await start(1, { UISP_WRITE_RETRIES: '0' });
    sim.setFaults([{ method: 'POST', path: '/nms/api/v2.1/sites', kind: 'status', status: 500 }]);
    const first = await activate(services!, request());
    expect(first.message).toMatch(/^Activation failed at the site step: NMS POST \/nms\/api\/v2\.1\/sites/);
    expect(first.done).toEqual([expect.stringMatching(/^Created client #\d+ Fleet Custa$/), expect.stringMatching(/^Created Active service #\d+/)]);
    expect(first.notDone).toEqual(['create NMS site "Fleet Custa"', 'authorize cpe-fleet-0']);

    // Right away, UISP still refusing: the same failure, no waiting step, and no second client or service.
    const second = await activate(services!, request(customer.typed[3]));
    expect(second).toMatchObject({ outcome: 'failed', failedStep: 'site' });
    expect(second.done).toEqual([]);

    sim.setFaults([]);
    const third = await activate(services!, request(customer.typed[2]));
    expect(third.outcome).toBe('activated');
    expect(third.done).toEqual(['Created NMS site "Fleet Custa"', 'Authorized cpe-fleet-0 onto site "Fleet Custa"']);
    const held = holdings(sim, customer);
    expect({ clients: held.clients.length, services: held.services.length, sites: held.sites.length }).toEqual({ clients: 1, services: 1, sites: 1 });
    expect(requestsOf('POST', /\/clients$/)).toHaveLength(1);
    expect(requestsOf('POST', /\/services$/)).toHaveLength(1);
  });

  it('a second CPE right after a success reuses the client, its Active service and its site, and only authorizes', async () => {
    const [services] = await start(1);
    const first = await activate(services!, request());
    expect(first.outcome).toBe('activated');
    const writesBefore = sim.requests.filter((r) => r.method !== 'GET').length;

    const secondCpe = fleetCustomer(1).typed[0];
    const second = await activate(services!, request(secondCpe));
    expect(second).toMatchObject({ outcome: 'activated', client: { id: first.client!.id }, service: { id: first.service!.id }, site: { id: first.site!.id } });
    expect(second.done).toEqual([`Authorized cpe-fleet-1 onto site "Fleet Custa"`]);
    expect(sim.requests.filter((r) => r.method !== 'GET').slice(writesBefore).map((r) => `${r.method} ${r.path}`)).toEqual(['POST /nms/api/v2.1/devices/authorize']);
  });
});

describe('two processes, the same customer, interleaved by gates', () => {
  it('a site applied late (and given the lowest id) never takes the device off the site another run reported', async () => {
    const [p, q] = await start(2);
    await leftWithoutSite(p!);
    let deviceWhenPLands: unknown;
    const { pResult, qResult } = await qBeforeP(p!, q!, () => {
      deviceWhenPLands = structuredClone(sim.data.devices.find((d) => d.identification.id === customer.deviceId)!.identification);
      // P's site lands now, late, with an id lower than any other: "oldest" by id would pick it.
      sim.nextSiteIds('00000000-0000-4000-8000-000000000000');
    });
    expect(qResult.outcome).toBe('activated');
    const reported = qResult.site!.id;
    expect(deviceWhenPLands).toMatchObject({ authorized: true, site: { id: reported } });

    expect(pResult).toMatchObject({ outcome: 'activated', site: { id: reported } });
    expect(pResult.done).toEqual(['Removed duplicate site 00000000-0000-4000-8000-000000000000, which this activation had made']);
    // P never sent an authorization: the device was already on the site Q reported.
    expect(requestsOf('POST', /\/authorize$/).map((r) => (r.body as { siteId: string }).siteId)).toEqual([reported]);
    const held = holdings(sim, customer);
    expect(held.sites.map((s) => s.id)).toEqual([reported]);
    expect(held.device.identification).toMatchObject({ authorized: true, site: { id: reported } });
  });

  it('a site whose answer was lost: the run finds its own site again, and keeps the one in use', async () => {
    const [p, q] = await start(2);
    await leftWithoutSite(p!);
    const sitePostsBefore = requestsOf('POST', SITES).length;
    const { pResult, qResult } = await qBeforeP(p!, q!, undefined, 'lose-answer');

    expect([pResult.outcome, qResult.outcome]).toEqual(['activated', 'activated']);
    expect(pResult.site!.id).toBe(qResult.site!.id);
    // P read before trying again, found its own site, and did not create a third.
    expect(requestsOf('POST', SITES).length - sitePostsBefore).toBe(2);
    const held = holdings(sim, customer);
    expect(held.sites.map((s) => s.id)).toEqual([qResult.site!.id]);
  });

  it('two runs create the Active service at once and one loses the answer: both report the older one, the newer is removed by its own run', async () => {
    const [p, q] = await start(2);
    // A first run made the client and gave up before its service (every service POST refused).
    sim.setFaults([{ method: 'POST', path: /\/services$/, kind: 'status', status: 422 }]);
    expect((await activate(p!, request())).outcome).toBe('failed');
    sim.setFaults([]);
    const gate = sim.gate({ method: 'POST', path: /^\/crm\/api\/v1\.0\/clients\/\d+\/services$/ });
    const runs = [activate(p!, request()), activate(q!, request(customer.typed[2]))];
    await gate.arrived(2);
    await gate.release(0, 'lose-answer');
    await gate.release(1);
    gate.open();
    const results = await Promise.all(runs);

    const held = holdings(sim, customer);
    expect(held.active).toHaveLength(1);
    const kept = held.active[0]!.id;
    for (const result of results) expect(result).toMatchObject({ outcome: 'activated', service: { id: kept } });
    // The newer service was made by one run, removed by that run alone, and said so.
    const deletes = requestsOf('DELETE', /\/clients\/services\/\d+$/);
    expect(deletes).toHaveLength(1);
    const removedBy = results.filter((r) => r.done.some((line) => line.startsWith('Removed duplicate service')));
    expect(removedBy).toHaveLength(1);
    expect(deletes[0]!.path).toBe(`/crm/api/v1.0/clients/services/${kept + 1}`);
  });

  it('a service created after its run gave up is a late duplicate: the next activation names it and removes nothing', async () => {
    const [p, calm] = await start(2);
    sim.setFaults([{ method: 'POST', path: /\/services$/, kind: 'status', status: 422 }]);
    await activate(p!, request());
    sim.setFaults([]);
    const gate = sim.gate({ method: 'POST', path: /^\/crm\/api\/v1\.0\/clients\/\d+\/services$/ });
    const run = activate(p!, request());
    // The first POST's connection is reset, the POST still held; the run reads, finds nothing, and sends another.
    await gate.arrived(1);
    await gate.drop(0);
    await gate.arrived(2);
    await gate.release(1);
    const result = await run;
    expect(result.outcome).toBe('activated');
    // UISP applies the first one only now.
    await gate.release(0);
    gate.open();
    expect(holdings(sim, customer).active.map((s) => s.id)).toEqual([result.service!.id, result.service!.id + 1]);

    const next = await activate(calm!, request(customer.typed[3]));
    expect(next).toMatchObject({ outcome: 'already-activated', service: { id: result.service!.id } });
    expect(next.duplicates).toEqual([{ record: 'service', client: next.client, kept: { id: result.service!.id, name: expect.anything() }, others: [{ id: result.service!.id + 1, name: expect.anything() }] }]);
    expect(requestsOf('DELETE', /./)).toEqual([]);
  });
});

describe('namesakes are never duplicates to remove', () => {
  it('a staff rename left two SubOps clients of one name, each with an Active service: refused as ambiguous, nothing written', async () => {
    const [services] = await start(1);
    const first = await activate(services!, request());
    const other = fleetCustomer(1);
    const second = await activate(services!, { device: other.typed[0], firstName: 'Fleet', lastName: other.lastName });
    expect([first.outcome, second.outcome]).toEqual(['activated', 'activated']);
    // Staff rename the second customer to the first one's name in the CRM.
    Object.assign(sim.data.clients.find((c) => c.id === second.client!.id)!, { lastName: customer.lastName });
    const writesBefore = sim.requests.filter((r) => r.method !== 'GET').length;

    const third = await activate(services!, request(fleetCustomer(2).typed[0]));
    expect(third).toMatchObject({ outcome: 'failed', failedStep: 'client', error: { code: 'client-ambiguous' } });
    expect(third.error!.candidates).toEqual([expect.stringMatching(new RegExp(`^#${first.client!.id} Fleet Custa`)), expect.stringMatching(new RegExp(`^#${second.client!.id} Fleet Custa`))]);
    expect(sim.requests.filter((r) => r.method !== 'GET').slice(writesBefore)).toEqual([]);
    expect(sim.data.services.filter((s) => s.status === 1 && [first.client!.id, second.client!.id].includes(s.clientId))).toHaveLength(2);
  });
});
