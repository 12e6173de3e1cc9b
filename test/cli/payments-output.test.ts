/**
 * What `subops payments` shows people: the CSV and --json carry the payment method's name beside its id,
 * SubOps' own operation marker is left out of the note (UISP keeps it), and the terminal table ends a
 * cut client name with "…" (the heading keeps it whole).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fitCell } from '../../src/cli/render.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { runCli } from './support.js';

let sim: RunningSimulator;
beforeEach(async () => {
  sim = await startSimulator();
});
afterEach(async () => sim?.close());

const subops = (argv: string[]) => runCli(argv, { UISP_URL: sim.url, UISP_TOKEN: sim.token }, [sim.token]);
const methodName = (id: string | null) => sim.data.paymentMethods.find((m) => m.id === id)?.name ?? '';
/** A simple CSV line (no quoted cells) as its cells. */
const cells = (line: string) => line.split(',');

describe('the payment method by name', () => {
  it('--csv has methodName right after methodId on every line', async () => {
    const { code, out } = await subops(['payments', '--client-id', '1005', '--csv']);
    expect(code).toBe(0);
    const [header, ...lines] = out.trimEnd().split('\n');
    expect(cells(header!)).toEqual(['id', 'createdDate', 'clientId', 'clientName', 'amount', 'currencyCode', 'methodId', 'methodName', 'note']);
    const byId = new Map(sim.data.payments.map((p) => [p.id, p]));
    expect(lines.length).toBeGreaterThan(10);
    for (const line of lines) {
      const [id, , , , , , methodId, name] = cells(line);
      const payment = byId.get(Number(id))!;
      expect(methodId).toBe(payment.methodId ?? '');
      expect(name).toBe(methodName(payment.methodId));
      expect(name).not.toBe('');
    }
  });

  it('--json has method {id, name}', async () => {
    const { out } = await subops(['payments', '--client-id', '1005', '--json', '--limit', '5']);
    const payments = out
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; id: number; method: { id: string; name: string } })
      .filter((line) => line.type === 'payment');
    expect(payments).toHaveLength(5);
    for (const payment of payments) {
      const methodId = sim.data.payments.find((p) => p.id === payment.id)!.methodId;
      expect(payment.method).toEqual({ id: methodId, name: methodName(methodId) });
    }
  });

  it('a method the CRM no longer lists: its id, and an empty name (null in --json)', async () => {
    sim.data.paymentMethods.splice(0, sim.data.paymentMethods.length, ...sim.data.paymentMethods.filter((m) => m.name !== 'Cash'));
    const cash = sim.data.payments.find((p) => p.clientId === 1005 && p.methodId && !methodName(p.methodId))!;
    const { out } = await subops(['payments', '--client-id', '1005', '--csv']);
    const line = out.split('\n').find((l) => l.startsWith(`${cash.id},`))!;
    expect(cells(line).slice(6, 8)).toEqual([cash.methodId, '']);
    const json = await subops(['payments', '--client-id', '1005', '--json']);
    const object = json.out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: number; method: unknown })
      .find((p) => p.id === cash.id);
    expect(object!.method).toEqual({ id: cash.methodId, name: null });
  });
});

describe('notes as people wrote them', () => {
  it('SubOps’ marker is left out of the note in the CSV, --json, the listing and `client --json`; UISP keeps it', async () => {
    expect((await subops(['payments', 'add', '--client-id', '1001', '--amount', '25', '--method', 'Cash', '--note', 'counter, desk 2'])).code).toBe(0);
    expect((await subops(['payments', 'add', '--client-id', '1001', '--amount', '30', '--key', 'receipt-77'])).code).toBe(0);
    const [withNote, markerOnly] = sim.data.payments.slice(-2);
    expect(withNote!.note).toMatch(/^counter, desk 2\nsubops:op=cli-[0-9a-f]{16}$/);
    expect(markerOnly!.note).toBe('subops:op=receipt-77');

    const csv = (await subops(['payments', '--client-id', '1001', '--csv', '--limit', '2'])).out.trimEnd().split('\n');
    expect(csv[1]).toBe(`${markerOnly!.id},${markerOnly!.createdDate},1001,Marcus Baptiste,30,GYD,,,`);
    expect(csv[2]).toBe(`${withNote!.id},${withNote!.createdDate},1001,Marcus Baptiste,25,GYD,${withNote!.methodId},Cash,"counter, desk 2"`);
    expect(csv.join('\n')).not.toContain('subops:op');

    const json = (await subops(['payments', '--client-id', '1001', '--json', '--limit', '2'])).out
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; note: string | null })
      .filter((line) => line.type === 'payment');
    expect(json.map((p) => p.note)).toEqual([null, 'counter, desk 2']);

    const listing = (await subops(['payments', '--client-id', '1001', '--limit', '2'])).out;
    expect(listing).toContain('counter, desk 2');
    expect(listing).not.toContain('subops:op');

    const card = JSON.parse((await subops(['client', '1001', '--json'])).out) as { lastPayment: { note: string | null } };
    expect(card.lastPayment.note).toBeNull();
    // Still in UISP: that is how a repeated operation is recognised.
    expect(sim.data.payments.filter((p) => p.note?.includes('subops:op='))).toHaveLength(2);
  });
});

describe('the terminal table', () => {
  it('ends a client name cut to the CLIENT column with "…"; the heading names the client in full', async () => {
    const { code, out } = await subops(['payments', '--client-id', '1006', '--limit', '2']);
    expect(code).toBe(0);
    const [heading, , columns, ...rows] = out.split('\n');
    expect(heading).toMatch(/^Payments for client #1006 Bartica Marine Supplies, /);
    expect(columns).toMatch(/^ {5}ID {2}DATE {8}CLIENT {18} {2}/);
    for (const row of rows.slice(0, 2)) expect(row.slice(21, 47)).toBe('#1006 Bartica Marine Su…  ');
  });

  it('leaves a name that fits alone', async () => {
    const { out } = await subops(['payments', '--client-id', '1001', '--limit', '1']);
    expect(out.split('\n')[3]!.slice(21, 47)).toBe('#1001 Marcus Baptiste     ');
  });

  it('fitCell cuts by character, never inside an emoji, and drops the space before "…"', () => {
    expect(fitCell('Marcus Baptiste', 15)).toBe('Marcus Baptiste');
    expect(fitCell('Bartica Marine Supplies', 18)).toBe('Bartica Marine Su…');
    expect(fitCell('Bartica Marine Supplies', 16)).toBe('Bartica Marine…');
    expect(fitCell('🏝️ Island Rentals', 4)).toBe('🏝️…');
    expect(fitCell('😀😀😀😀', 3)).toBe('😀😀…');
  });
});

describe('a client UISP does not know', () => {
  it('listing, --csv and --json say there is no client #99999 (exit 2, as `payments add` does) and list nothing', async () => {
    for (const format of [[], ['--csv'], ['--json']]) {
      const { code, out, err } = await subops(['payments', '--client-id', '99999', ...format]);
      expect(code, format.join(' ')).toBe(2);
      expect(err).toContain('--client-id: No CRM client #99999.');
      if (format[0] === '--json') expect(JSON.parse(out)).toMatchObject({ type: 'error', field: '--client-id', message: expect.stringContaining('No CRM client #99999.') });
      else expect(out).toBe('');
    }
    const add = await subops(['payments', 'add', '--client-id', '99999', '--amount', '10']);
    expect(add.code).toBe(2);
    expect(add.err).toContain('--client-id: No CRM client #99999.');
  });
});
