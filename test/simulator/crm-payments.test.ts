/** CRM payments: the 500-per-page cap (spec §8), paging, date filters, ordering, and recording a payment. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { crm } from './helpers.js';

interface PaymentBody {
  id: number;
  clientId: number;
  createdDate: string;
  amount: number;
  currencyCode: string;
}

let sim: RunningSimulator;
beforeAll(async () => {
  sim = await startSimulator();
});
afterAll(() => sim.close());

const list = async (query: string) => {
  const answer = await crm(sim, 'GET', `/payments?${query}`);
  expect(answer.status).toBe(200);
  return answer.body as PaymentBody[];
};
const day = (p: PaymentBody) => p.createdDate.slice(0, 10);
const CASH = '6efe0fa8-36b2-4dd1-b049-427bffc7d369';

describe('GET /payments', () => {
  it('refuses limit over 500 with 422 on `limit`; 500 is fine', async () => {
    const refused = await crm(sim, 'GET', '/payments?limit=501');
    expect(refused).toMatchObject({ status: 422, body: { code: 422, message: 'Validation failed.', errors: { limit: [expect.stringContaining('500')] } } });
    expect(await list('limit=500')).toHaveLength(500);
  });

  it('pages with limit and offset through every payment, without gaps or repeats', async () => {
    const seen: number[] = [];
    for (let offset = 0; ; offset += 500) {
      const page = await list(`limit=500&offset=${offset}&order=id`);
      seen.push(...page.map((p) => p.id));
      if (page.length < 500) break;
    }
    expect(seen).toHaveLength(sim.data.payments.length);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
  });

  it('orders by createdDate ascending by default, descending with direction=DESC', async () => {
    const ascending = (await list('limit=200')).map(day);
    expect(ascending).toEqual([...ascending].sort());
    const descending = await list('limit=200&direction=DESC');
    expect(descending.map(day)).toEqual([...descending.map(day)].sort().reverse());
    expect(descending[0]!.createdDate >= ascending.at(-1)!).toBe(true);
  });

  it('orders by amount', async () => {
    const amounts = (await list('order=amount&direction=DESC&limit=50')).map((p) => p.amount);
    expect(amounts[0]).toBe(Math.max(...sim.data.payments.map((p) => p.amount)));
    expect(amounts).toEqual([...amounts].sort((a, b) => b - a));
  });

  it('filters by createdDateFrom/createdDateTo, both inclusive', async () => {
    const days = [...new Set(sim.data.payments.map((p) => p.createdDate.slice(0, 10)))].sort();
    const [from, to] = [days[100]!, days[130]!];
    const expected = sim.data.payments.filter((p) => p.createdDate.slice(0, 10) >= from && p.createdDate.slice(0, 10) <= to).length;
    const found = await list(`createdDateFrom=${from}&createdDateTo=${to}`);
    expect(found).toHaveLength(expected);
    expect(found.map(day)).toContain(from);
    expect(found.map(day)).toContain(to);
    expect(found.every((p) => day(p) >= from && day(p) <= to)).toBe(true);
  });

  it('filters by client', async () => {
    const found = await list('clientId=1003');
    expect(found.length).toBeGreaterThan(0);
    expect(found.every((p) => p.clientId === 1003)).toBe(true);
  });

  it.each(['order=method', 'direction=UP', 'limit=-1', 'offset=x', 'createdDateFrom=01/02/2025'])('refuses %s with 422 naming the parameter', async (query) => {
    const answer = await crm(sim, 'GET', `/payments?${query}`);
    expect(answer.status).toBe(422);
    expect(Object.keys(answer.body.errors)).toEqual([query.split('=')[0]]);
  });
});

describe('POST /payments', () => {
  it('records a payment in the client’s currency, dated now (201)', async () => {
    const before = sim.data.payments.length;
    const answer = await crm(sim, 'POST', '/payments', { clientId: 1004, amount: 10000, methodId: CASH, note: 'Paid at office', applyToInvoicesAutomatically: true });
    expect(answer.status).toBe(201);
    expect(answer.body).toMatchObject({ clientId: 1004, amount: 10000, methodId: CASH, currencyCode: 'GYD', note: 'Paid at office' });
    expect(answer.body.id).toBe(Math.max(...sim.data.payments.slice(0, before).map((p) => p.id)) + 1);
    expect(answer.body.createdDate).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+0000$/);
    expect(answer.body).not.toHaveProperty('applyToInvoicesAutomatically');
    const newest = await list('clientId=1004&direction=DESC&limit=1');
    expect(newest[0]!.id).toBe(answer.body.id);
  });

  it.each([
    ['an unknown client', { clientId: 4242, amount: 100 }, 'clientId'],
    ['no client', { amount: 100 }, 'clientId'],
    ['a zero amount', { clientId: 1001, amount: 0 }, 'amount'],
    ['a negative amount', { clientId: 1001, amount: -5 }, 'amount'],
    ['no amount', { clientId: 1001 }, 'amount'],
    ['an unknown method', { clientId: 1001, amount: 100, methodId: '00000000-0000-4000-8000-000000000000' }, 'methodId'],
  ])('refuses %s with 422 naming %s', async (_case, body, field) => {
    const before = sim.data.payments.length;
    const answer = await crm(sim, 'POST', '/payments', body);
    expect(answer).toMatchObject({ status: 422, body: { code: 422, errors: { [field]: [expect.any(String)] } } });
    expect(sim.data.payments).toHaveLength(before);
  });

  it('lists the payment methods with UUID ids', async () => {
    const methods = (await crm(sim, 'GET', '/payment-methods')).body as { id: string; name: string }[];
    expect(methods.map((m) => m.name)).toEqual(['Cash', 'Check', 'Bank transfer', 'Mobile money']);
    expect(methods.every((m) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(m.id))).toBe(true);
  });
});
