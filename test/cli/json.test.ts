/**
 * `--json` prints SubOps' documented objects (README "JSON output"), never raw UISP records: the same
 * field names in every command, every key always present.
 */
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { runCli } from './support.js';

let sim: RunningSimulator;
beforeEach(async () => {
  await sim?.close();
  sim = await startSimulator();
});
afterAll(async () => sim?.close());

const subops = (argv: string[]) => runCli(argv, { UISP_URL: sim.url, UISP_TOKEN: sim.token }, [sim.token]);
const lines = (out: string) => out.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
const keys = (value: unknown) => Object.keys(value as object).sort();

const CLIENT = ['id', 'name'];
const SERVICE = ['clientId', 'id', 'name', 'status', 'statusLabel'];
const PAYMENT = ['amount', 'clientId', 'createdDate', 'currency', 'id', 'method', 'note'];
const DEVICE = ['authorized', 'id', 'ip', 'list', 'mac', 'name', 'siteId'];

describe('--json', () => {
  it('activate: one step object per event, the result last with client, service, device and site objects', async () => {
    const events = lines((await subops(['activate', '--device', '10.20.1.88', '--first-name', 'ada', '--last-name', 'lovelace', '--json'])).out);
    const result = events.at(-1)!;
    for (const step of events.slice(0, -1)) expect(keys(step)).toEqual(['ids', 'message', 'status', 'step', 'type']);
    expect(keys(result)).toEqual(['client', 'crmClientUrl', 'device', 'done', 'duplicates', 'error', 'leftAlone', 'message', 'movedFrom', 'notDone', 'outcome', 'service', 'site', 'type']);
    expect(keys(result.client)).toEqual(CLIENT);
    expect(keys(result.service)).toEqual(SERVICE);
    expect(keys(result.device)).toEqual(DEVICE);
    expect(keys(result.site)).toEqual(['id', 'name']);
    expect(result).toMatchObject({ type: 'result', outcome: 'activated', client: { name: 'Ada Lovelace' }, service: { status: 1, statusLabel: 'Active' }, error: null });
    expect((result.service as { clientId: number }).clientId).toBe((result.client as { id: number }).id);
  });

  it('suspend / unsuspend: the action, the outcome, the service before and after', async () => {
    const [done] = lines((await subops(['suspend', '--service-id', '101', '--reason', '2', '--json', '--yes'])).out);
    expect(keys(done)).toEqual(['action', 'after', 'message', 'outcome', 'reason', 'refusal', 'service', 'type']);
    expect(done).toMatchObject({
      type: 'suspension',
      action: 'suspend',
      outcome: 'done',
      refusal: null,
      service: { id: 101, clientId: 1001, name: 'Standard Monthly', status: 1, statusLabel: 'Active' },
      after: { id: 101, status: 3, statusLabel: 'Suspended' },
      reason: { id: 2, name: 'Customer request' },
    });
    const refused = await subops(['suspend', '--service-id', '102', '--reason', '2', '--json']);
    expect(refused.code).toBe(1);
    expect(lines(refused.out)[0]).toMatchObject({ outcome: 'refused', refusal: 'not-active', service: { id: 102, statusLabel: 'Quoted' }, after: null });
    expect(lines((await subops(['unsuspend', '--service-id', '105', '--json'])).out)[0]).toMatchObject({ type: 'suspension', action: 'unsuspend', outcome: 'already', reason: null });
  });

  it('payments: one payment object per line, method named, no raw CRM fields; the totals per currency last', async () => {
    const listed = lines((await subops(['payments', '--client-id', '1001', '--json'])).out);
    const payments = listed.slice(0, -1);
    const ofClient = sim.data.payments.filter((p) => p.clientId === 1001);
    expect(payments.length).toBe(ofClient.length);
    for (const payment of payments) expect(keys(payment)).toEqual([...PAYMENT, 'type'].sort());
    for (const payment of payments) expect(payment.type).toBe('payment');
    // The text listing's Totals: per currency, the sum to the cent and the count.
    const currencies = [...new Set(ofClient.map((p) => p.currencyCode ?? '?'))].sort();
    expect(listed.at(-1)).toEqual({
      type: 'totals',
      count: ofClient.length,
      totals: currencies.map((currency) => {
        const paid = ofClient.filter((p) => (p.currencyCode ?? '?') === currency);
        return { currency, amount: Math.round(paid.reduce((sum, p) => sum + p.amount * 100, 0)) / 100, count: paid.length };
      }),
    });
    const withMethod = payments.find((p) => p.method !== null)!;
    const method = sim.data.paymentMethods.find((m) => m.id === (withMethod.method as { id: string }).id)!;
    expect(withMethod.method).toEqual({ id: method.id, name: method.name });
  });

  it('every object every command prints has a type', async () => {
    const runs = [
      ['activate', '--device', '10.20.1.88', '--first-name', 'ada', '--last-name', 'lovelace', '--json'],
      ['suspend', '--service-id', '101', '--reason', '2', '--json', '--yes'],
      ['unsuspend', '--service-id', '101', '--json', '--yes'],
      ['payments', '--json'],
      ['payments', 'add', '--client-id', '1006', '--amount', '5', '--json'],
      ['reasons', '--json'],
      ['client', '1005', '--json'],
      ['device', '10.20.1.88', '--json'],
      ['digest', '--json'],
      ['duplicates', 'remove', '--client-id', '1004', '--service-id', '9999', '--yes', '--json'],
      ['config', 'check', '--cli', '--json'],
    ];
    for (const argv of runs) {
      const printed = lines((await subops(argv)).out);
      expect(printed.length, argv.join(' ')).toBeGreaterThan(0);
      for (const object of printed) expect(typeof object.type, `${argv.join(' ')}: ${JSON.stringify(object).slice(0, 80)}`).toBe('string');
    }
  });

  it('payments add: the recorded payment and its client', async () => {
    const [recorded] = lines((await subops(['payments', 'add', '--client-id', '1006', '--amount', '2500', '--method', 'cash', '--note', 'counter', '--json'])).out);
    expect(keys(recorded)).toEqual(['alreadyRecorded', 'client', 'payment', 'type']);
    expect(recorded!.type).toBe('recorded-payment');
    expect(keys(recorded!.payment)).toEqual(PAYMENT);
    expect(recorded).toMatchObject({ client: { id: 1006, name: 'Bartica Marine Supplies' }, payment: { clientId: 1006, amount: 2500, currency: 'GYD', method: { name: 'Cash' }, note: 'counter' } });
  });
});
