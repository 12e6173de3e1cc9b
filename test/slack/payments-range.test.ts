/**
 * /payments by client (id or name) and dates, Previous/Next paging with page and range totals, the Filter
 * form and "Export CSV" (files.uploadV2 to the agent's DM), over the simulator and the fake Slack.
 */
import { describe, expect, it } from 'vitest';
import { formatMoney } from '../../src/services/money.js';
import type { PaymentRecord } from '../../src/simulator/records.js';
import { answer } from './answers.js';
import { AGENT, buttons, inputs, press, shown, harnessPerTest, type Harness } from './harness.js';

const { start } = harnessPerTest();


/** The simulator's payments of a client within [from, to], newest first, as the CRM orders them. */
function paymentsOf(harness: Harness, clientId: number, from = '0000', to = '9999'): PaymentRecord[] {
  return harness.uisp.sim.data.payments
    .filter((p) => p.clientId === clientId && p.createdDate.slice(0, 10) >= from && p.createdDate.slice(0, 10) <= to)
    .sort((a, b) => b.createdDate.localeCompare(a.createdDate) || b.id - a.id);
}

/** The name of a payment method, as the CSV shows it beside its id. */
const methodName = (harness: Harness, id: string | null) => harness.uisp.sim.data.paymentMethods.find((m) => m.id === id)?.name ?? '';

const sum = (payments: PaymentRecord[]) => formatMoney(payments.reduce((cents, p) => cents + Math.round(p.amount * 100), 0) / 100, 'GYD');

describe('/payments with a client and a date range', () => {
  it('reads `#id from to`, asks the CRM for that range, and pages with totals for the page and the range', async () => {
    const harness = await start();
    const all = paymentsOf(harness, 1001);
    const from = all.at(-1)!.createdDate.slice(0, 10);
    const to = all[0]!.createdDate.slice(0, 10);
    const inRange = paymentsOf(harness, 1001, from, to);
    expect(inRange.length).toBeGreaterThan(40);

    await harness.command('/payments', `#1001 from ${from} to ${to}`);
    const first = await answer(harness, 0);
    const requests = harness.uisp.sim.requests.filter((r) => r.path === '/crm/api/v1.0/payments');
    // A range through today is asked open-ended (up to now: the CRM's day may already be tomorrow).
    const today = new Intl.DateTimeFormat('en-CA', { timeZone: harness.uisp.config.activation.timeZone }).format(new Date());
    for (const request of requests) expect(request.query).toEqual({ ...request.query, clientId: '1001', createdDateFrom: from, createdDateTo: to === today ? undefined : to });
    const text = shown(first);
    expect(text).toContain(`From ${from} to ${to}  ·  ${inRange.length} payments`);
    expect(text).toContain(`Showing the newest 20 of ${inRange.length}; the totals cover all ${inRange.length}.`);
    expect(text).toContain(`*This page*\\n• *${sum(inRange.slice(0, 20))}* in 20 payments`);
    expect(text).toContain(`*Totals*\\n• *${sum(inRange)}* in ${inRange.length} payments`);
    expect([...buttons(first).keys()]).toEqual(['Next', 'Filter…', 'Export CSV']);

    await press(harness, first, 'Next');
    const second = await answer(harness, 1);
    expect(harness.fake.responses[1]!.body.replace_original).toBe(true);
    const pages = Math.ceil(inRange.length / 20);
    expect(shown(second)).toContain(`Showing payments 21–40 of ${inRange.length} (page 2 of ${pages}); the totals cover all ${inRange.length}.`);
    expect(shown(second)).toContain(`*This page*\\n• *${sum(inRange.slice(20, 40))}* in 20 payments`);
    expect(shown(second)).toContain(`\`${inRange[20]!.createdDate.slice(0, 10)}\`  #1001 Marcus Baptiste  *${formatMoney(inRange[20]!.amount, 'GYD')}*`);
    expect([...buttons(second).keys()]).toEqual(['Previous', 'Next', 'Filter…', 'Export CSV']);

    await press(harness, second, 'Previous');
    expect(shown(await answer(harness, 2))).toContain(`Showing the newest 20 of ${inRange.length}`);
  });

  it('takes a client by name: one match lists its payments, several are listed to pick from', async () => {
    const harness = await start();
    await harness.command('/payments', 'Ravi Persaud');
    expect(shown(await answer(harness, 0))).toContain('Payments of client #1005 Ravi Persaud');

    await harness.command('/payments', 'kevin singh 2000-01-01');
    const list = await answer(harness, 1);
    expect(shown(list)).toContain('2 clients match “kevin singh”');
    await press(harness, list, 'Show payments', AGENT);
    const listing = shown(await answer(harness, 2));
    expect(listing).toContain('Payments of client #1008 Kevin Singh');
    expect(listing).toContain('From 2000-01-01 to');
  });

  it('names bad input before asking UISP, and a name that is no one', async () => {
    const harness = await start();
    const bad = await harness.command('/payments', '#1001 2026-03-31 2026-01-01');
    expect(bad.body.text).toContain('From date (2026-03-31) is after the to date (2026-01-01).');
    expect((await harness.command('/payments', '2026-01-01 2026-02-01 2026-03-01')).body.text).toContain('Give at most two dates: from, then to.');
    expect(harness.uisp.sim.requests).toEqual([]);
    await harness.command('/payments', 'Nobody Here');
    expect((await answer(harness, 0)).text).toBe(':x: No CRM client matches “Nobody Here”.');
  });
});

describe('the Filter form', () => {
  async function openFilter(harness: Harness): Promise<string> {
    await harness.command('/payments', '#1001');
    await press(harness, await answer(harness, 0), 'Filter…');
    const { id, view } = await harness.openedView();
    expect(view.callback_id).toBe('payment_filter');
    expect(JSON.stringify(view)).toContain('"initial_value":"#1001"');
    return id;
  }

  it('checks the fields under each field, then replaces the listing with the filtered one', async () => {
    const harness = await start();
    const id = await openFilter(harness);
    const refused = await harness.submit(id, inputs({ client: '#1001', from: '2026-02-30' }));
    expect(refused.body).toEqual({ response_action: 'errors', errors: { from: 'From date 2026-02-30 is not a real calendar date.' } });

    expect((await harness.submit(id, inputs({ client: '#1005', from: '2000-01-01' }))).body).toBe('');
    const listing = await answer(harness, 1);
    expect(harness.fake.responses[1]!.body.replace_original).toBe(true);
    expect(shown(listing)).toContain('Payments of client #1005 Ravi Persaud');
  });

  it('looks a name up after the ack: several clients go back under the field, one is shown', async () => {
    const harness = await start();
    const id = await openFilter(harness);
    expect((await harness.submit(id, inputs({ client: 'kevin' }))).body.response_action).toBe('update');
    await harness.viewBecomes(id, 'payment_filter', '2 clients match: #1008, #1009. Give the id.');
    await harness.submit(id, inputs({ client: 'bartica' }));
    await harness.viewBecomes(id, 'subops_info', 'The listing now shows these payments.');
    expect(shown(await answer(harness, 1))).toContain('Payments of client #1006 Bartica Marine Supplies');
  });
});

describe('Export CSV', () => {
  it('uploads the whole range as the CLI’s CSV, client names included, to the agent’s DM', async () => {
    const harness = await start();
    await harness.command('/payments', '#1005');
    await press(harness, await answer(harness, 0), 'Export CSV');
    const done = await answer(harness, 1);
    expect(harness.fake.responses[1]!.body.replace_original).toBe(false);
    const expected = paymentsOf(harness, 1005);
    const files = [...harness.fake.files.values()];
    expect(files).toHaveLength(1);
    const [file] = files;
    expect(file!.channel).toBe(`D${AGENT.slice(1)}`);
    expect(file!.filename).toMatch(/^payments-client-1005-2000-01-01-to-\d{4}-\d\d-\d\d\.csv$/);
    const lines = file!.content.trimEnd().split('\n');
    expect(lines[0]).toBe('id,createdDate,clientId,clientName,amount,currencyCode,methodId,methodName,note');
    expect(lines).toHaveLength(expected.length + 1);
    expect(lines[1]).toBe(`${expected[0]!.id},${expected[0]!.createdDate},1005,Ravi Persaud,${expected[0]!.amount},GYD,${expected[0]!.methodId ?? ''},${methodName(harness, expected[0]!.methodId)},${expected[0]!.note ?? ''}`);
    expect(done.text).toContain(`(${expected.length} payments from 2000-01-01 to`);
    expect(done.text).toContain('to your DM with SubOps.');
    expect(harness.fake.callsTo('files.completeUploadExternal')[0]!.args.initial_comment).toContain(`${expected.length} payments`);
  });

  it('says so when Slack refuses the upload, and nothing is sent', async () => {
    const harness = await start();
    harness.fake.failNext('files.getUploadURLExternal', { error: 'missing_scope' });
    await harness.command('/payments', '#1005');
    await press(harness, await answer(harness, 0), 'Export CSV');
    expect((await answer(harness, 1)).text).toContain('Slack did not take the CSV file (missing_scope); nothing was sent.');
    expect(harness.fake.callsTo('files.completeUploadExternal')).toEqual([]);
  });

  it('paging and export follow the access rules', async () => {
    const harness = await start({ env: { ALLOWED_USER_IDS: AGENT } });
    await harness.command('/payments', '#1001');
    const listing = await answer(harness, 0);
    await press(harness, listing, 'Export CSV', 'U0STRANGER');
    await press(harness, listing, 'Next', 'U0STRANGER');
    await harness.settled();
    expect(harness.fake.files.size).toBe(0);
    const refusals = harness.fake.responses.slice(1).map((r) => String(r.body.text));
    expect(refusals).toHaveLength(2);
    for (const refusal of refusals) expect(refusal).toContain('You are not allowed to run SubOps commands');
  });
});
