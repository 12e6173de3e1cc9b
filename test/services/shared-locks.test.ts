/**
 * Runs on the same device take turns across processes sharing a store (issue #28 §4): two services
 * containers (two processes, as far as SubOps can tell) whose locks are held in one PostgreSQL store. The
 * first run is parked at the simulator's gate while it holds the device; the second asks for it, is told
 * to wait (the test sees each wait and decides when it ends), and goes on only once the first has let
 * go, planning again from what UISP holds then. Nothing is timed.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { loadCoreConfig } from '../../src/config.js';
import { createServices, type Services } from '../../src/services/container.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { activate, fleetCustomer, fleetData } from '../support/fleet.js';
import { openStore } from '../../src/store/index.js';
import { testStore } from '../support/store.js';

let sim: RunningSimulator | undefined;
const open: Services[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
  await sim?.close();
  sim = undefined;
});

/** The second process's waits: held until the test ends them; from then on it asks again at once. */
function waits() {
  const waiting: (() => void)[] = [];
  const arrivals: (() => void)[] = [];
  let ended = false;
  return {
    wait: () =>
      ended
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            waiting.push(resolve);
            arrivals.splice(0).forEach((arrived) => arrived());
          }),
    /** Resolves once the process is waiting. */
    waiting: () => (waiting.length ? Promise.resolve() : new Promise<void>((resolve) => arrivals.push(resolve))),
    end: () => {
      ended = true;
      waiting.splice(0).forEach((resolve) => resolve());
    },
  };
}

describe('two processes sharing a store (DATABASE_URL)', () => {
  it('take turns on a device: the second waits while the first holds it, then finds it activated and writes nothing', async () => {
    sim = await startSimulator({ data: fleetData(1) });
    const customer = fleetCustomer(0);
    const request = { device: customer.typed[0], firstName: 'Fleet', lastName: customer.lastName };
    const config = loadCoreConfig({ UISP_URL: sim.url, UISP_TOKEN: sim.token, ISP_TIMEZONE: 'America/Guyana' });
    const storeA = await testStore();
    const storeB = await testStore({ schema: storeA.schema });
    const second = waits();
    const a = createServices(config, { sharedLocks: { claims: storeA.claims } });
    const b = createServices(config, { sharedLocks: { claims: storeB.claims, wait: second.wait } });
    open.push(a, b);

    // The first run creates the client, and is parked there holding the device.
    const clients = sim.gate({ method: 'POST', path: /^\/crm\/api\/v1\.0\/clients$/ });
    const first = activate(a, request);
    await clients.arrived(1);
    const later = activate(b, request);
    await second.waiting();
    // The second has read UISP and asked for the device; the only write sent is the first's, held.
    expect(clients.held).toHaveLength(1);
    expect(sim.requests.filter((r) => r.method !== 'GET')).toHaveLength(1);

    clients.open();
    const done = await first;
    expect(done.outcome).toBe('activated');
    second.end();
    const result = await later;
    expect(result.outcome).toBe('already-activated');
    expect(sim.requests.filter((r) => r.method === 'POST' && r.path === '/crm/api/v1.0/clients')).toHaveLength(1);
    expect(sim.data.clients.filter((c) => c.lastName === customer.lastName)).toHaveLength(1);
  });

  it('three CLI runs on one machine share the embedded store: one device typed as IP, name and MAC at once ends with one client, one site, one service', async () => {
    sim = await startSimulator({ data: fleetData(1) });
    const customer = fleetCustomer(0);
    const [ip, , mac, name] = customer.typed;
    const config = loadCoreConfig({ UISP_URL: sim.url, UISP_TOKEN: sim.token, ISP_TIMEZONE: 'America/Guyana' });
    // Three opens of one STORE_DIR, as three `subops activate` processes make (test/store shows real processes share it).
    const dir = await mkdtemp(join(tmpdir(), 'subops-cli-race-'));
    const stores = [0, 1, 2].map(() => openStore({ engine: 'embedded', dir }));
    onTestFinished(async () => {
      for (const store of stores) await store.close();
    });
    const later = [waits(), waits()];
    const [first, second, third] = stores.map((store, i) => createServices(config, { sharedLocks: { claims: store.claims, ...(i > 0 && { wait: later[i - 1]!.wait }) } }));
    open.push(first!, second!, third!);

    // The first run creates the client, and is parked there holding the device.
    const clients = sim.gate({ method: 'POST', path: /^\/crm\/api\/v1\.0\/clients$/ });
    const byIp = activate(first!, { device: ip, firstName: 'Fleet', lastName: customer.lastName });
    await clients.arrived(1);
    const byName = activate(second!, { device: name, firstName: 'Fleet', lastName: customer.lastName });
    const byMac = activate(third!, { device: mac, firstName: 'Fleet', lastName: customer.lastName });
    await Promise.all(later.map((run) => run.waiting()));
    expect(sim.requests.filter((r) => r.method !== 'GET')).toHaveLength(1);

    clients.open();
    expect((await byIp).outcome).toBe('activated');
    later.forEach((run) => run.end());
    expect([(await byName).outcome, (await byMac).outcome]).toEqual(['already-activated', 'already-activated']);
    expect(sim.data.clients.filter((c) => c.lastName === customer.lastName)).toHaveLength(1);
    expect(sim.data.sites.filter((s) => s.identification.name === `Fleet ${customer.lastName}`)).toHaveLength(1);
    expect(sim.requests.filter((r) => r.method === 'POST' && /^\/crm\/api\/v1\.0\/clients\/\d+\/services$/.test(r.path))).toHaveLength(1);
  });

  it('a run lets go of its locks in the store before its process closes the store: the next process does not wait for a lease', async () => {
    sim = await startSimulator({ data: fleetData(1) });
    const customer = fleetCustomer(0);
    const config = loadCoreConfig({ UISP_URL: sim.url, UISP_TOKEN: sim.token, ISP_TIMEZONE: 'America/Guyana' });
    const dir = await mkdtemp(join(tmpdir(), 'subops-cli-release-'));
    const store = openStore({ engine: 'embedded', dir });
    const services = createServices(config, { sharedLocks: { claims: store.claims } });
    expect((await activate(services, { device: customer.typed[0], firstName: 'Fleet', lastName: customer.lastName })).outcome).toBe('activated');
    // What a CLI run does as it ends (src/connect.ts): the services, then the store.
    await services.close();
    await store.close();
    const next = openStore({ engine: 'embedded', dir });
    onTestFinished(() => next.close());
    expect(await next.claims.isClaimed(`lock:device:${customer.deviceId}`)).toBe(false);
  });

  it('a store that does not answer leaves the run to its own process: it goes on, and says why', async () => {
    sim = await startSimulator({ data: fleetData(1) });
    const customer = fleetCustomer(0);
    const config = loadCoreConfig({ UISP_URL: sim.url, UISP_TOKEN: sim.token, ISP_TIMEZONE: 'America/Guyana' });
    const told: unknown[] = [];
    const refused = async () => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:5432'));
    const failing = { claim: refused, isClaimed: refused, hold: refused, letGo: refused };
    const services = createServices(config, { sharedLocks: { claims: failing, onStoreError: (error) => told.push(error) } });
    open.push(services);
    const result = await activate(services, { device: customer.typed[0], firstName: 'Fleet', lastName: customer.lastName });
    expect(result.outcome).toBe('activated');
    expect(told).toHaveLength(1);
  });
});
