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
import pg from 'pg';
import { afterEach, describe, expect, inject, it, onTestFinished } from 'vitest';
import { loadCoreConfig } from '../../src/config.js';
import { LeaseLostError } from '../../src/services/errors.js';
import { createServices, type Services } from '../../src/services/container.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { activate, fleetCustomer, fleetData } from '../support/fleet.js';
import { foreignClaimWarning, openStore, type ClaimLedger, type ForeignClaim, type Store } from '../../src/store/index.js';
import { openLmdb } from '../../src/store/lmdb.js';
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

/**
 * Leases that hold (issue #36 §2): a run holding a key in the shared store renews its lease while it
 * works, and checks it still holds the key right before a write that cannot be taken back. A payment
 * (which the CRM API cannot delete) is the sharpest case: two processes with one operation key must
 * never both POST. Forced with the simulator's gates, a test clock and renewals the test ticks itself.
 */
const clock = (start = 1_800_000_000_000) => {
  let t = start;
  return { now: () => t, advance: (ms: number) => (t += ms) };
};

const engines: { name: string; pair(now: () => number): Promise<[Store, Store]> }[] = [
  {
    name: 'the embedded store',
    async pair(now) {
      const dir = await mkdtemp(join(tmpdir(), 'subops-leases-'));
      const stores: [Store, Store] = [openStore({ engine: 'embedded', dir }, { now }), openStore({ engine: 'embedded', dir }, { now })];
      onTestFinished(async () => {
        for (const store of stores) await store.close();
      });
      return stores;
    },
  },
  {
    name: 'PostgreSQL',
    async pair(now) {
      const a = await testStore({ now });
      return [a, await testStore({ now, schema: a.schema })];
    },
  },
];

/** Renewals the test runs itself: `tick()` renews as the timer would. */
function manualRenewals() {
  const running = new Set<() => Promise<void>>();
  return {
    renewals: (_everyMs: number, renew: () => Promise<void>) => {
      running.add(renew);
      return () => void running.delete(renew);
    },
    tick: async () => {
      for (const renew of running) await renew();
    },
  };
}

const PAYMENT = { clientId: 1001, amount: 1500 };
const MINUTE = 60_000;

describe.each(engines)('a payment key shared by two processes, on $name (issue #36 §2: leases that hold)', (engine) => {
  /** The simulator, a test clock, and two processes' stores on one database on that clock. */
  const twoProcesses = async () => {
    const uisp = (sim = await startSimulator());
    const time = clock();
    const [storeA, storeB] = await engine.pair(time.now);
    return { uisp, time, storeA, storeB, config: loadCoreConfig({ UISP_URL: uisp.url, UISP_TOKEN: uisp.token, ISP_TIMEZONE: 'America/Guyana' }) };
  };

  it('a live process keeps its key while its POST is slow (it renews the lease): the other waits, then finds the payment and records nothing', async () => {
    const { uisp, time, storeA, storeB, config } = await twoProcesses();
    const renewA = manualRenewals();
    const second = waits();
    const a = createServices(config, { sharedLocks: { claims: storeA.claims, renewals: renewA.renewals, now: time.now } });
    const b = createServices(config, { sharedLocks: { claims: storeB.claims, wait: second.wait, now: time.now } });
    open.push(a, b);

    const posts = uisp.gate({ method: 'POST', path: /^\/crm\/api\/v1\.0\/payments$/ });
    const first = a.payments.record(PAYMENT, { operationKey: 'k-slow' });
    await posts.arrived(1);
    // UISP is slow for three minutes, longer than a lease; the first process renews as it goes.
    for (let minute = 0; minute < 3; minute++) {
      time.advance(MINUTE);
      await renewA.tick();
    }
    const later = b.payments.record(PAYMENT, { operationKey: 'k-slow' });
    await second.waiting();

    posts.open();
    expect((await first).alreadyRecorded).toBe(false);
    second.end();
    expect((await later).alreadyRecorded).toBe(true);
    expect(uisp.requests.filter((r) => r.method === 'POST' && r.path === '/crm/api/v1.0/payments')).toHaveLength(1);
  });

  it('a process whose lease ran out (paused, no renewal) stops before its POST and says so; the one that took the key over records the payment once', async () => {
    const { uisp, time, storeA, storeB, config } = await twoProcesses();
    const paused = manualRenewals();
    const a = createServices(config, { sharedLocks: { claims: storeA.claims, renewals: paused.renewals, now: time.now } });
    const b = createServices(config, { sharedLocks: { claims: storeB.claims, now: time.now } });
    open.push(a, b);

    // The first process holds the key and is reading the client's payments when it is paused.
    const reads = uisp.gate({ method: 'GET', path: /^\/crm\/api\/v1\.0\/payments$/ });
    const first = a.payments.record(PAYMENT, { operationKey: 'k-paused' }).then(
      () => undefined,
      (error: unknown) => error,
    );
    await reads.arrived(1);
    time.advance(3 * MINUTE);
    // The second takes the key over (the first's lease ran out) and reads too.
    const later = b.payments.record(PAYMENT, { operationKey: 'k-paused' });
    await reads.arrived(2);
    reads.open();

    expect((await later).alreadyRecorded).toBe(false);
    const stopped = await first;
    expect(stopped).toBeInstanceOf(LeaseLostError);
    expect((stopped as LeaseLostError).reason).toBe('lost');
    expect(uisp.requests.filter((r) => r.method === 'POST' && r.path === '/crm/api/v1.0/payments')).toHaveLength(1);
  });
});

describe('an activation that lost its hold on the device (issue #36 §2)', () => {
  it('stops before it authorizes the device, and says why: no authorization is sent', async () => {
    const uisp = (sim = await startSimulator({ data: fleetData(1) }));
    const customer = fleetCustomer(0);
    const time = clock();
    const dir = await mkdtemp(join(tmpdir(), 'subops-lease-activation-'));
    const store = openStore({ engine: 'embedded', dir }, { now: time.now });
    onTestFinished(() => store.close());
    const paused = manualRenewals();
    const services = createServices(loadCoreConfig({ UISP_URL: uisp.url, UISP_TOKEN: uisp.token, ISP_TIMEZONE: 'America/Guyana' }), { sharedLocks: { claims: store.claims, renewals: paused.renewals, now: time.now } });
    open.push(services);

    // Paused while UISP creates the service, past its lease, with no renewal.
    const serviceCreated = uisp.gate({ method: 'POST', path: /^\/crm\/api\/v1\.0\/clients\/\d+\/services$/ });
    const run = activate(services, { device: customer.typed[0], firstName: 'Fleet', lastName: customer.lastName });
    await serviceCreated.arrived(1);
    time.advance(3 * MINUTE);
    serviceCreated.open();

    const result = await run;
    expect(result.outcome).toBe('failed');
    expect(result.error).toMatchObject({ code: 'lease-lost', message: expect.stringContaining("SubOps' hold on this operation ran out while the run was paused or slow") });
    expect(uisp.requests.filter((r) => r.path.startsWith('/nms/api/v2.1/devices') && r.method !== 'GET')).toEqual([]);
  });
});

/**
 * No store between a decision's read and a delete (issue #36 §1). The agent confirmed deleting Priya's
 * Quoted service #102 and the Slack confirmation read UISP again (`recheck`); then the run asks the store
 * for its keys, and the store is slow to answer. Meanwhile a person turns #102 Active. Whatever the store
 * says once it answers, the Active service is never deleted, and nothing is reported as deleted.
 */
describe.each(engines)('a confirmed delete held back by a slow store, on $name (issue #36 §1)', (engine) => {
  /** Priya Ramnarine (client 1002) has Quoted service #102 and a discovered CPE at 10.20.1.51. */
  const priya = { device: '10.20.1.51', firstName: 'Priya', lastName: 'Ramnarine' };

  /** The store's claims, each held until the test lets it through (a slow store, or one another connection blocks). */
  function heldClaims(claims: ClaimLedger) {
    let letThrough!: () => void;
    const through = new Promise<void>((resolve) => (letThrough = resolve));
    let arrived!: () => void;
    const asked = new Promise<void>((resolve) => (arrived = resolve));
    const ledger: ClaimLedger = {
      claim: async (key, options) => {
        arrived();
        await through;
        return claims.claim(key, options);
      },
      isClaimed: (key) => claims.isClaimed(key),
      hold: (key, holdMs) => claims.hold(key, holdMs),
      letGo: (key) => claims.letGo(key),
    };
    return { ledger, asked, letThrough };
  }

  /** The simulator, a test clock, and one process whose store's claims the test holds back. */
  async function heldBack(options: Parameters<typeof startSimulator>[0] = {}) {
    const uisp = (sim = await startSimulator(options));
    const time = clock();
    const [store] = await engine.pair(time.now);
    const slow = heldClaims(store.claims);
    const config = loadCoreConfig({ UISP_URL: uisp.url, UISP_TOKEN: uisp.token, ISP_TIMEZONE: 'America/Guyana' });
    const services = createServices(config, { sharedLocks: { claims: slow.ledger, now: time.now } });
    open.push(services);
    return { uisp, time, slow, services };
  }

  it.each([
    // Slower than staleAfterMs: a wait, so the run plans again from UISP (and keeps the Active service).
    ['the store answers after 5 seconds (a blocked table): the run plans again', 5_000, { outcome: 'activated' }],
    // Quick: the plan stands, and the delete's own read stops it.
    ['the store answers at once: the delete reads #102 first', 0, { outcome: 'failed', error: { code: 'service-changed', now: { id: 102, statusLabel: 'Active' } } }],
  ])('%s; the service a person turned Active meanwhile is not deleted', async (_case, slowMs, expected) => {
    const { uisp, time, slow, services } = await heldBack({ data: fleetData(1) });
    const service102 = () => uisp.data.services.find((s) => s.id === 102)!;

    // What the Slack confirmation does: read again, compare with what the agent was shown, run on that read.
    const checked = await services.activation.recheck(priya, { clientId: 1002, deletes: [{ id: 102, status: service102().status }] });
    expect(checked.changes).toEqual([]);
    const events: { type: string; outcome?: string; done?: { kind: string }[]; message?: string }[] = [];
    const run = (async () => {
      for await (const event of services.activation.run(priya, { confirm: { deletes: [102] }, decided: checked.decision })) events.push(event);
    })();
    await slow.asked;
    service102().status = uisp.statuses.active;
    time.advance(slowMs);
    slow.letThrough();
    await run;

    expect(uisp.requests.filter((r) => r.method === 'DELETE')).toEqual([]);
    expect(service102().status).toBe(uisp.statuses.active);
    const result = events.at(-1)!;
    expect(result).toMatchObject({ type: 'result', ...expected });
    expect(result.done ?? []).not.toContainEqual(expect.objectContaining({ kind: 'service-deleted' }));
  });

  it('the store answers at once after a person moved the device to a third client’s site: the confirmed move is not made from the old read', async () => {
    const { uisp, slow, services } = await heldBack();
    // cpe-hope is on Leon Hope's site (client 1007); the agent confirmed moving it off that site.
    const HOPE_SITE = '4d5e6f7a-8b9c-4dae-9f10-3b4c5d6e7f89';
    const ravi = uisp.data.sites.find((s) => s.identification.name === 'Ravi Persaud')!;
    const ada = { device: 'cpe-hope', firstName: 'Ada', lastName: 'Lovelace' };
    const checked = await services.activation.recheck(ada, { deletes: [], moveFrom: HOPE_SITE });
    expect(checked.changes).toEqual([]);
    const events: { type: string }[] = [];
    const run = (async () => {
      for await (const event of services.activation.run(ada, { confirm: { moveFrom: HOPE_SITE }, decided: checked.decision })) events.push(event);
    })();
    await slow.asked;
    // A person puts the station on Ravi Persaud's site meanwhile.
    const device = uisp.data.devices.find((d) => d.identification.name === 'cpe-hope')!;
    device.identification.site = { ...device.identification.site!, id: ravi.id, name: 'Ravi Persaud' };
    slow.letThrough();
    await run;

    expect(uisp.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/authorize'))).toEqual([]);
    expect(device.identification.site).toMatchObject({ id: ravi.id });
    expect(events.at(-1)).toMatchObject({ type: 'result', outcome: 'failed', error: { code: 'device-in-use', move: { site: { id: ravi.id } } } });
  });
});

/**
 * One claim row no SubOps process wrote (issue #37 §8): whoever can write the store puts a lock on a
 * device, held for a year or remembered as done. SubOps never writes either (a lock is held for its two
 * minutes, renewed, and released), so the run takes the device over at once, and says so.
 */
const YEAR = 365 * 24 * 3_600_000;
const forgedLocks = [
  { name: 'the embedded store (written into its files)', async open(onForeignClaim: (found: ForeignClaim) => void, row: { key: string; state: 'held' | 'done'; until: number }) {
    const dir = await mkdtemp(join(tmpdir(), 'subops-forged-lock-'));
    const kv = await openLmdb(dir);
    await kv.transaction((tx) => tx.put('claims', row.key, { owner: 'someone-else', state: row.state, until: row.until }));
    await kv.close();
    const store = openStore({ engine: 'embedded', dir }, { onForeignClaim });
    onTestFinished(() => store.close());
    return store;
  } },
  { name: 'PostgreSQL (an INSERT with DATABASE_URL)', async open(onForeignClaim: (found: ForeignClaim) => void, row: { key: string; state: 'held' | 'done'; until: number }) {
    const store = await testStore({ onForeignClaim });
    const sql = new pg.Client({ connectionString: inject('postgresUrl'), options: `-c search_path=${store.schema}` });
    await sql.connect();
    await sql.query(`INSERT INTO claims (key, owner, state, until_ms, claimed_ms) VALUES ($1, 'someone-else', $2, $3, 0)`, [row.key, row.state, row.until]);
    await sql.end();
    return store;
  } },
];

describe.each(forgedLocks)('a lock row SubOps did not write, on $name', (engine) => {
  it.each([
    ['held for a year', 'held' as const],
    ['remembered as done', 'done' as const],
  ])('%s: the activation takes the device over without waiting, and the warning names the key', async (_case, state) => {
    sim = await startSimulator({ data: fleetData(1) });
    const customer = fleetCustomer(0);
    const key = `lock:device:${customer.deviceId}`;
    const warned: ForeignClaim[] = [];
    const store = await engine.open((found) => warned.push(found), { key, state, until: Date.now() + YEAR });
    let waits = 0;
    const told: unknown[] = [];
    // Any wait here is a wait on the forged row: the test ends it as a store failure, and counts it.
    const wait = async () => {
      waits++;
      throw new Error('waited on a row SubOps did not write');
    };
    const services = createServices(loadCoreConfig({ UISP_URL: sim.url, UISP_TOKEN: sim.token, ISP_TIMEZONE: 'America/Guyana' }), { sharedLocks: { claims: store.claims, wait, onStoreError: (error) => told.push(error) } });
    open.push(services);

    const result = await activate(services, { device: customer.typed[0], firstName: 'Fleet', lastName: customer.lastName });
    expect(result.outcome).toBe('activated');
    expect(waits).toBe(0);
    expect(told).toEqual([]);
    expect(warned).toEqual([expect.objectContaining({ key, state })]);
    expect(foreignClaimWarning(warned[0]!)).toMatch(new RegExp(`^A claim in SubOps' store on ${key} was not written by SubOps \\(.+\\): taken over as if it had run out\\.$`));
  });
});
