/**
 * The forms' typeahead index over the simulator: devices from both NMS lists, clients (people and
 * companies) from the CRM; served from a cache with a short TTL, refreshed in the background, and
 * answered within the deadline on a slow UISP with what the cache has (marked incomplete). The clock
 * and the deadline's timer are injected: nothing waits for real time.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TypeaheadIndex } from '../../src/services/lookups/typeahead.js';
import { startUisp, type UispFixture } from '../support/uisp.js';

let uisp: UispFixture;
beforeEach(async () => {
  uisp = await startUisp();
});
afterEach(async () => {
  await uisp.close();
});

/** A deferred: the test decides when it settles. */
function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

const reads = (path: string) => uisp.sim.requests.filter((r) => r.method === 'GET' && r.path === path).length;
const CLIENTS = '/crm/api/v1.0/clients';
const DEVICES = '/nms/api/v2.1/devices';

describe('typeahead index', () => {
  it('suggests devices from both NMS lists by name, IP or MAC, an exact match first', async () => {
    const index = uisp.services.lookups.typeahead;
    const byIp = await index.device('10.20.1.88');
    expect(byIp.complete).toBe(true);
    expect(byIp.suggestions[0]).toMatchObject({ value: '10.20.1.88' });
    expect(byIp.suggestions[0]!.detail).toContain('discovered');
    const byName = await index.device('baptiste');
    expect(byName.suggestions.map((s) => s.label)).toEqual([expect.stringContaining('cpe-baptiste')]);
    expect(byName.suggestions[0]!.value).toBe('10.20.1.21');
  });

  it('suggests clients by person or company name and by id, archived clients left out', async () => {
    const index = uisp.services.lookups.typeahead;
    expect((await index.client('kevin singh')).suggestions.map((s) => s.value)).toEqual(['1008', '1009']);
    expect((await index.client('marine')).suggestions).toEqual([expect.objectContaining({ label: '#1006 Bartica Marine Supplies', value: '1006' })]);
    expect((await index.client('#1001')).suggestions[0]).toMatchObject({ value: '1001', label: '#1001 Marcus Baptiste' });
    const archived = uisp.sim.data.clients.find((c) => c.isArchived);
    if (archived) expect((await index.client(`#${archived.id}`)).suggestions.map((s) => s.value)).not.toContain(String(archived.id));
  });

  it('reads UISP once per TTL, refreshes in the background after half of it, and again when it is over', async () => {
    let t = 0;
    const index = new TypeaheadIndex({ crm: uisp.services.crm, nms: uisp.services.nms, ttlMs: 60_000, now: () => t });
    await index.client('singh');
    await index.client('baptiste');
    expect(reads(CLIENTS)).toBe(1);
    t = 40_000;
    await index.client('singh');
    await expect.poll(() => reads(CLIENTS)).toBe(2);
    t = 50_000;
    await index.client('singh');
    expect(reads(CLIENTS)).toBe(2);
    t = 200_000;
    expect((await index.client('singh')).complete).toBe(true);
    expect(reads(CLIENTS)).toBe(3);
  });

  it('answers by the deadline on a slow UISP: nothing yet, marked incomplete; then the cache, until the refresh lands', async () => {
    let t = 0;
    let uispAnswers = deferred();
    const deadline = deferred();
    const slowNms = {
      listDevices: async () => (await uispAnswers.promise, uisp.services.nms.listDevices()),
      listDiscoveredDevices: () => uisp.services.nms.listDiscoveredDevices(),
    };
    const index = new TypeaheadIndex({ crm: uisp.services.crm, nms: slowNms, ttlMs: 60_000, now: () => t, wait: () => deadline.promise });

    const first = index.device('baptiste');
    deadline.resolve();
    expect(await first).toEqual({ query: 'baptiste', suggestions: [], complete: false });

    uispAnswers.resolve();
    await expect.poll(async () => (await index.device('baptiste')).suggestions.length).toBe(1);

    // Stale now, and UISP slow again: the cached answer comes by the deadline, marked incomplete.
    t = 120_000;
    uispAnswers = deferred();
    const stale = await index.device('baptiste');
    expect(stale.complete).toBe(false);
    expect(stale.suggestions.map((s) => s.value)).toEqual(['10.20.1.21']);
    uispAnswers.resolve();
    await expect.poll(async () => (await index.device('baptiste')).complete).toBe(true);
    expect(reads(DEVICES)).toBe(2);
  });

  it('answers from the cache when UISP fails, and tries again on the next question', async () => {
    let t = 0;
    let fail = false;
    const crm = { listClients: async () => (fail ? Promise.reject(new Error('UISP is down')) : uisp.services.crm.listClients()) };
    const index = new TypeaheadIndex({ crm, nms: uisp.services.nms, ttlMs: 60_000, now: () => t });
    await index.client('singh');
    fail = true;
    t = 120_000;
    const answer = await index.client('singh');
    expect(answer.complete).toBe(false);
    expect(answer.suggestions).toHaveLength(2);
  });
});
