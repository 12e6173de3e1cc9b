/**
 * Activation under retries, staff changes and a second run (issue 27): each interleaving forced with the
 * simulator's gates (a request held until the test releases it: answered, applied with its answer lost,
 * or refused with a 503 and not applied) and staff edits made while a request is held; never timing.
 * Each services container is a process of its own; UISP is all they share. What UISP holds is read
 * straight from the simulator's state.
 */
import { describe, expect, it } from 'vitest';
import type { Services } from '../../src/services/container.js';
import type { RunningSimulator } from '../../src/simulator/index.js';
import { activate, fleetCustomer, fleetPerTest, holdings } from '../support/fleet.js';

const fleet = fleetPerTest();
let sim: RunningSimulator;
async function start(processes: number): Promise<Services[]> {
  const started = await fleet.start(processes);
  sim = fleet.sim;
  return started;
}

const customer = fleetCustomer(0);
const request = (device = customer.typed[0]) => ({ device, firstName: 'Fleet', lastName: customer.lastName });
const requestsOf = (method: string, path: RegExp) => sim.requests.filter((r) => r.method === method && path.test(r.path));
const serviceOf = (id: number) => sim.data.services.find((s) => s.id === id);
const deviceOf = (id: string) => sim.data.devices.find((d) => d.identification.id === id)!.identification;
const SITE_POSTS = /^\/nms\/api\/v2\.1\/sites$/;
const SERVICE_POSTS = /^\/crm\/api\/v1\.0\/clients\/\d+\/services$/;
const AUTHORIZE = /\/authorize$/;
/** NMS site ids are random; these two sort one below the other. */
const LOW = '00000000-0000-4000-8000-00000000000a';
const HIGH = 'ffffffff-0000-4000-8000-00000000000b';

/** Priya Ramnarine (client 1002) has Quoted service #102 and a discovered CPE at 10.20.1.51. */
const priya = { device: '10.20.1.51', firstName: 'Priya', lastName: 'Ramnarine' };

/** The customer a first run left with a client and an Active service, but no site (every site POST refused). */
async function leftWithoutSite(services: Services): Promise<number> {
  sim.setFaults([{ method: 'POST', path: '/nms/api/v2.1/sites', kind: 'status', status: 500 }]);
  const failed = await activate(services, request());
  sim.setFaults([]);
  expect(failed).toMatchObject({ outcome: 'failed', failedStep: 'site' });
  return failed.client!.id;
}

/** The customer a first run left with a client and its site, but no service (every service POST refused). */
async function leftWithoutService(services: Services): Promise<number> {
  sim.setFaults([{ method: 'POST', path: SERVICE_POSTS, kind: 'status', status: 422 }]);
  const failed = await activate(services, request());
  sim.setFaults([]);
  expect(failed).toMatchObject({ outcome: 'failed', failedStep: 'service' });
  return failed.client!.id;
}

/** A service a person made for the client (no SubOps note line), in `status`. */
function staffService(clientId: number, status: number): number {
  const template = sim.data.services.find((s) => s.clientId === 1002)!;
  const id = Math.max(...sim.data.services.map((s) => s.id)) + 1;
  sim.data.services.push({ ...structuredClone(template), id, clientId, status, note: 'set up by hand at the counter' });
  return id;
}

describe('1. every attempt of a confirmed delete is decided by a read made for it', () => {
  it('a DELETE refused with a 503 is not sent again once staff turned the service Active: nothing deleted, and the agent is told', async () => {
    const [services] = await start(1);
    const gate = sim.gate({ method: 'DELETE', path: /\/clients\/services\/102$/ });
    const run = activate(services!, priya, { deletes: [102] });
    await gate.arrived(1);
    // Staff turn #102 Active while the DELETE is on its way; UISP then refuses that DELETE without applying it.
    serviceOf(102)!.status = sim.statuses.active;
    const refused = gate.release(0, 'unavailable');
    gate.open();
    await refused;
    const result = await run;

    expect(requestsOf('DELETE', /\/clients\/services\/102$/)).toHaveLength(1);
    expect(serviceOf(102)).toMatchObject({ status: sim.statuses.active });
    expect(result).toMatchObject({ outcome: 'failed', failedStep: 'service', error: { code: 'service-changed' } });
    expect(result.message).toContain('Service #102 of client #1002 Priya Ramnarine was Quoted when the deletion was confirmed and is Active now: it was not deleted, and no service was created');
    expect(requestsOf('POST', SERVICE_POSTS)).toEqual([]);
  });

  it('a DELETE whose answer was lost, found gone by the next read, is this run’s deletion: in the Done list and the step', async () => {
    const [services] = await start(1);
    const gate = sim.gate({ method: 'DELETE', path: /\/clients\/services\/102$/ });
    const events: unknown[] = [];
    const run = (async () => {
      for await (const event of services!.activation.run(priya, { confirm: { deletes: [102] } })) events.push(event);
    })();
    await gate.arrived(1);
    const lost = gate.release(0, 'lose-answer');
    gate.open();
    await lost;
    await run;

    expect(serviceOf(102)).toBeUndefined();
    const result = events.at(-1) as { outcome: string; done: { kind: string; service?: { id: number } }[] };
    expect(result.outcome).toBe('activated');
    expect(result.done).toContainEqual(expect.objectContaining({ kind: 'service-deleted', service: expect.objectContaining({ id: 102 }) }));
    expect(events).toContainEqual(expect.objectContaining({ type: 'step', step: 'service', status: 'done', deleted: [102] }));
  });
});

describe('2. an authorization retried never moves the device where another run put it', () => {
  it('P’s authorize refused with a 503; meanwhile Q put the device on its own site and reported it: P reports that site and removes its own', async () => {
    const [p, q] = await start(2);
    await leftWithoutSite(p!);
    const sites = sim.gate({ method: 'POST', path: SITE_POSTS });
    const authorizations = sim.gate({ method: 'POST', path: AUTHORIZE });
    const pRun = activate(p!, request());
    await sites.arrived(1);
    const qRun = activate(q!, request(customer.typed[2]));
    await sites.arrived(2);
    // Q's site lands first (and Q reads back only its own); P's lands second with the lower id, the one P keeps.
    sim.nextSiteIds(HIGH, LOW);
    await sites.release(1);
    await authorizations.arrived(1); // Q's
    await sites.release(0);
    await authorizations.arrived(2); // P's
    expect((authorizations.held.map((r) => r.body) as { siteId: string }[]).map((b) => b.siteId)).toEqual([HIGH, LOW]);
    // P's retry reads the device first: held until Q's authorization has landed.
    const deviceReads = sim.gate({ method: 'GET', path: `/nms/api/v2.1/devices/${customer.deviceId}` });
    await authorizations.release(1, 'unavailable');
    await deviceReads.arrived(1);
    await authorizations.release(0);
    const qResult = await qRun;
    expect(qResult).toMatchObject({ outcome: 'activated', site: { id: HIGH } });
    authorizations.open();
    deviceReads.open();
    const pResult = await pRun;

    expect(deviceOf(customer.deviceId)).toMatchObject({ authorized: true, site: { id: HIGH } });
    expect((requestsOf('POST', AUTHORIZE).map((r) => r.body) as { siteId: string }[]).map((b) => b.siteId)).toEqual([HIGH, LOW]);
    expect(pResult).toMatchObject({ outcome: 'activated', site: { id: HIGH } });
    expect(pResult.done).toContain(`Removed duplicate site ${LOW}, which this activation had made`);
    expect(holdings(sim, customer).sites.map((s) => s.id)).toEqual([HIGH]);
  });
});

describe('3 and 4. one stable keep rule for services: a person’s service never competes', () => {
  it('a staff-made older service turned Active while P’s read-back is held: P keeps the service Q reported, and deletes nothing', async () => {
    const [p, q] = await start(2);
    const clientId = await leftWithoutService(p!);
    const staffMade = staffService(clientId, sim.statuses.prepared ?? sim.statuses.ended);
    const reads = sim.gate({ method: 'GET', path: `/crm/api/v1.0/clients/${clientId}/services` });
    const authorizations = sim.gate({ method: 'POST', path: AUTHORIZE });
    const pRun = activate(p!, request());
    await reads.arrived(1);
    await reads.release(0); // P's plan read
    await reads.arrived(2); // P's read-back, after its service POST: held
    await authorizations.arrived(1);
    await authorizations.release(0); // P lets the device on (an Active service exists)
    authorizations.open();
    const qRun = activate(q!, request(customer.typed[2]));
    await reads.arrived(3);
    await reads.release(2);
    const qResult = await qRun;
    const reported = qResult.service!.id;
    expect(qResult).toMatchObject({ outcome: 'already-activated' });
    expect(reported).toBeGreaterThan(staffMade);

    serviceOf(staffMade)!.status = sim.statuses.active; // UISP's scheduled activation, or staff
    await reads.release(1);
    reads.open();
    const pResult = await pRun;

    expect(requestsOf('DELETE', /./)).toEqual([]);
    expect(pResult).toMatchObject({ outcome: 'activated', service: { id: reported } });
    expect(pResult.duplicates).toBeUndefined();
    expect(serviceOf(reported)).toMatchObject({ status: sim.statuses.active });
    expect(serviceOf(staffMade)).toMatchObject({ status: sim.statuses.active });
  });

  it('the notice never names a person’s service as the one kept, and Remove duplicate refuses to delete the one activations keep', async () => {
    const [services] = await start(1);
    const clientId = await leftWithoutService(services!);
    const staffMade = staffService(clientId, sim.statuses.prepared ?? sim.statuses.ended);
    const activated = await activate(services!, request());
    expect(activated.outcome).toBe('activated');
    serviceOf(staffMade)!.status = sim.statuses.active;

    expect(await services!.duplicates.find(clientId)).toEqual([]);
    const again = await activate(services!, request(customer.typed[3]));
    expect(again).toMatchObject({ outcome: 'already-activated', service: { id: activated.service!.id } });
    expect(again.duplicates).toBeUndefined();
    const removal = await services!.duplicates.remove({ clientId, record: 'service', keptId: staffMade, duplicateId: activated.service!.id });
    expect(removal).toMatchObject({ kind: 'refused', refusal: { reason: 'kept' } });
    expect(requestsOf('DELETE', /./)).toEqual([]);
  });
});

describe('5. a name that became ambiguous while a run was in flight stops it', () => {
  it('staff rename two paying customers to the new name while P’s client POST is held: P is refused as a fresh run is, and adopts nothing', async () => {
    const [services] = await start(1);
    const a = await activate(services!, { device: fleetCustomer(0).typed[0], firstName: 'Fleet', lastName: 'Custa' });
    const b = await activate(services!, { device: fleetCustomer(1).typed[0], firstName: 'Fleet', lastName: 'Custb' });
    expect([a.outcome, b.outcome]).toEqual(['activated', 'activated']);
    const newcomer = fleetCustomer(2);
    const gate = sim.gate({ method: 'POST', path: '/crm/api/v1.0/clients' });
    const run = activate(services!, { device: newcomer.typed[0], firstName: 'Fleet', lastName: newcomer.lastName });
    await gate.arrived(1);
    for (const id of [a.client!.id, b.client!.id]) Object.assign(sim.data.clients.find((c) => c.id === id)!, { lastName: newcomer.lastName });
    await gate.release(0);
    gate.open();
    const result = await run;
    const fresh = await activate(services!, { device: newcomer.typed[2], firstName: 'Fleet', lastName: newcomer.lastName });

    expect(fresh).toMatchObject({ outcome: 'failed', failedStep: 'client', error: { code: 'client-ambiguous' } });
    expect(result).toMatchObject({ outcome: 'failed', failedStep: 'client', error: { code: 'client-ambiguous', message: fresh.error!.message } });
    // Its own new client (and the site started for it) removed again; the new CPE is on nobody's site.
    expect(requestsOf('POST', /\/crm\/api\/v1\.0\/clients$/)).toHaveLength(3);
    expect(sim.data.clients.filter((c) => c.lastName === newcomer.lastName).map((c) => c.id)).toEqual([a.client!.id, b.client!.id]);
    expect(requestsOf('POST', AUTHORIZE).filter((r) => JSON.stringify(r.body).includes(newcomer.deviceId))).toEqual([]);
    expect(deviceOf(newcomer.deviceId)).toMatchObject({ authorized: false });
    expect(sim.data.sites.filter((s) => (s.description?.note ?? '').includes('Created by SubOps') && s.identification.name.endsWith(newcomer.lastName))).toEqual([]);
  });
});

describe('7. a refused delete of a run’s own duplicate is reported, never a failed run', () => {
  it('two runs create the Active service at once; the loser’s DELETE of its own gets a 422: it says it could not remove it, and the run is activated', async () => {
    const [p, q] = await start(2);
    await leftWithoutService(p!);
    const posts = sim.gate({ method: 'POST', path: SERVICE_POSTS });
    const pRun = activate(p!, request());
    await posts.arrived(1);
    const qRun = activate(q!, request(customer.typed[2]));
    await posts.arrived(2);
    sim.setFaults([{ method: 'DELETE', path: /\/clients\/services\/\d+$/, kind: 'status', status: 422, times: 1 }]);
    await posts.release(1); // Q's first: the older, the one kept
    await posts.release(0);
    posts.open();
    const [pResult, qResult] = await Promise.all([pRun, qRun]);

    const kept = qResult.service!.id;
    expect(qResult).toMatchObject({ outcome: 'activated', service: { id: kept } });
    expect(pResult).toMatchObject({ outcome: 'activated', service: { id: kept } });
    expect(pResult.done).toContainEqual(expect.stringMatching(new RegExp(`^Could not remove duplicate service #${kept + 1}, which this activation had made: .*HTTP 422.*\\. It is still there$`)));
    expect(serviceOf(kept + 1)).toMatchObject({ status: sim.statuses.active });
  });
});

describe('8. one keep rule for sites', () => {
  it('two CPEs of one customer activated at once end on one site: the one in use, whatever the ids', async () => {
    const [p, q] = await start(2);
    await leftWithoutSite(p!);
    const second = fleetCustomer(1);
    const sites = sim.gate({ method: 'POST', path: SITE_POSTS });
    const pRun = activate(p!, request());
    await sites.arrived(1);
    const qRun = activate(q!, { device: second.typed[0], firstName: 'Fleet', lastName: customer.lastName });
    await sites.arrived(2);
    sim.nextSiteIds(HIGH, LOW);
    await sites.release(0);
    const pResult = await pRun;
    expect(pResult).toMatchObject({ outcome: 'activated', site: { id: HIGH } });
    await sites.release(1);
    sites.open();
    const qResult = await qRun;

    expect(qResult).toMatchObject({ outcome: 'activated', site: { id: HIGH } });
    expect(qResult.done).toContain(`Removed duplicate site ${LOW}, which this activation had made`);
    expect(deviceOf(customer.deviceId)).toMatchObject({ authorized: true, site: { id: HIGH } });
    expect(deviceOf(second.deviceId)).toMatchObject({ authorized: true, site: { id: HIGH } });
    expect(holdings(sim, customer).sites.map((s) => s.id)).toEqual([HIGH]);
  });
});

describe('8, a new customer. the site made with the client outranks a second run’s site', () => {
  it('Q’s site for P’s new client, with the lower id, read back beside P’s before P let the device on: both keep P’s site', async () => {
    const [p, q] = await start(2);
    const clients = sim.gate({ method: 'POST', path: '/crm/api/v1.0/clients' });
    const sites = sim.gate({ method: 'POST', path: SITE_POSTS });
    const authorizations = sim.gate({ method: 'POST', path: AUTHORIZE });
    const pRun = activate(p!, request());
    await clients.arrived(1);
    const qRun = activate(q!, request(customer.typed[2]));
    await clients.arrived(2);
    await clients.release(0); // P's client: the older, the one both keep
    await clients.release(1);
    clients.open();
    // Each run's site for its own new client; P's is held, Q's lands (and Q removes it with its client).
    await sites.arrived(2);
    const pClient = sim.data.clients.filter((c) => c.lastName === customer.lastName).map((c) => c.id).sort((a, b) => a - b)[0]!;
    const forClient = (i: number) => Number(/for CRM client (\d+)/.exec((sites.held[i]!.body as { note: string }).note)![1]);
    const pSite = forClient(0) === pClient ? 0 : 1;
    await sites.release(1 - pSite);
    // Q then makes a site for P's client (P's own is still held), and it gets the lower id.
    await sites.arrived(3);
    expect(forClient(2)).toBe(pClient);
    sim.nextSiteIds(HIGH, LOW);
    await sites.release(pSite); // P reads back its own site alone, and goes to let the device on
    await authorizations.arrived(1);
    await sites.release(2); // Q reads back both, none in use yet
    sites.open();
    await authorizations.arrived(2);
    authorizations.open();
    const [pResult, qResult] = await Promise.all([pRun, qRun]);

    expect(pResult).toMatchObject({ outcome: 'activated', site: { id: HIGH } });
    expect(qResult).toMatchObject({ site: { id: HIGH } });
    expect(qResult.done).toContain(`Removed duplicate site ${LOW}, which this activation had made`);
    expect(deviceOf(customer.deviceId)).toMatchObject({ authorized: true, site: { id: HIGH } });
    expect(holdings(sim, customer).sites.map((s) => s.id)).toEqual([HIGH]);
  });
});

describe('9. late-duplicate notices only for what no run will remove', () => {
  it('two runs create the Active service at once, no fault: the winner names nothing, the loser removes its own', async () => {
    const [p, q] = await start(2);
    const clientId = await leftWithoutService(p!);
    const posts = sim.gate({ method: 'POST', path: SERVICE_POSTS });
    const pRun = activate(p!, request());
    await posts.arrived(1);
    const qRun = activate(q!, request(customer.typed[2]));
    await posts.arrived(2);
    // Both read-backs held until both services exist: the winner's then sees the loser's in flight.
    const readBacks = sim.gate({ method: 'GET', path: `/crm/api/v1.0/clients/${clientId}/services` });
    await posts.release(0);
    await readBacks.arrived(1);
    await posts.release(1);
    await readBacks.arrived(2);
    posts.open();
    await readBacks.release(0);
    const pResult = await pRun;
    readBacks.open();
    const qResult = await qRun;

    const kept = pResult.service!.id;
    expect(pResult).toMatchObject({ outcome: 'activated', service: { id: kept } });
    expect(pResult.duplicates).toBeUndefined();
    expect(qResult).toMatchObject({ outcome: 'activated', service: { id: kept } });
    expect(qResult.done).toContain(`Removed duplicate service #${kept + 1}, which this activation had made`);
    expect(holdings(sim, customer).active.map((s) => s.id)).toEqual([kept]);
  });
});
