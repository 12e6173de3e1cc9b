/** /payments and /payments add through the terminal chat. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { uispDateTime } from '../../src/simulator/records.js';
import { startE2e, type E2e } from './harness.js';

let e2e: E2e;
beforeEach(async () => {
  e2e = await startE2e();
});
afterEach(async () => {
  await e2e.close();
});

describe('/payments in the chat', () => {
  it('lists a client’s payments with a total per currency, only to the agent, writing nothing', async () => {
    // Client 1004's history replaced by five known payments from yesterday, in two currencies.
    const data = e2e.playground.simulator.data;
    const template = data.payments.find((p) => p.clientId === 1004)!;
    const yesterday = uispDateTime(new Date(Date.now() - 24 * 3600 * 1000));
    data.payments = data.payments.filter((p) => p.clientId !== 1004);
    const nextId = Math.max(...data.payments.map((p) => p.id)) + 1;
    [10_000, 2_500.5, 1.25, 1.25, 1.25].forEach((amount, i) => {
      data.payments.push({ ...structuredClone(template), id: nextId + i, amount, createdDate: yesterday, currencyCode: amount === 1.25 ? 'USD' : 'GYD' });
    });

    const { transcript } = await e2e.chat(['/payments 1004']);
    expect(transcript).toContain('(only you) SubOps: Payments of client #1004 Shanice Williams');
    expect(transcript).toMatch(/From \d{4}-\d\d-\d\d to \d{4}-\d\d-\d\d {2}· {2}5 payments/);
    expect(transcript).toMatch(/`\d{4}-\d\d-\d\d` {2}#1004 Shanice Williams {2}USD 1\.25/);
    expect(transcript).toContain('Totals\n                   • GYD 12,500.50 in 2 payments\n                   • USD 3.75 in 3 payments');
    expect(e2e.writes()).toEqual([]);
    expect(e2e.playground.fake.callsTo('chat.postMessage')).toEqual([]);
  });
});

describe('/payments add in the chat', () => {
  it('records a payment after an amount the app refused, and reports it in the channel and the audit trail', async () => {
    const { result, transcript } = await e2e.chat(['/payments add', '1001', '-5', 'cash', 'Paid at the counter', '2,500.00']);
    expect(result).toEqual({ ok: true });
    expect(transcript).toContain('│ Method (optional)\n│     1. Cash\n│     2. Check');
    // The app's error shown under the field, and only that field asked again.
    expect(transcript).toContain('  ⚠️ Amount: Amount must be positive: negative amounts are not accepted.\n  Amount [-5]: 2,500.00');
    expect(transcript).toMatch(/┌ Payment recorded\n│ ✅ Recorded payment #\d+ of GYD 2,500\.00 by Cash for client #1001 Marcus Baptiste\./);
    expect(transcript).toMatch(/#support {2}SubOps: 💰 @agent recorded payment #\d+ of GYD 2,500\.00 by Cash for client #1001 Marcus Baptiste\.\n {18}Note: Paid at the counter/);
    expect(transcript).toContain('#subops-audit  SubOps: ✅ payment by @agent: recorded');

    const cash = e2e.playground.simulator.data.paymentMethods.find((m) => m.name === 'Cash')!;
    const posts = e2e.playground.simulator.requests.filter((r) => r.method !== 'GET');
    expect(posts.map((r) => [r.method, r.path, r.body])).toEqual([
      ['POST', '/crm/api/v1.0/payments', expect.objectContaining({ clientId: 1001, amount: 2500, methodId: cash.id, note: expect.stringMatching(/^Paid at the counter\nsubops:op=V\w+$/) })],
    ]);
  });
});
