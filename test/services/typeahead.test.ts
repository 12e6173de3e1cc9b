/**
 * The forms' typeahead index over the simulator: devices from both NMS lists, clients (people and
 * companies) from the CRM; served from a cache with a short TTL, refreshed in the background, and
 * answered within the deadline on a slow UISP with what the cache has (marked incomplete). The clock
 * and the deadline's timer are injected: nothing waits for real time.
 */
import { pino } from 'pino';
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
    // Both lists' answers counted as they come, so the test knows when the background refresh has landed.
    let answered = 0;
    const counted = <T>(read: Promise<T>) => read.finally(() => answered++);
    const nms = { listDevices: () => counted(uisp.services.nms.listDevices()), listDiscoveredDevices: () => counted(uisp.services.nms.listDiscoveredDevices()) };
    const index = new TypeaheadIndex({ crm: uisp.services.crm, nms, ttlMs: 60_000, now: () => t });
    await index.device('baptiste');
    await index.device('cpe');
    expect(reads(DEVICES)).toBe(1);
    t = 40_000;
    await index.device('baptiste');
    await expect.poll(() => answered).toBe(4);
    expect(reads(DEVICES)).toBe(2);
    t = 50_000;
    await index.device('baptiste');
    expect(reads(DEVICES)).toBe(2);
    t = 200_000;
    expect((await index.device('baptiste')).complete).toBe(true);
    expect(reads(DEVICES)).toBe(3);
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
    const nms = {
      listDevices: async () => (fail ? Promise.reject(new Error('UISP is down')) : uisp.services.nms.listDevices()),
      listDiscoveredDevices: () => uisp.services.nms.listDiscoveredDevices(),
    };
    const index = new TypeaheadIndex({ crm: uisp.services.crm, nms, ttlMs: 60_000, now: () => t });
    await index.device('baptiste');
    fail = true;
    t = 120_000;
    const answer = await index.device('baptiste');
    expect(answer.complete).toBe(false);
    expect(answer.suggestions).toHaveLength(1);
  });
});

/** GET /clients requests: the CRM's client list, searched or whole (not /clients/{id}). */
const listReads = () => uisp.sim.requests.filter((r) => r.method === 'GET' && r.path === CLIENTS);

/** A logger whose warnings the test reads. */
function capturedLogger() {
  const warnings: string[] = [];
  const logger = pino({ level: 'warn' }, { write: (line: string) => void warnings.push((JSON.parse(line) as { msg: string }).msg) });
  return { logger, warnings };
}

describe('client typeahead: the CRM is asked for what was typed', () => {
  it('answers a typed name, custom id or id completely from the first keystroke, never reading the whole client list', async () => {
    const index = uisp.services.lookups.typeahead;
    for (const typed of ['ke', 'kev', 'kevin', 'kevin s', 'kevin singh']) {
      expect(await index.client(typed)).toMatchObject({ complete: true, suggestions: [expect.objectContaining({ value: '1008' }), expect.objectContaining({ value: '1009' })] });
    }
    expect(await index.client('1005')).toMatchObject({ complete: true, suggestions: [expect.objectContaining({ label: '#1005 Ravi Persaud', value: '1005' })] });
    expect((await index.client('#1006')).suggestions.map((s) => s.value)).toEqual(['1006']);
    expect((await index.client('dw-1001')).suggestions.map((s) => s.value)).toEqual(['1001']);
    // One letter is no search for the CRM (it wants two characters): nothing is asked, nothing is missing.
    expect(await index.client('k')).toEqual({ query: 'k', suggestions: [], complete: true });
    // Each read asks for the typed text, one page at most; an id is read by itself.
    expect(listReads().length).toBeGreaterThan(0);
    expect(listReads().filter((r) => r.query.query === undefined || r.query.limit !== '50')).toEqual([]);
    expect(uisp.sim.requests.filter((r) => r.path.startsWith(`${CLIENTS}/`)).map((r) => r.path)).toEqual([`${CLIENTS}/1005`, `${CLIENTS}/1006`]);
  });

  it('a search the CRM answers after the deadline: nothing yet, marked incomplete; its late answer serves the next keystroke', async () => {
    const held = uisp.sim.gate({ method: 'GET', path: CLIENTS });
    const deadline = deferred();
    // The first question's deadline is the test's to pass; later ones never pass.
    const deadlines = [deadline.promise];
    const index = new TypeaheadIndex({ crm: uisp.services.crm, nms: uisp.services.nms, wait: () => deadlines.shift() ?? new Promise(() => {}) });
    const first = index.client('kevin');
    await held.arrived(1);
    deadline.resolve();
    expect(await first).toEqual({ query: 'kevin', suggestions: [], complete: false });
    await held.release(0);
    await expect.poll(async () => (await index.client('kevin')).complete).toBe(true);
    expect((await index.client('kevin')).suggestions.map((s) => s.value)).toEqual(['1008', '1009']);
    expect(listReads()).toHaveLength(1);
  });

  it('a typed id whose text search is late: the client the id names, marked incomplete', async () => {
    const held = uisp.sim.gate({ method: 'GET', path: CLIENTS });
    const idAnswered = deferred();
    const real = uisp.services.crm;
    const crm = {
      listClients: real.listClients.bind(real),
      getClient: (id: number) => {
        const read = real.getClient(id);
        void read.then(idAnswered.resolve);
        return read;
      },
    };
    // The deadline passes once the id's answer is in and every promise chain it started has run.
    const index = new TypeaheadIndex({ crm, nms: uisp.services.nms, wait: async () => (await idAnswered.promise, await new Promise((resolve) => setImmediate(resolve))) });
    const answer = await index.client('1008');
    expect(answer).toMatchObject({ complete: false, suggestions: [expect.objectContaining({ value: '1008' })] });
    await held.arrived(1);
    held.open();
  });

  it('a CRM that ignores the search: the whole client list answers instead, said once in the log', async () => {
    const { logger, warnings } = capturedLogger();
    const real = uisp.services.crm;
    const crm = { listClients: () => real.listClients(), getClient: (id: number) => real.getClient(id) };
    const index = new TypeaheadIndex({ crm, nms: uisp.services.nms, logger });
    expect(await index.client('kevin singh')).toMatchObject({ complete: true, suggestions: [expect.objectContaining({ value: '1008' }), expect.objectContaining({ value: '1009' })] });
    expect(await index.client('persaud')).toMatchObject({ complete: true, suggestions: [expect.objectContaining({ value: '1005' })] });
    expect(warnings.filter((w) => w.includes('does not honour its client search'))).toHaveLength(1);
  });

  it('a CRM that answers the search with 404: the whole client list answers instead', async () => {
    const { logger, warnings } = capturedLogger();
    uisp.sim.setFaults([{ method: 'GET', path: CLIENTS, kind: 'status', status: 404, times: 1 }]);
    const index = new TypeaheadIndex({ crm: uisp.services.crm, nms: uisp.services.nms, logger });
    expect(await index.client('marine')).toMatchObject({ complete: true, suggestions: [expect.objectContaining({ label: '#1006 Bartica Marine Supplies' })] });
    expect(listReads().map((r) => r.query.query ?? null)).toEqual(['marine', null]);
    expect(warnings.filter((w) => w.includes('does not honour its client search'))).toHaveLength(1);
  });

  it('a CRM that cannot be read: no suggestions, marked incomplete; the next keystroke asks again', async () => {
    uisp.sim.setFaults([{ method: 'GET', path: `${CLIENTS}*`, kind: 'status', status: 503 }]);
    const index = new TypeaheadIndex({ crm: uisp.services.crm, nms: uisp.services.nms, logger: pino({ level: 'silent' }) });
    expect(await index.client('1008')).toEqual({ query: '1008', suggestions: [], complete: false });
    uisp.sim.setFaults([]);
    expect(await index.client('1008')).toMatchObject({ complete: true, suggestions: [expect.objectContaining({ value: '1008' })] });
  });
});
