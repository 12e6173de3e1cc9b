/**
 * The simulator at 30,000 customers: the generated data set has the shape, loads, and every list
 * answers in linear work (records the handlers visited, never wall time) — it used to scan every service
 * for each site and each client.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { indexesOf } from '../../src/simulator/indexes.js';
import { buildData, generateDataSet, startSimulator, type RunningSimulator, type SimulatorData } from '../../src/simulator/index.js';
import { crm, nms } from './helpers.js';

const CUSTOMERS = 30_000;
const NOW = new Date('2026-11-28T12:00:00Z');

let data: SimulatorData;
let sim: RunningSimulator;
/** Every record the simulator holds, payments aside (no list below reads them). */
let records: number;
/** The records the loader's lookups visited (each service's client, each payment's, each device's site…). */
let loadVisits: number;

beforeAll(async () => {
  data = buildData(generateDataSet({ customers: CUSTOMERS, seed: 7, now: NOW }), NOW);
  records = data.clients.length + data.services.length + data.sites.length + data.devices.length;
  loadVisits = indexesOf(data).visited;
  sim = await startSimulator({ data, world: 'stock' });
}, 120_000);
afterAll(async () => sim?.close());

/** The records visited while answering one request. */
async function visitsOf<T>(ask: () => Promise<T>): Promise<{ answer: T; visited: number }> {
  const before = sim.recordsVisited();
  const answer = await ask();
  return { answer, visited: sim.recordsVisited() - before };
}

describe(`a generated data set of ${CUSTOMERS.toLocaleString('en-US')} customers`, () => {
  it('loads in work linear in what it holds (it used to look each record\'s client and site up by scanning)', () => {
    // Each payment's client is looked up once (its currency): the lookups are counted, and there are no scans.
    expect(loadVisits).toBeGreaterThan(data.payments.length);
    expect(loadVisits).toBeLessThan(5 * (records + data.payments.length));
  });

  it('has the realistic shape: ~1.1 services and ~1.2 devices a client, an endpoint site per live client bound to its service, a year of payments', () => {
    const perClient = (n: number) => n / CUSTOMERS;
    expect(data.clients).toHaveLength(CUSTOMERS);
    expect(perClient(data.services.length)).toBeCloseTo(1.1, 1);
    const live = data.services.filter((s) => s.unmsClientSiteId !== null);
    expect(new Set(live.map((s) => s.unmsClientSiteId)).size).toBe(live.length);
    expect(data.sites.filter((s) => s.identification.type === 'endpoint')).toHaveLength(live.length);
    expect(perClient(data.devices.filter((d) => d.identification.authorized).length)).toBeGreaterThan(1);
    expect(data.devices.filter((d) => !d.identification.authorized).length).toBe(CUSTOMERS / 100);
    expect(data.payments.length).toBeGreaterThan(CUSTOMERS * 6);
    expect(data.payments.at(-1)!.createdDate < '2026-11-28').toBe(true);
    expect(data.payments[0]!.createdDate > '2025-11-27').toBe(true);
  });

  it('answers GET /sites?ucrmDetails=true with every site and its binding, in work linear in the records', async () => {
    const { answer, visited } = await visitsOf(() => nms(sim, 'GET', '/sites?ucrmDetails=true'));
    expect(answer.body).toHaveLength(data.sites.length);
    expect(answer.body.filter((site: { ucrm?: { service: unknown } }) => site.ucrm?.service)).toHaveLength(data.services.filter((s) => s.unmsClientSiteId !== null).length);
    expect(visited).toBeLessThan(5 * records);
  });

  it('answers GET /clients (each with hasSuspendedService) in work linear in the records', async () => {
    const { answer, visited } = await visitsOf(() => crm(sim, 'GET', '/clients'));
    expect(answer.body).toHaveLength(data.clients.filter((c) => !c.isArchived).length);
    expect(answer.body.some((client: { hasSuspendedService: boolean }) => client.hasSuspendedService)).toBe(true);
    expect(visited).toBeLessThan(5 * records);
  });

  it('answers a filtered read by looking at no more than its indexes check, and a by-id read at a handful', async () => {
    const site = data.sites.at(-1)!;
    const filtered = await visitsOf(() => nms(sim, 'GET', `/sites?id=${site.id}&ucrmDetails=true`));
    expect(filtered.answer.body.map((s: { id: string }) => s.id)).toEqual([site.id]);
    // The binding index checks each service once: no site list, no scan per site.
    expect(filtered.visited).toBeLessThan(data.services.length + 10);
    const byId = await visitsOf(() => crm(sim, 'GET', `/clients/${data.clients.at(-1)!.id}`));
    expect(byId.answer.status).toBe(200);
    expect(byId.visited).toBeLessThan(data.services.length + 10);
  });
});
