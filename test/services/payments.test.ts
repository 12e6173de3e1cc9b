/** Payment rules of the services layer: amounts, date ranges and totals, against the simulator. */
import { afterEach, describe, expect, it } from 'vitest';
import { InputError } from '../../src/services/errors.js';
import { CLIENT_READS_IN_FLIGHT } from '../../src/services/client-names.js';
import { clientNameIn, displayNote, methodNameIn, paymentInputProblems, readPaymentInput, readPaymentQuery, type PaymentsPage } from '../../src/services/payments.js';
import { startUisp, type UispFixture } from '../support/uisp.js';

let uisp: UispFixture | undefined;
afterEach(async () => {
  await uisp?.close();
  uisp = undefined;
});

const limits = { maxAmount: 1_000_000 };

describe('paymentInputProblems', () => {
  it('accepts every two-decimal amount, including those floating point cannot hold exactly', () => {
    for (const amount of [19.99, 0.29, 1.15, 4.35, 10_000, 2500.5, 0.01]) expect(paymentInputProblems({ clientId: 1, amount }, limits)).toEqual({});
  });

  it('names every bad field at once', () => {
    expect(paymentInputProblems({ clientId: 0, amount: 1.005, note: 'x'.repeat(1001) }, limits)).toEqual({
      client: 'Client id must be greater than 0.',
      amount: 'Amount can have at most two decimals.',
      note: 'Note must be at most 1000 characters.',
    });
    expect(paymentInputProblems({ clientId: 1, amount: Number.NaN }, limits).amount).toBe('Amount must be a plain decimal number such as 1500, 1,500 or 1500.50.');
    expect(paymentInputProblems({ clientId: 1, amount: 1_000_000.01 }, limits).amount).toBe('Amount must be at most 1,000,000 (the PAYMENT_MAX_AMOUNT setting).');
  });
});

describe('readPaymentInput and readPaymentQuery (typed text)', () => {
  it('reads ids with #, amounts with thousands separators, and keeps a multi-line note', () => {
    expect(readPaymentInput({ client: '#1001', amount: '1,500.50', method: 'Cash', note: 'line one\r\nline two' }, limits)).toEqual({
      ok: true,
      input: { clientId: 1001, amount: 1500.5, method: 'Cash', note: 'line one\nline two' },
    });
  });

  it('reports every bad field at once, and the configured maximum', () => {
    expect(readPaymentInput({ client: 'Marcus', amount: '501', note: 'bell\u0007' }, { maxAmount: 500 })).toEqual({
      ok: false,
      problems: {
        client: 'Client id must be a positive whole number such as 1001 or #1001.',
        amount: 'Amount must be at most 500 (the PAYMENT_MAX_AMOUNT setting).',
        note: 'Note must not contain control characters (line breaks are fine).',
      },
    });
  });

  it('reads a listing’s filters; from after to is a problem of the from field', () => {
    expect(readPaymentQuery({ client: '#7', from: '2024-01-01', to: '2024-01-31' })).toEqual({ ok: true, query: { clientId: 7, from: '2024-01-01', to: '2024-01-31' } });
    expect(readPaymentQuery({ from: '2024-02-01', to: '2024-01-31' })).toEqual({ ok: false, problems: { from: 'From date (2024-02-01) is after the to date (2024-01-31).' } });
    expect(readPaymentQuery({ to: '2023-02-29' })).toEqual({ ok: false, problems: { to: 'To date 2023-02-29 is not a real calendar date.' } });
  });
});

describe('PaymentService.record and PAYMENT_MAX_AMOUNT', () => {
  it('refuses an amount above the configured maximum before anything is sent', async () => {
    uisp = await startUisp({ env: { PAYMENT_MAX_AMOUNT: '500' } });
    expect(uisp.services.payments.readInput({ client: '1001', amount: '500.01' })).toEqual({ ok: false, problems: { amount: 'Amount must be at most 500 (the PAYMENT_MAX_AMOUNT setting).' } });
    const error = await uisp.services.payments.record({ clientId: 1001, amount: 500.01 }, { operationKey: 'over-max' }).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'InputError', field: 'amount', message: 'Amount must be at most 500 (the PAYMENT_MAX_AMOUNT setting).' });
    expect(uisp.sim.requests).toEqual([]);
    await uisp.services.payments.record({ clientId: 1001, amount: 500 }, { operationKey: 'at-max' });
    expect(uisp.writes()).toEqual(['POST /crm/api/v1.0/payments']);
  });
});

describe('PaymentService date ranges', () => {
  it('refuses an impossible calendar date before asking UISP anything', async () => {
    uisp = await startUisp();
    const error = await uisp.services.payments.summarize({ from: '2024-02-30' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InputError);
    expect(error).toMatchObject({ field: 'from', message: 'From date 2024-02-30 is not a real calendar date.' });
    expect(uisp.sim.requests).toEqual([]);
  });

  it('the default window is exactly 30 days, whatever the server time zone', async () => {
    const zone = process.env.TZ;
    process.env.TZ = 'America/Guyana'; // behind UTC, where parsing the date as UTC midnight loses a day
    try {
      uisp = await startUisp();
      const summary = await uisp.services.payments.summarize({ to: '2026-03-31' });
      expect(summary.query).toMatchObject({ from: '2026-03-01', to: '2026-03-31' });
      expect(uisp.sim.requests.find((r) => r.path.endsWith('/payments'))?.query).toMatchObject({ createdDateFrom: '2026-03-01', createdDateTo: '2026-03-31' });
    } finally {
      process.env.TZ = zone;
    }
  });

  it('totals each currency to the cent over every page', async () => {
    uisp = await startUisp();
    const template = uisp.sim.data.payments[0]!;
    uisp.sim.data.payments.length = 0;
    for (let id = 1; id <= 1_203; id++) {
      uisp.sim.data.payments.push({ ...template, id, clientId: 1001, amount: 0.1, currencyCode: id % 3 ? 'GYD' : 'USD', createdDate: '2026-01-15T10:00:00+0000' });
    }
    const summary = await uisp.services.payments.summarize({ clientId: 1001, show: 5 });
    expect(summary.count).toBe(1_203);
    expect(summary.payments).toHaveLength(5);
    expect(summary.totals).toEqual([
      { currency: 'GYD', amount: 80.2, count: 802 },
      { currency: 'USD', amount: 40.1, count: 401 },
    ]);
  });
});

describe('PaymentService.clientNames', () => {
  it('reads each distinct client once, skips clients in hand, and leaves out one that cannot be read', async () => {
    uisp = await startUisp();
    const template = uisp.sim.data.payments[0]!;
    const payments = [1001, 1001, 1004, 4242, 1006].map((clientId, i) => ({ ...template, id: i + 1, clientId }));
    const known = await uisp.services.crm.getClient(1004);
    const before = uisp.sim.requests.length;
    const names = await uisp.services.payments.clientNames(payments, [known]);
    expect([...names]).toEqual([
      [1001, 'Marcus Baptiste'],
      [1004, 'Shanice Williams'],
      [1006, 'Bartica Marine Supplies'],
    ]);
    expect(uisp.sim.requests.slice(before).map((r) => r.path).sort()).toEqual(['/crm/api/v1.0/clients/1001', '/crm/api/v1.0/clients/1006', '/crm/api/v1.0/clients/4242']);
  });
});

describe('PaymentService.pagesWithClientNames (the CSV export)', () => {
  it('hands pages over in order with their clients named: each distinct client read once, a few at a time, one that cannot be read unnamed', async () => {
    uisp = await startUisp();
    const { payments } = uisp.sim.data;
    const template = payments[0]!;
    // 1 200 payments (three pages) from 20 clients, 12 of them unknown to the CRM.
    const clients = [1001, 1002, 1003, 1004, 1005, 1006, 1008, 1009, ...Array.from({ length: 12 }, (_, i) => 5000 + i)];
    payments.length = 0;
    for (let id = 1; id <= 1_200; id++) payments.push({ ...template, id, clientId: clients[id % clients.length]!, createdDate: `2025-01-01T00:00:${String(id % 60).padStart(2, '0')}+0000` });
    let reading = 0;
    let mostAtOnce = 0;
    const crm = uisp.services.crm;
    const getClient = crm.getClient.bind(crm);
    crm.getClient = async (id) => {
      mostAtOnce = Math.max(mostAtOnce, ++reading);
      try {
        return await getClient(id);
      } finally {
        reading--;
      }
    };
    const before = uisp.sim.requests.length;
    const ids: number[] = [];
    const named = new Map<number, string | null>();
    for await (const page of uisp.services.payments.pagesWithClientNames({ from: '2000-01-01', to: '2099-12-31' })) {
      for (const payment of page.payments) {
        ids.push(payment.id);
        named.set(payment.clientId!, clientNameIn(page, payment));
      }
    }
    expect(ids).toEqual([...payments].sort((a, b) => b.createdDate.localeCompare(a.createdDate) || b.id - a.id).map((p) => p.id));
    expect(named.get(1001)).toBe('Marcus Baptiste');
    expect(named.get(5003)).toBeNull();
    const clientReads = uisp.sim.requests.slice(before).filter((r) => r.path.startsWith('/crm/api/v1.0/clients/'));
    expect(clientReads.map((r) => r.path).sort()).toEqual(clients.map((id) => `/crm/api/v1.0/clients/${id}`).sort());
    expect(mostAtOnce).toBe(CLIENT_READS_IN_FLIGHT);
  });

  it('show stops after that many payments: no further page is read', async () => {
    uisp = await startUisp();
    expect(uisp.sim.data.payments.length).toBeGreaterThan(500);
    const before = uisp.sim.requests.length;
    const pages = [];
    for await (const page of uisp.services.payments.pagesWithClientNames({ from: '2000-01-01', show: 3 })) pages.push(page.payments.length);
    expect(pages).toEqual([3]);
    expect(uisp.sim.requests.slice(before).filter((r) => r.path === '/crm/api/v1.0/payments')).toHaveLength(1);
  });

  it('names each payment method once per export; when the methods cannot be read, pages still come, unnamed', async () => {
    uisp = await startUisp();
    const before = uisp.sim.requests.length;
    const named: (string | null)[] = [];
    for await (const page of uisp.services.payments.pagesWithClientNames({ from: '2000-01-01', to: '2099-12-31' })) for (const payment of page.payments) named.push(methodNameIn(page, payment));
    const methods = new Set(uisp.sim.data.paymentMethods.map((m) => m.name));
    expect(named).toHaveLength(uisp.sim.data.payments.length);
    expect(named.every((name) => name !== null && methods.has(name))).toBe(true);
    expect(uisp.sim.requests.slice(before).filter((r) => r.path === '/crm/api/v1.0/payment-methods')).toHaveLength(1);

    // A fresh service (the first one has the methods cached).
    const fresh = await startUisp();
    try {
      fresh.services.crm.listPaymentMethods = () => Promise.reject(new Error('down'));
      const pages: PaymentsPage[] = [];
      for await (const page of fresh.services.payments.pagesWithClientNames({ from: '2000-01-01', show: 3 })) pages.push(page);
      expect(pages).toHaveLength(1);
      const [page] = pages;
      expect(page!.payments.map((p) => methodNameIn(page!, p))).toEqual([null, null, null]);
    } finally {
      await fresh.close();
    }
  });
});

describe('displayNote', () => {
  it('leaves out SubOps’ own marker line, whatever surrounds it, and nothing else', () => {
    expect(displayNote('counter\nsubops:op=cli-0123456789abcdef')).toBe('counter');
    expect(displayNote('subops:op=V123')).toBeNull();
    expect(displayNote('line one\nline two\n  subops:op=k  ')).toBe('line one\nline two');
    expect(displayNote('paid; see subops:op=x in the log')).toBe('paid; see subops:op=x in the log');
    expect(displayNote('plain')).toBe('plain');
    expect(displayNote('')).toBeNull();
    expect(displayNote(null)).toBeNull();
  });
});
