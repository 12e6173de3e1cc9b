/** /payments listings (ephemeral, with totals per currency) and /payments add end to end. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AGENT, AUDIT_CHANNEL, CHANNEL, inputs, preselected, selected, shown, startHarness, type Harness } from './harness.js';

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(async () => {
  await h.close();
});

async function ephemeralAnswer(): Promise<Record<string, unknown>> {
  await h.settled();
  expect(h.fake.responses).toHaveLength(1);
  return h.fake.responses[0]!.body;
}

const paymentPages = () => h.uisp.sim.requests.filter((r) => r.method === 'GET' && r.path === '/crm/api/v1.0/payments');

describe('/payments', () => {
  it('shows the latest payments with totals per currency, only to the agent, paging at most 500 at a time', async () => {
    expect((await h.command('/payments')).body).toBe('');
    const answer = await ephemeralAnswer();
    expect(answer.response_type).toBe('ephemeral');
    const text = shown(answer);
    expect(text).toContain('Latest payments');
    expect(text).toMatch(/\*Totals\*\\n• \*GYD [\d,]+\.\d\d\* in \d+ payments?/);
    expect(text).toMatch(/`\d{4}-\d\d-\d\d` {2}#\d+ [A-Z]/);
    expect(paymentPages().length).toBeGreaterThan(0);
    for (const page of paymentPages()) expect(Number(page.query.limit)).toBeLessThanOrEqual(500);
    expect(h.fake.callsTo('chat.postMessage')).toEqual([]);
  });

  it('shows one client’s payments, totalling every page of a long history', async () => {
    const data = h.uisp.sim.data;
    const template = data.payments.find((p) => p.clientId === 1004)!;
    const nextId = Math.max(...data.payments.map((p) => p.id)) + 1;
    // 600 more payments, half of them in USD: more than one page of 500.
    for (let i = 0; i < 600; i++) data.payments.push({ ...structuredClone(template), id: nextId + i, amount: 1.25, currencyCode: i % 2 ? 'USD' : 'GYD' });
    await h.command('/payments', '1004');
    const text = shown(await ephemeralAnswer());
    expect(text).toContain('Payments of client #1004 Shanice Williams');
    expect(text).toContain('*USD 375.00* in 300 payments');
    expect(paymentPages().length).toBeGreaterThanOrEqual(2);
    for (const page of paymentPages()) {
      expect(page.query.clientId).toBe('1004');
      expect(Number(page.query.limit)).toBeLessThanOrEqual(500);
    }
  });

  it('a second /payments reads only the payments page: client names and payment methods come from the cache', async () => {
    await h.command('/payments');
    await h.settled();
    const first = h.uisp.sim.requests.length;
    const clientReads = h.uisp.sim.requests.filter((r) => /^\/crm\/api\/v1\.0\/clients\/\d+$/.test(r.path)).length;
    expect(clientReads).toBeGreaterThan(1);
    expect(h.uisp.sim.requests.filter((r) => r.path === '/crm/api/v1.0/payment-methods')).toHaveLength(1);

    await h.command('/payments');
    await h.settled();
    expect(h.uisp.sim.requests.slice(first).map((r) => `${r.method} ${r.path}`)).toEqual(['GET /crm/api/v1.0/payments']);
    expect(shown(h.fake.responses[1]!.body)).toBe(shown(h.fake.responses[0]!.body));
  });

  it('agents asking at the same time share the reads of each client name and of the payment methods', async () => {
    await Promise.all([h.command('/payments'), h.command('/payments'), h.command('/payments')]);
    await h.settled();
    const reads = h.uisp.sim.requests.filter((r) => r.path !== '/crm/api/v1.0/payments').map((r) => r.path);
    expect(reads.length).toBeGreaterThan(1);
    expect(new Set(reads).size).toBe(reads.length);
    expect(h.fake.responses).toHaveLength(3);
  });

  it('takes a client id written #1001', async () => {
    await h.command('/payments', '#1001');
    expect(shown(await ephemeralAnswer())).toContain('Payments of client #1001 Marcus Baptiste');
    for (const page of paymentPages()) expect(page.query.clientId).toBe('1001');
  });

  it('names a bad argument, and an unknown client, ephemerally', async () => {
    const reply = await h.command('/payments', '#1001 2024-02-30');
    expect(reply.body.response_type).toBe('ephemeral');
    expect(reply.body.text).toContain('From date 2024-02-30 is not a real calendar date. You typed `#1001 2024-02-30`.');
    expect(h.uisp.sim.requests).toEqual([]);

    await h.command('/payments', '424242');
    expect(shown(await ephemeralAnswer())).toContain('No CRM client #424242.');
  });
});

describe('/payments add', () => {
  async function openForm(text = 'add'): Promise<{ id: string; cashId: string }> {
    await h.command('/payments', text);
    const { id } = await h.openedView();
    await h.fake.waitFor('views.update', (call) => JSON.stringify(call.args.view).includes('"block_id":"method"'));
    const cashId = h.uisp.sim.data.paymentMethods.find((m) => m.name === 'Cash')!.id;
    return { id, cashId };
  }

  it('records a payment with the CRM’s method, shows it in the modal and the channel, and audits it', async () => {
    const { id, cashId } = await openForm('add 1001');
    expect(JSON.stringify(h.fake.views.get(id))).toContain(preselected('1001'));
    const reply = await h.submit(id, { ...inputs({ client: '1001', amount: '2,500.00', note: 'Paid at the <!channel> office' }), method: selected('value', cashId) });
    expect(reply.body.response_action).toBe('update');

    const recorded = JSON.stringify(await h.viewBecomes(id, 'subops_info', 'Recorded payment'));
    expect(recorded).toContain('GYD 2,500.00');
    const posts = h.uisp.sim.requests.filter((r) => r.method === 'POST');
    expect(posts.map((r) => [r.path, r.body])).toEqual([['/crm/api/v1.0/payments', expect.objectContaining({ clientId: 1001, amount: 2500, methodId: cashId, note: `Paid at the <!channel> office\nsubops:op=${id}` })]]);

    await h.fake.waitFor('chat.postMessage', (call) => call.args.channel === AUDIT_CHANNEL);
    const [message] = h.fake.messages(CHANNEL);
    expect(message!.text).toContain(`<@${AGENT}> recorded payment #`);
    expect(message!.text).toContain('*GYD 2,500.00* by Cash for client #1001 Marcus Baptiste');
    expect(shown(message!)).toContain('Note: Paid at the &lt;!channel&gt; office');
    expect(shown(message!)).not.toContain('<!channel>');
    expect(h.logs.find((l) => l.audit)).toMatchObject({ action: 'payment', result: 'recorded', targets: { clientId: 1001, methodId: cashId } });
  });

  it('returns bad fields under the field before anything is sent', async () => {
    const { id } = await openForm();
    const before = h.uisp.sim.requests.length;
    expect((await h.submit(id, inputs({ client: '1001', amount: '-5' }))).body).toEqual({ response_action: 'errors', errors: { amount: 'Amount must be positive: negative amounts are not accepted.' } });
    expect((await h.submit(id, inputs({ client: '1001', amount: '10,5' }))).body.errors).toEqual({ amount: 'Amount must be a plain decimal number such as 1500, 1,500 or 1500.50.' });
    expect((await h.submit(id, inputs({ client: 'Marcus', amount: '10' }))).body.errors).toEqual({ client: 'Client id must be a positive whole number such as 1001 or #1001.' });
    // Every bad field at once, not one per round.
    expect((await h.submit(id, inputs({ client: 'Marcus', amount: '0' }))).body.errors).toEqual({
      client: 'Client id must be a positive whole number such as 1001 or #1001.',
      amount: 'Amount must be greater than 0.',
    });
    expect(h.uisp.sim.requests.length).toBe(before);
  });

  it('shows an unknown client under the client field after the lookup, and records nothing', async () => {
    const { id } = await openForm();
    await h.submit(id, inputs({ client: '424242', amount: '10' }));
    await h.viewBecomes(id, 'payment_form', 'No CRM client #424242.');
    expect(h.uisp.writes()).toEqual([]);
    expect(h.logs.some((l) => l.audit)).toBe(false);
  });
});
