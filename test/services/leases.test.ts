/**
 * Leases that hold (issue #36 §2): a run holding a key in the shared store renews its lease while it
 * works, and checks it still holds the key right before a write that cannot be taken back. A payment
 * (which the CRM API cannot delete) is the sharpest case: two processes with one operation key must
 * never both POST. Each interleaving is forced with the simulator's gates, a test clock and renewals the
 * test ticks itself; on the embedded store and on PostgreSQL.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { loadCoreConfig } from '../../src/config.js';
import { LeaseLostError } from '../../src/services/errors.js';
import { createServices, type Services } from '../../src/services/container.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { openStore, type Store } from '../../src/store/index.js';
import { testStore } from '../support/store.js';

let sim: RunningSimulator | undefined;
const open: Services[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
  await sim?.close();
  sim = undefined;
});

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

/** A wait the test ends: resolves `waiting()` once the process waits for a key another holds. */
function waits() {
  const waiting: (() => void)[] = [];
  const arrivals: (() => void)[] = [];
  return {
    wait: () =>
      new Promise<void>((resolve) => {
        waiting.push(resolve);
        arrivals.splice(0).forEach((arrived) => arrived());
      }),
    waiting: () => (waiting.length ? Promise.resolve() : new Promise<void>((resolve) => arrivals.push(resolve))),
    end: () => waiting.splice(0).forEach((resolve) => resolve()),
  };
}

const PAYMENT = { clientId: 1001, amount: 1500 };
const MINUTE = 60_000;

describe.each(engines)('a payment key shared by two processes, on $name', (engine) => {
  it('a live process keeps its key while its POST is slow (it renews the lease): the other waits, then finds the payment and records nothing', async () => {
    sim = await startSimulator();
    const time = clock();
    const [storeA, storeB] = await engine.pair(time.now);
    const config = loadCoreConfig({ UISP_URL: sim.url, UISP_TOKEN: sim.token, ISP_TIMEZONE: 'America/Guyana' });
    const renewA = manualRenewals();
    const second = waits();
    const a = createServices(config, { sharedLocks: { claims: storeA.claims, renewals: renewA.renewals, now: time.now } });
    const b = createServices(config, { sharedLocks: { claims: storeB.claims, wait: second.wait, now: time.now } });
    open.push(a, b);

    const posts = sim.gate({ method: 'POST', path: /^\/crm\/api\/v1\.0\/payments$/ });
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
    expect(sim.requests.filter((r) => r.method === 'POST' && r.path === '/crm/api/v1.0/payments')).toHaveLength(1);
  });

  it('a process whose lease ran out (paused, no renewal) stops before its POST and says so; the one that took the key over records the payment once', async () => {
    sim = await startSimulator();
    const time = clock();
    const [storeA, storeB] = await engine.pair(time.now);
    const config = loadCoreConfig({ UISP_URL: sim.url, UISP_TOKEN: sim.token, ISP_TIMEZONE: 'America/Guyana' });
    const paused = manualRenewals();
    const a = createServices(config, { sharedLocks: { claims: storeA.claims, renewals: paused.renewals, now: time.now } });
    const b = createServices(config, { sharedLocks: { claims: storeB.claims, now: time.now } });
    open.push(a, b);

    // The first process holds the key and is reading the client's payments when it is paused.
    const reads = sim.gate({ method: 'GET', path: /^\/crm\/api\/v1\.0\/payments$/ });
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
    expect(sim.requests.filter((r) => r.method === 'POST' && r.path === '/crm/api/v1.0/payments')).toHaveLength(1);
  });
});
