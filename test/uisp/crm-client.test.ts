/**
 * CrmClient behaviour beyond single requests: paging through GET /payments (limit ≤ 500 + offset, lazy,
 * stops on a short page and when the consumer stops) and the request bodies and filters it builds.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CrmClient, MAX_PAYMENTS_PAGE } from '../../src/services/uisp/crm-client.js';
import type { Payment } from '../../src/services/uisp/schemas.js';
import { bodyOf, CRM_BASE, createHarness, fixtures, JSON_HEADERS, type Harness } from './support.js';

let h: Harness;
beforeEach(() => {
  h = createHarness();
});
afterEach(async () => {
  await h.close();
});

/**
 * Serves `total` payments (ids 1..total) from GET /payments honouring limit/offset, and records the
 * query of every page request.
 */
function servePayments(total: number): Array<Record<string, string>> {
  const pages: Array<Record<string, string>> = [];
  h.pool
    .intercept({ path: (path) => path.startsWith(`${CRM_BASE}/payments?`), method: 'GET' })
    .reply((request) => {
      const query = Object.fromEntries(new URL(request.path, 'https://uisp.test').searchParams);
      pages.push(query);
      const limit = Number(query.limit);
      const offset = Number(query.offset);
      const ids = Array.from({ length: Math.max(0, Math.min(limit, total - offset)) }, (_, i) => offset + i + 1);
      return { statusCode: 200, data: JSON.stringify(ids.map((id) => fixtures.payment(id))), responseOptions: { headers: JSON_HEADERS } };
    })
    .persist();
  return pages;
}

async function collect(iterable: AsyncIterable<Payment>, max = Infinity): Promise<number[]> {
  const ids: number[] = [];
  for await (const payment of iterable) {
    ids.push(payment.id);
    if (ids.length >= max) break;
  }
  return ids;
}

describe('CrmClient.payments()', () => {
  it('pages with limit=500 and a growing offset until a short page arrives', async () => {
    const pages = servePayments(1_203);

    const ids = await collect(h.crm.payments());

    expect(ids).toHaveLength(1_203);
    expect(ids.at(0)).toBe(1);
    expect(ids.at(-1)).toBe(1_203);
    expect(pages.map((q) => [q.limit, q.offset])).toEqual([
      ['500', '0'],
      ['500', '500'],
      ['500', '1000'],
    ]);
  });

  it('never asks for more than 500 per page, even when a larger pageSize is passed', async () => {
    const pages = servePayments(600);

    await collect(h.crm.payments({}, 5_000));

    expect(MAX_PAYMENTS_PAGE).toBe(500);
    expect(pages.map((q) => Number(q.limit))).toEqual([500, 500]);
    expect(pages.map((q) => Number(q.offset))).toEqual([0, 500]);
  });

  it('yields a payment once when a new payment shifts the pages while paging', async () => {
    // Newest first: a payment recorded between page 1 and page 2 pushes payment 3 onto page 2 as well.
    const pages = [[1, 2, 3], [3, 4]];
    h.pool
      .intercept({ path: (path) => path.startsWith(`${CRM_BASE}/payments?`), method: 'GET' })
      .reply(() => ({ statusCode: 200, data: JSON.stringify(pages.shift()!.map((id) => fixtures.payment(id))), responseOptions: { headers: JSON_HEADERS } }))
      .times(2);
    expect(await collect(h.crm.payments({}, 3))).toEqual([1, 2, 3, 4]);
  });

  it('uses a smaller pageSize as given', async () => {
    const pages = servePayments(5);

    expect(await collect(h.crm.payments({}, 2))).toEqual([1, 2, 3, 4, 5]);
    expect(pages.map((q) => [q.limit, q.offset])).toEqual([
      ['2', '0'],
      ['2', '2'],
      ['2', '4'],
    ]);
  });

  it('an exactly full last page costs one extra (empty) request, then stops', async () => {
    const pages = servePayments(1_000);

    expect(await collect(h.crm.payments())).toHaveLength(1_000);
    expect(pages.map((q) => q.offset)).toEqual(['0', '500', '1000']);
  });

  it('no payments: one request, nothing yielded', async () => {
    const pages = servePayments(0);
    expect(await collect(h.crm.payments())).toEqual([]);
    expect(pages).toHaveLength(1);
  });

  it('fetches no further page when the consumer stops early', async () => {
    const pages = servePayments(10_000);

    expect(await collect(h.crm.payments(), 10)).toHaveLength(10);
    expect(pages).toHaveLength(1);
  });

  it('stopping right at the end of a full page does not fetch the next one', async () => {
    const pages = servePayments(10_000);

    expect(await collect(h.crm.payments(), 500)).toHaveLength(500);
    expect(pages).toHaveLength(1);
  });

  it('is lazy: nothing is requested until the first item is pulled', async () => {
    const pages = servePayments(3);
    const iterator = h.crm.payments()[Symbol.asyncIterator]();
    // An eager first page would reach the mock agent before a request made after it ends: make one.
    h.pool.intercept({ path: `${CRM_BASE}/version`, method: 'GET' }).reply(200, { version: '2.4.0' }, { headers: JSON_HEADERS });
    await h.crm.getVersion();
    expect(pages).toHaveLength(0);

    await iterator.next();
    expect(pages).toHaveLength(1);
    await iterator.return?.(undefined);
  });

  it('with pages read ahead: the same payments in the same order, the first page alone, and no page past the window', async () => {
    const pages = servePayments(2_345);
    const ahead = new CrmClient(h.crmHttp, { pagesInFlight: 4 });

    const ids = await collect(ahead.payments());

    expect(ids).toEqual(Array.from({ length: 2_345 }, (_, i) => i + 1));
    const offsets = pages.map((q) => Number(q.offset));
    expect(offsets[0]).toBe(0);
    expect(offsets.slice(0, 5).sort((a, b) => a - b)).toEqual([0, 500, 1000, 1500, 2000]);
    // The short page (offset 2000) ends it; fewer than 4 pages past it were asked for.
    expect(Math.max(...offsets)).toBeLessThan(2000 + 4 * 500);
  });

  it('with pages read ahead, a payment shifted onto the next page is still yielded once', async () => {
    const served = [[1, 2, 3], [3, 4, 5], [6]];
    h.pool
      .intercept({ path: (path) => path.startsWith(`${CRM_BASE}/payments?`), method: 'GET' })
      .reply((request) => {
        const offset = Number(new URL(request.path, 'https://uisp.test').searchParams.get('offset'));
        const ids = served[offset / 3] ?? [];
        return { statusCode: 200, data: JSON.stringify(ids.map((id) => fixtures.payment(id))), responseOptions: { headers: JSON_HEADERS } };
      })
      .persist();
    const ahead = new CrmClient(h.crmHttp, { pagesInFlight: 4 });
    expect(await collect(ahead.payments({}, 3))).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('passes the filters and orders newest first by default', async () => {
    const pages = servePayments(1);

    await collect(h.crm.payments({ clientId: 7, createdDateFrom: '2025-01-01', createdDateTo: '2025-01-31' }));

    expect(pages[0]).toEqual({
      clientId: '7',
      createdDateFrom: '2025-01-01',
      createdDateTo: '2025-01-31',
      order: 'createdDate',
      direction: 'DESC',
      limit: '500',
      offset: '0',
    });
  });

  it('a failing page surfaces as the iterator error after the earlier items', async () => {
    let served = 0;
    h.pool
      .intercept({ path: (path) => path.startsWith(`${CRM_BASE}/payments?`) })
      .reply(() => {
        served++;
        return served === 1
          ? { statusCode: 200, data: JSON.stringify([fixtures.payment(1), fixtures.payment(2)]), responseOptions: { headers: JSON_HEADERS } }
          : { statusCode: 404, data: '' };
      })
      .persist();

    const seen: number[] = [];
    await expect(async () => {
      for await (const payment of h.crm.payments({}, 2)) seen.push(payment.id);
    }).rejects.toMatchObject({ kind: 'not_found' });
    expect(seen).toEqual([1, 2]);
  });
});

describe('CrmClient request shapes', () => {
  const replyWith = (status: number, body: unknown) =>
    h.pool.intercept({ path: () => true, method: () => true }).reply(status, JSON.stringify(body), { headers: JSON_HEADERS });

  it('listServices falls back to the documented GET /clients/services?clientId= when the spec path is 404', async () => {
    replyWith(404, { code: 404, message: 'No route found.' });
    replyWith(200, [fixtures.service(7)]);
    expect((await h.crm.listServices(12)).map((s) => s.id)).toEqual([7]);
    expect(h.calls().map((c) => [c.path, c.searchParams])).toEqual([
      [`${CRM_BASE}/clients/12/services`, {}],
      [`${CRM_BASE}/clients/services`, { clientId: '12' }],
    ]);
  });

  it('createClient without contact details sends no contacts', async () => {
    replyWith(201, fixtures.client(2));
    await h.crm.createClient({ firstName: 'Grace', lastName: 'Hopper' });
    expect(bodyOf(h.calls()[0]!)).toEqual({ clientType: 1, isLead: false, firstName: 'Grace', lastName: 'Hopper' });
  });

  it('listClients sends isArchived as 1/0, the form the CRM documents', async () => {
    replyWith(200, []);
    await h.crm.listClients({ isArchived: true });
    expect(h.calls()[0]!.searchParams).toEqual({ isArchived: '1' });
  });

  it('updateClient PATCHes /clients/{id} with exactly the changes', async () => {
    replyWith(200, fixtures.client(4));
    await h.crm.updateClient(4, { lastName: 'Byron', tags: [1] });
    const [call] = h.calls();
    expect([call!.method, call!.path]).toEqual(['PATCH', `${CRM_BASE}/clients/4`]);
    expect(bodyOf(call!)).toEqual({ lastName: 'Byron', tags: [1] });
  });

  it('createPayment asks the CRM to apply the payment to invoices', async () => {
    replyWith(201, fixtures.payment(9));
    await expect(h.crm.createPayment({ clientId: 1, amount: 10_000, currencyCode: 'GYD', note: 'cash' })).resolves.toMatchObject({ id: 9 });
    const [call] = h.calls();
    expect([call!.method, call!.path]).toEqual(['POST', `${CRM_BASE}/payments`]);
    expect(bodyOf(call!)).toEqual({ clientId: 1, amount: 10_000, currencyCode: 'GYD', note: 'cash', applyToInvoicesAutomatically: true });
  });
});
