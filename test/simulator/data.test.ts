/** The sample data set (what each record is there for) and loading data sets from JSON files. */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadDataFile, sampleData, SimulatorDataError } from '../../src/simulator/index.js';

const NOW = new Date('2026-11-22T15:00:00Z');

describe('sampleData()', () => {
  const data = sampleData(NOW);
  const statusOf = (clientId: number) => data.services.filter((s) => s.clientId === clientId).map((s) => s.status);

  it('has a client for every service state the activation workflow meets', () => {
    expect(statusOf(1001)).toEqual([1]);
    expect(statusOf(1002)).toEqual([6]);
    expect(statusOf(1003)).toEqual([7]);
    expect(statusOf(1004)).toEqual([]);
    expect(statusOf(1005)).toEqual([3]);
    expect(data.services.find((s) => s.status === 3)).toMatchObject({ suspensionReasonId: 1 });
    expect(data.clients.filter((c) => c.isArchived).map((c) => c.id)).toEqual([1007]);
  });

  it('has the plan Standard Monthly with period 37 at GYD 10,000', () => {
    const plan = data.servicePlans.find((p) => p.name === 'Standard Monthly')!;
    expect(plan.periods.find((p) => p.id === 37)).toMatchObject({ period: 1, price: 10000, enabled: true });
    expect(data.clients.every((c) => c.currencyCode === 'GYD')).toBe(true);
  });

  it('has authorized and discovered devices with distinct IPs, MACs and names', () => {
    const authorized = data.devices.filter((d) => d.identification.authorized);
    const discovered = data.devices.filter((d) => !d.identification.authorized);
    expect(authorized.length).toBeGreaterThanOrEqual(6);
    expect(discovered.length).toBeGreaterThanOrEqual(4);
    expect(discovered.every((d) => d.identification.site === null)).toBe(true);
    for (const key of ['ip', 'mac', 'name'] as const) {
      const values = data.devices.map((d) => d.identification[key]?.toLowerCase());
      expect(new Set(values).size, key).toBe(values.length);
    }
    expect(data.devices.some((d) => d.ipAddress.endsWith('/24'))).toBe(true);
    expect(data.devices.some((d) => !d.ipAddress.includes('/'))).toBe(true);
  });

  it('has one primary site and an endpoint site linked to a CRM client', () => {
    expect(data.sites.filter((s) => s.identification.parent === null)).toHaveLength(1);
    const linked = data.sites.filter((s) => s.identification.type === 'endpoint' && s.ucrm?.client);
    expect(linked.length).toBeGreaterThanOrEqual(1);
    for (const site of linked) expect(site.description.ucrmId).toBe(site.ucrm!.client!.id);
  });

  it('has thousands of payments over the last two years, none before its client registered', () => {
    expect(data.payments.length).toBeGreaterThanOrEqual(3000);
    const dates = data.payments.map((p) => Date.parse(p.createdDate));
    expect(Math.max(...dates)).toBeLessThan(Date.parse('2026-11-22T00:00:00Z'));
    expect(Math.min(...dates)).toBeGreaterThanOrEqual(Date.parse('2024-11-22T00:00:00Z'));
    const registered = new Map(data.clients.map((c) => [c.id, Date.parse(c.registrationDate)]));
    expect(data.payments.every((p) => Date.parse(p.createdDate) >= registered.get(p.clientId!)!)).toBe(true);
    expect(new Set(data.payments.map((p) => p.clientId)).size).toBe(data.clients.length);
    expect(new Set(data.payments.map((p) => p.methodId)).size).toBe(data.paymentMethods.length);
  });

  it('is deterministic for a given day, and each call is an independent copy', () => {
    const nextDay = sampleData(new Date('2026-11-23T15:00:00Z'));
    expect(nextDay.payments.at(-1)!.createdDate.slice(0, 10)).toBe('2026-11-22');
    const again = sampleData(NOW);
    expect(again.payments).toEqual(data.payments);
    again.clients[0]!.firstName = 'Changed';
    again.devices[0]!.identification.authorized = false;
    expect(data.clients[0]!.firstName).toBe('Marcus');
    expect(sampleData(NOW).clients[0]!.firstName).toBe('Marcus');
    expect(data.devices[0]!.identification.authorized).toBe(true);
  });
});

describe('loadDataFile()', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'subops-sim-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  const minimal = () => ({
    organization: { currencyCode: 'USD' },
    clients: [{ id: 1, firstName: 'Ada', lastName: 'Lovelace', contacts: [{ email: 'ada@example.org' }] }],
    servicePlans: [{ id: 1, name: 'Basic', periods: [{ id: 10, period: 1, price: 50, enabled: true }] }],
    services: [{ id: 1, clientId: 1, status: 1, servicePlanPeriodId: 10, activeFrom: '2025-01-01', invoicingStart: '2025-01-01' }],
    sites: [{ id: 'root', identification: { name: 'Root' } }],
    devices: [{ identification: { id: 'd1', name: 'ap', authorized: true, site: { id: 'root' } }, ipAddress: '10.0.0.1/24' }],
  });
  const write = async (name: string, content: unknown) => {
    const path = join(dir, name);
    await writeFile(path, typeof content === 'string' ? content : JSON.stringify(content));
    return path;
  };

  it('loads a compact file and fills in UISP defaults and derived fields', async () => {
    const data = await loadDataFile(await write('ok.json', minimal()));
    expect(data.clients[0]).toMatchObject({ currencyCode: 'USD', tags: [], isArchived: false, contacts: [{ id: 1, clientId: 1, email: 'ada@example.org' }] });
    expect(data.services[0]).toMatchObject({ servicePlanName: 'Basic', price: 50, activeFrom: '2025-01-01T00:00:00+0000', suspensionPeriods: [] });
    expect(data.devices[0]!.identification).toMatchObject({ status: 'active', site: { id: 'root', name: 'Root', type: 'site', parent: null } });
    expect(data.payments).toEqual([]);
  });

  it.each([
    ['a mistyped field', (d: ReturnType<typeof minimal>) => Object.assign(d.services[0]!, { servicePlanPeriodId: 'ten' }), 'services.0.servicePlanPeriodId'],
    ['a missing required field', (d: ReturnType<typeof minimal>) => delete (d.devices[0]!.identification as { authorized?: boolean }).authorized, 'devices.0.identification.authorized'],
    ['a bad date', (d: ReturnType<typeof minimal>) => Object.assign(d.services[0]!, { activeFrom: 'soon' }), 'services.0.activeFrom'],
    ['an unknown client', (d: ReturnType<typeof minimal>) => Object.assign(d.services[0]!, { clientId: 99 }), 'services.0.clientId'],
    ['an unknown plan period', (d: ReturnType<typeof minimal>) => Object.assign(d.services[0]!, { servicePlanPeriodId: 99 }), 'services.0.servicePlanPeriodId'],
    ['an unknown site', (d: ReturnType<typeof minimal>) => Object.assign(d.devices[0]!.identification, { site: { id: 'nowhere' } }), 'devices.0.identification.site.id'],
    ['a duplicate id', (d: ReturnType<typeof minimal>) => d.clients.push({ ...d.clients[0]!, contacts: [] }), 'clients.1.id'],
  ])('names the file and the field for %s', async (_case, spoil, field) => {
    const content = minimal();
    spoil(content);
    const path = await write('bad.json', content);
    const error = await loadDataFile(path).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SimulatorDataError);
    expect((error as SimulatorDataError).message).toMatch(new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: ${field.replace(/\./g, '\\.')}: `));
    expect((error as SimulatorDataError).field).toBe(field);
  });

  it('says when the file is not JSON or cannot be read', async () => {
    const path = await write('broken.json', '{"clients": [');
    await expect(loadDataFile(path)).rejects.toThrow(`${path}: (file): not valid JSON`);
    await expect(loadDataFile(join(dir, 'absent.json'))).rejects.toThrow(/absent\.json: \(file\): cannot be read/);
  });

  it('generates a payment history from a spec', async () => {
    const content = { ...minimal(), paymentMethods: [{ id: 'cash', name: 'Cash' }], paymentHistory: { seed: 1, count: 25, days: 30, amounts: [50] } };
    const data = await loadDataFile(await write('history.json', content), NOW);
    expect(data.payments).toHaveLength(25);
    expect(data.payments[0]).toMatchObject({ id: 1, clientId: 1, methodId: 'cash', amount: 50, currencyCode: 'USD' });
  });
});
