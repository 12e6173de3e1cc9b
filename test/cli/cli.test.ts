/**
 * The `subops` CLI in-process against the UISP simulator: what the user sees, the exit codes, and what
 * was (or was not) sent to UISP.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { loadDataFile, startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { runCli } from './support.js';

let sim: RunningSimulator;
const TOKEN = 'cli-SECRET-token-5e1f';

beforeEach(async () => {
  await sim?.close();
  sim = await startSimulator({ token: TOKEN });
});
afterAll(async () => sim?.close());

const subops = (argv: string[], env: Record<string, string> = { UISP_URL: sim.url, UISP_TOKEN: TOKEN }) => runCli(argv, env, [TOKEN]);

const writes = () => sim.requests.filter((r) => r.method !== 'GET').map((r) => `${r.method} ${r.path}`);

describe('subops activate', () => {
  it('prints every step as it happens, ending with the manual-link reminder', async () => {
    const { code, out } = await subops(['activate', '--device', '10.20.1.88', '--first-name', 'ada', '--last-name', 'lovelace']);
    expect(code).toBe(0);
    const lines = out.trim().split('\n');
    expect(lines.slice(0, 6).map((l) => l.split(/\s+/).slice(0, 2).join(' '))).toEqual([
      '✓ discover',
      '✓ client',
      '✓ service',
      '✓ site',
      '✓ authorize',
      '! manual-link',
    ]);
    expect(lines[1]).toMatch(/Created client #\d+ Ada Lovelace/);
    expect(lines[5]).toContain(`${sim.url}/crm/client/`);
    expect(lines.at(-1)).toMatch(/^OK: Activated Ada Lovelace/);
  });

  it('--json prints one JSON object per event, the result last', async () => {
    const { code, out } = await subops(['activate', '--device', '10.20.1.21', '--first-name', 'Marcus', '--last-name', 'Baptiste', '--json']);
    expect(code).toBe(0);
    const events = out.trim().split('\n').map((line) => JSON.parse(line));
    expect(events.map((e) => e.step ?? e.type)).toEqual(['discover', 'client', 'service', 'site', 'authorize', 'manual-link', 'result']);
    expect(events.at(-1)).toMatchObject({ outcome: 'already-activated', service: { id: 101 } });
  });

  it('--dry-run prints the plan and writes nothing', async () => {
    const { code, out } = await subops(['activate', '--device', '10.20.1.51', '--first-name', 'priya', '--last-name', 'ramnarine', '--dry-run']);
    expect(code).toBe(0);
    expect(out).toContain('Would delete Quoted service #102, then create an Active service');
    expect(out).toContain('PLAN: Dry run: nothing was written.');
    expect(writes()).toEqual([]);
  });

  it('bad input: exit 2, every bad flag named, nothing sent to UISP', async () => {
    const { code, err } = await subops(['activate', '--device', '10.20.1.88', '--last-name', 'l0velace', '--email', 'nope']);
    expect(code).toBe(2);
    expect(err).toContain('--first-name: Enter the first name.');
    expect(err).toContain('--last-name: Last name may contain only letters');
    expect(err).toContain('--email: Email address must be a valid address such as name@example.org.');
    expect(sim.requests).toEqual([]);
  });

  it('an unknown flag is a usage error naming it', async () => {
    const { code, err } = await subops(['activate', '--devise', 'x']);
    expect(code).toBe(2);
    expect(err).toContain("'--devise'");
    expect(sim.requests).toEqual([]);
  });

  it('device not found: exit 1 and says nothing was changed', async () => {
    const { code, out } = await subops(['activate', '--device', 'no-such-cpe', '--first-name', 'a', '--last-name', 'b']);
    expect(code).toBe(1);
    expect(out).toContain('✗ discover     Device not found: no device with name "no-such-cpe"');
    expect(out).toContain('Done: nothing was changed');
    expect(writes()).toEqual([]);
  });

  it('a tower AP is refused whatever is confirmed: exit 1, names device, role and site, nothing written', async () => {
    const { code, out } = await subops(['activate', '--device', '10.20.1.2', '--first-name', 'ada', '--last-name', 'lovelace', '--yes']);
    expect(code).toBe(1);
    expect(out).toContain('diamond-ap1 is network infrastructure (role ap) on site "Diamond Tower", not a subscriber station');
    expect(writes()).toEqual([]);
  });

  it("a station on another client's site: exit 1 naming the site and its client and --yes; nothing written", async () => {
    const { code, out } = await subops(['activate', '--device', '10.20.1.77', '--first-name', 'ada', '--last-name', 'lovelace']);
    expect(code).toBe(1);
    expect(out).toContain('✗ authorize    cpe-hope is authorized on site "Leon Hope" (client #1007 Leon Hope), which is not this client\'s site: moving it needs your explicit confirmation. Nothing was changed.');
    expect(out).toContain("--yes moves the device off that site onto this client's site.");
    expect(writes()).toEqual([]);
  });

  it('a plan that deletes a Quoted service: exit 1 naming it and --yes, nothing written; --yes deletes it', async () => {
    const refused = await subops(['activate', '--device', '10.20.1.51', '--first-name', 'priya', '--last-name', 'ramnarine']);
    expect(refused.code).toBe(1);
    expect(refused.out).toContain('✗ service      This activation deletes Quoted service #102 of client #1002 Priya Ramnarine before creating the Active one: deleting needs your explicit confirmation. Nothing was changed.');
    expect(refused.out).toContain('--yes confirms deleting those services.');
    expect(writes()).toEqual([]);
    const { code, out } = await subops(['activate', '--device', '10.20.1.51', '--first-name', 'priya', '--last-name', 'ramnarine', '--yes', '--json']);
    expect(code).toBe(0);
    expect(JSON.parse(out.trim().split('\n').at(-1)!)).toMatchObject({ outcome: 'activated', done: expect.arrayContaining(['Deleted Quoted service #102']) });
    expect(writes()).toContain('DELETE /crm/api/v1.0/clients/services/102');
  });

  it('--yes moves it: the result says where it came from, and client 1007 and its site are not written', async () => {
    const { code, out } = await subops(['activate', '--device', '10.20.1.77', '--first-name', 'ada', '--last-name', 'lovelace', '--yes', '--json']);
    expect(code).toBe(0);
    const result = JSON.parse(out.trim().split('\n').at(-1)!);
    expect(result).toMatchObject({ outcome: 'activated', movedFrom: { site: { name: 'Leon Hope' }, client: { id: 1007, name: 'Leon Hope' } } });
    expect(result.message).toContain('device cpe-hope (moved from "Leon Hope" (client #1007 Leon Hope))');
    expect(writes().filter((w) => w.includes('/authorize'))).toHaveLength(1);
    expect(writes().filter((w) => w.includes('1007') || w.includes('4d5e6f7a-8b9c-4dae-9f10-3b4c5d6e7f89'))).toEqual([]);
  });

  it('a --client-id of another name: exit 2 with the id and the CRM name; nothing written', async () => {
    const { code, out } = await subops(['activate', '--device', '10.20.3.12', '--first-name', 'ada', '--last-name', 'lovelace', '--client-id', '1004']);
    expect(code).toBe(2);
    expect(out).toContain('CRM client #1004 is Shanice Williams, not Ada Lovelace.');
    expect(writes()).toEqual([]);
  });

  it('a name matching only an archived client is reported with its id; ambiguous names list the candidates', async () => {
    const archived = await subops(['activate', '--device', '10.20.1.88', '--first-name', 'Leon', '--last-name', 'Hope']);
    expect(archived.code).toBe(1);
    expect(archived.out).toContain('The CRM has this client archived: #1007 Leon Hope (leon.hope@example.com');
    const ambiguous = await subops(['activate', '--device', '10.20.1.88', '--first-name', 'kevin', '--last-name', 'singh']);
    expect(ambiguous.code).toBe(1);
    expect(ambiguous.out).toContain('  - #1008 Kevin Singh (kevin.singh@example.com, +592 677 1208, 19 Parika Backdam, Parika)');
    expect(ambiguous.out).toContain('  - #1009 Kevin Singh (ksingh.berbice@example.com, +592 688 5530, 2 Canje Road, New Amsterdam)');
    expect(writes()).toEqual([]);
  });

  it('with --simulator runs against the embedded simulator and says so on stderr and at the end of stdout', async () => {
    const { code, err, out } = await subops(['activate', '--device', '10.20.1.88', '--first-name', 'ada', '--last-name', 'lovelace', '--simulator'], {});
    expect(code).toBe(0);
    expect(err).toMatch(/^Simulated: the embedded UISP simulator answers/);
    expect(out).toContain('Manual step');
    expect(out).toMatch(/\nSimulated: the embedded UISP simulator answered, not UISP .*\n$/);
  });

  it('bad configuration: exit 2 naming every variable, before connecting', async () => {
    const { code, err } = await subops(['reasons'], { UISP_URL: 'not a url', SERVICE_PRICE: 'free', UISP_TOKEN: TOKEN });
    expect(code).toBe(2);
    expect(err).toMatch(/UISP_URL must be an http\(s\) URL/);
    expect(err).toMatch(/SERVICE_PRICE must be a number/);
    expect(sim.requests).toEqual([]);
  });
});

describe('subops suspend / unsuspend / reasons', () => {
  it('suspends by reason name and shows the status change', async () => {
    const { code, out } = await subops(['suspend', '--service-id', '101', '--reason', 'non-payment', '--yes']);
    expect(code).toBe(0);
    expect(out).toMatch(/Suspended service #101 .*of client #1001 — reason: Non-payment\. Status: Active → Suspended\./);
    expect(sim.requests.find((r) => r.method === 'PATCH')).toMatchObject({ path: '/crm/api/v1.0/clients/services/101/suspend', body: { suspensionReasonId: 1 } });
  });

  it('an unknown reason is exit 2 naming --reason, and nothing is suspended', async () => {
    const { code, err } = await subops(['suspend', '--service-id', '101', '--reason', 'vacation']);
    expect(code).toBe(2);
    expect(err).toMatch(/--reason: No suspension reason "vacation"\. Known reasons: 1 Non-payment/);
    expect(writes()).toEqual([]);
  });

  const fastRetries = () => ({ UISP_URL: sim.url, UISP_TOKEN: TOKEN, UISP_WRITE_BACKOFF_MS: '1' });

  it('a write UISP keeps refusing with 503 is retried, read back, and reported as not seen yet (it may still land)', async () => {
    sim.setFaults([{ method: 'PATCH', path: /\/suspend$/, kind: 'status', status: 503 }]);
    const { code, err } = await subops(['suspend', '--service-id', '101', '--reason', '1', '--yes'], fastRetries());
    expect(code).toBe(1);
    expect(err).toMatch(/HTTP 503.*\(tried 5 times; UISP does not show it yet, it may still appear\)/);
    expect(err).toContain('it may or may not have been applied. Check the CRM before retrying.');
    expect(writes()).toEqual(Array(5).fill('PATCH /crm/api/v1.0/clients/services/101/suspend'));
  });

  it('a suspension applied but whose answer was lost is not sent again: the service is read first', async () => {
    sim.setFaults([{ method: 'PATCH', path: /\/suspend$/, kind: 'reset', phase: 'after', times: 1 }]);
    const { code, out } = await subops(['suspend', '--service-id', '101', '--reason', '1', '--yes'], fastRetries());
    expect(code).toBe(0);
    expect(out).toMatch(/Status: Active → Suspended\./);
    expect(writes()).toEqual(['PATCH /crm/api/v1.0/clients/services/101/suspend']);
    expect(sim.data.services.find((s) => s.id === 101)?.suspensionPeriods).toHaveLength(1);
  });

  it('a missing service id is exit 2 before any request', async () => {
    const { code, err } = await subops(['suspend', '--reason', '1']);
    expect(code).toBe(2);
    expect(err).toContain('--service-id: Enter the service id.');
    expect(sim.requests).toEqual([]);
  });

  it('unsuspend lifts the suspension through cancel-suspend, never /unsuspend', async () => {
    const { code, out } = await subops(['unsuspend', '--service-id', '104', '--yes']);
    expect(code).toBe(0);
    expect(out).toMatch(/Lifted the suspension of service #104 .*Status: Suspended → Active\./);
    expect(writes()).toEqual(['PATCH /crm/api/v1.0/clients/services/104/cancel-suspend']);
  });

  it('unsuspending a service that is not suspended writes nothing and says so (exit 0)', async () => {
    const { code, out } = await subops(['unsuspend', '--service-id', '101']);
    expect(code).toBe(0);
    expect(out).toBe('Nothing to do: service #101 (Standard Monthly) of client #1001 is not suspended (status Active). Nothing was changed.\n');
    expect(writes()).toEqual([]);
  });

  it('an unknown service is exit 2 naming --service-id', async () => {
    const { code, err } = await subops(['unsuspend', '--service-id', '99999']);
    expect(code).toBe(2);
    expect(err).toContain('--service-id: No CRM service #99999.');
    expect(writes()).toEqual([]);
  });

  it('reasons lists ids and names', async () => {
    const { code, out } = await subops(['reasons']);
    expect(code).toBe(0);
    expect(out).toMatch(/^\s+1 {2}Non-payment$/m);
  });
});

describe('subops payments', () => {
  it('--csv prints a header and one line per payment of the client', async () => {
    const expected = sim.data.payments.filter((p) => p.clientId === 1001).length;
    const { code, out } = await subops(['payments', '--client-id', '1001', '--csv']);
    expect(code).toBe(0);
    const lines = out.trim().split('\n');
    expect(lines[0]).toBe('id,createdDate,clientId,clientName,amount,currencyCode,methodId,methodName,note');
    expect(lines).toHaveLength(expected + 1);
    expect(lines.slice(1).every((line) => line.split(',').slice(2, 4).join(',') === '1001,Marcus Baptiste')).toBe(true);
    // One read of the client for its name, however many payments it made.
    expect(sim.requests.filter((r) => r.path === '/crm/api/v1.0/clients/1001')).toHaveLength(1);
    // Paged behind the scenes, never more than 500 at a time.
    expect(sim.requests.every((r) => r.path !== '/crm/api/v1.0/payments' || Number(r.query.limit) <= 500)).toBe(true);
  });

  it('--csv --limit prints the newest n and stops paging UISP there', async () => {
    const { code, out } = await subops(['payments', '--from', '2000-01-01', '--csv', '--limit', '3']);
    expect(code).toBe(0);
    const lines = out.trim().split('\n').slice(1);
    const newest = [...sim.data.payments].sort((a, b) => b.createdDate.localeCompare(a.createdDate) || b.id - a.id).slice(0, 3);
    expect(lines.map((line) => Number(line.split(',')[0]))).toEqual(newest.map((p) => p.id));
    // More than one page exists, and only the first was asked for.
    expect(sim.data.payments.length).toBeGreaterThan(500);
    expect(sim.requests.filter((r) => r.path === '/crm/api/v1.0/payments')).toHaveLength(1);
  });

  it('lists the newest payments with totals per currency', async () => {
    const { code, out } = await subops(['payments', '--client-id', '1001', '--limit', '3']);
    expect(code).toBe(0);
    expect(out).toMatch(/^Payments for client #1001 Marcus Baptiste, 2000-01-01 to \d{4}-\d{2}-\d{2}: \d+ payments/);
    expect(out).toMatch(/Totals: GYD [\d,]+\.\d{2} \(\d+\)/);
    expect(out.split('\n').filter((l) => /^\s+\d+ {2}\d{4}-\d{2}-\d{2}/.test(l))).toHaveLength(3);
  });

  it('a bad date is exit 2 naming --from, and nothing is fetched', async () => {
    const { code, err } = await subops(['payments', '--from', '2026-13-45']);
    expect(code).toBe(2);
    expect(err).toContain('--from: From date 2026-13-45 is not a real calendar date.');
    expect(sim.requests.filter((r) => r.path.endsWith('/payments'))).toEqual([]);
  });

  it('payments add validates before sending, then records the payment', async () => {
    const bad = await subops(['payments', 'add', '--client-id', '1001', '--amount', '0']);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('--amount: Amount must be greater than 0.');
    expect(sim.requests).toEqual([]);

    const { code, out } = await subops(['payments', 'add', '--client-id', '1001', '--amount', '2500.50', '--method', 'cash', '--note', 'counter']);
    expect(code).toBe(0);
    expect(out).toMatch(/^Recorded payment #\d+: GYD 2,500\.50 from client #1001 Marcus Baptiste by Cash\./);
    const cash = sim.data.paymentMethods.find((m) => m.name === 'Cash')!;
    expect(sim.requests.find((r) => r.method === 'POST')).toMatchObject({ path: '/crm/api/v1.0/payments', body: { clientId: 1001, amount: 2500.5, methodId: cash.id, note: expect.stringMatching(/^counter\nsubops:op=cli-[0-9a-f]{16}$/) } });
  });
});

describe('every flag goes through the input grammar: exit 2 naming the flag, and no request at all', () => {
  it.each([
    [['payments', 'add', '--client-id', '1001', '--amount', '-5'], '--amount: Amount must be positive: negative amounts are not accepted.'],
    [['payments', 'add', '--client-id', '1001', '--amount=-5'], '--amount: Amount must be positive: negative amounts are not accepted.'],
    [['payments', 'add', '--client-id', '1001', '--amount', '0x1F4'], '--amount: Amount must be a decimal number: hexadecimal is not accepted.'],
    [['payments', 'add', '--client-id', '1001', '--amount', '1e3'], '--amount: Amount must be written out in full: exponents such as 1e3 are not accepted.'],
    [['payments', 'add', '--client-id', '1001', '--amount', '1e308'], '--amount: Amount must be written out in full: exponents such as 1e3 are not accepted.'],
    [['payments', 'add', '--client-id', '1001', '--amount', '1000000.01'], '--amount: Amount must be at most 1,000,000 (the PAYMENT_MAX_AMOUNT setting).'],
    [['payments', 'add', '--client-id', '-3', '--amount', '10'], '--client-id: Client id must be a positive whole number such as 1001 or #1001.'],
    [['payments', 'add', '--client-id', '1001', '--amount', '10', '--note', 'bell\u0007'], '--note: Note must not contain control characters (line breaks are fine).'],
    [['payments', '--client-id', '2147483648'], '--client-id: Client id must be at most 2147483647.'],
    [['payments', '--from', '2024-03-01', '--to', '2024-02-01'], '--from: From date (2024-03-01) is after the to date (2024-02-01).'],
    [['payments', '--to', '2023-02-29'], '--to: To date 2023-02-29 is not a real calendar date.'],
    [['payments', '--limit', '0'], '--limit: Limit must be a whole number from 1 to 10000.'],
    [['suspend', '--service-id', '#0', '--reason', '1'], '--service-id: Service id must be greater than 0.'],
    [['suspend', '--service-id', '101', '--reason', 'late\u001b[2J'], '--reason: Suspension reason must not contain control characters.'],
    [['unsuspend', '--service-id', '1e2'], '--service-id: Service id must be a positive whole number such as 1001 or #1001.'],
    [['activate', '--device', '10.20.1.88', '--first-name', 'ada', '--last-name', 'lovelace', '--client-id', '#x'], '--client-id: CRM client id must be a positive whole number such as 1001 or #1001.'],
    [['activate', '--device', '10.20.1.88', '--first-name', 'ada', '--last-name', 'lovelace', '--phone', '12'], '--phone: Phone number must be 6 to 20 digits'],
  ])('%j', async (argv, message) => {
    const { code, err } = await subops(argv);
    expect(code).toBe(2);
    expect(err).toContain(message);
    expect(err).not.toMatch(/ambiguous|\n\s+at /);
    expect(sim.requests).toEqual([]);
  });

  it('names every bad flag of a payment at once', async () => {
    const { code, err } = await subops(['payments', 'add', '--client-id', 'Marcus', '--amount', '10,5']);
    expect(code).toBe(2);
    expect(err).toMatch(/^Error: --client-id: Client id must be a positive whole number such as 1001 or #1001\.\n--amount: Amount must be a plain decimal number/);
    expect(sim.requests).toEqual([]);
  });

  it('PAYMENT_MAX_AMOUNT sets the largest amount', async () => {
    const { code, err } = await subops(['payments', 'add', '--client-id', '1001', '--amount', '600'], { UISP_URL: sim.url, UISP_TOKEN: TOKEN, PAYMENT_MAX_AMOUNT: '500' });
    expect(code).toBe(2);
    expect(err).toContain('--amount: Amount must be at most 500 (the PAYMENT_MAX_AMOUNT setting).');
    expect(sim.requests).toEqual([]);
  });

  it('ids may be written #1001 in every flag, and amounts with thousands separators', async () => {
    const added = await subops(['payments', 'add', '--client-id', '#1001', '--amount', '1,500']);
    expect(added.code).toBe(0);
    expect(sim.requests.find((r) => r.method === 'POST')).toMatchObject({ path: '/crm/api/v1.0/payments', body: { clientId: 1001, amount: 1500 } });

    expect((await subops(['payments', '--client-id', '#1001', '--limit', '1'])).out).toMatch(/^Payments for client #1001 Marcus Baptiste/);
    const activated = await subops(['activate', '--device', '10.20.1.21', '--first-name', 'Marcus', '--last-name', 'Baptiste', '--client-id', '#1001', '--json']);
    expect(JSON.parse(activated.out.trim().split('\n').at(-1)!)).toMatchObject({ outcome: 'already-activated', client: { id: 1001 } });
    expect((await subops(['suspend', '--service-id', '#101', '--reason', '#1', '--yes'])).code).toBe(0);
    expect(sim.requests.find((r) => r.method === 'PATCH')).toMatchObject({ path: '/crm/api/v1.0/clients/services/101/suspend', body: { suspensionReasonId: 1 } });
    expect((await subops(['unsuspend', '--service-id', '#101', '--yes'])).code).toBe(0);
    expect(sim.requests.filter((r) => r.method === 'PATCH').at(-1)).toMatchObject({ path: '/crm/api/v1.0/clients/services/101/cancel-suspend' });
  });
});

describe('text from UISP in the terminal', () => {
  const ESC = '\u001b';
  function plantControlCharacters() {
    const client = sim.data.clients.find((c) => c.id === 1001)!;
    client.firstName = `Marcus${ESC}[2J`;
    const payment = sim.data.payments.filter((p) => p.clientId === 1001).sort((a, b) => b.createdDate.localeCompare(a.createdDate))[0]!;
    payment.note = `=cmd|' /C calc'!A0\nOK: forged line ${ESC}[31m`;
    sim.data.suspensionReasons[0]!.name = `Non-payment${ESC}]0;owned\u0007`;
    const device = sim.data.devices.find((d) => d.identification.ip === '10.20.3.12')!;
    device.identification = { ...device.identification, displayName: `cpe${ESC}[1A\r` };
    return payment;
  }

  it('human output shows control characters escaped, in listings, steps and errors', async () => {
    plantControlCharacters();
    const listing = await subops(['payments', '--client-id', '1001', '--limit', '5']);
    expect(listing.code).toBe(0);
    expect(listing.out).toContain('Payments for client #1001 Marcus\\x1b[2J Baptiste');
    expect(listing.out).toContain('A0\\nOK: forged line \\x1b[31m');
    expect(listing.out).not.toMatch(/^OK: forged/m);

    const reasons = await subops(['reasons']);
    expect(reasons.out).toContain('Non-payment\\x1b]0;owned\\x07');

    const activation = await subops(['activate', '--device', '10.20.3.12', '--first-name', 'shanice', '--last-name', 'williams', '--dry-run']);
    expect(activation.out).toContain('cpe\\x1b[1A\\r');

    // The CRM's name for an explicit id that does not match the typed one is quoted, escaped, in the refusal.
    const mismatch = await subops(['activate', '--device', '10.20.1.21', '--first-name', 'marcus', '--last-name', 'baptiste', '--client-id', '1001']);
    expect(mismatch.code).toBe(2);
    expect(mismatch.out).toContain('CRM client #1001 is Marcus\\x1b[2J Baptiste');

    const unknownReason = await subops(['suspend', '--service-id', '101', '--reason', 'vacation']);
    expect(unknownReason.err).toContain('Known reasons: 1 Non-payment\\x1b]0;owned\\x07');

    // eslint-disable-next-line no-control-regex -- the point: no raw control character (but newline) reaches the terminal
    for (const output of [listing, reasons, activation, mismatch, unknownReason]) expect(output.out + output.err).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f]/);
  });

  it('--csv and --json stay exact (CSV quoted, with its formula guard)', async () => {
    const payment = plantControlCharacters();
    const csv = await subops(['payments', '--client-id', '1001', '--csv']);
    // CSV is machine output: the client's name exactly as the CRM has it, control characters and all.
    expect(csv.out).toContain(`${payment.id},${payment.createdDate},1001,Marcus\u001b[2J Baptiste,${payment.amount},`);
    expect(csv.out).toContain(`"'${payment.note!}"`);
    const json = await subops(['payments', '--client-id', '1001', '--json']);
    const lines = json.out.trim().split('\n').map((line) => JSON.parse(line) as { id: number; note: string | null });
    expect(lines.find((p) => p.id === payment.id)!.note).toBe(payment.note);
  });
});

describe('subops help and simulate', () => {
  it('with no command prints the usage and exits 2; `help` exits 0', async () => {
    const none = await subops([]);
    expect(none.code).toBe(2);
    expect(none.out).toMatch(/^Usage: subops <command>/);
    expect((await subops(['help'])).code).toBe(0);
    expect((await subops(['activate', '--help'])).out).toMatch(/--dry-run +read everything and print the plan/);
    expect((await subops(['activate', '--help'])).out).toMatch(/--yes +confirm what the activation deletes or moves: deleting the client's Quoted or\n.*Obsolete services/);
  });

  it('an unknown command is exit 2', async () => {
    const { code, err } = await subops(['activte']);
    expect(code).toBe(2);
    expect(err).toContain('Unknown command "activte"');
  });

  it('simulate serves UISP until stopped, and refuses a bad port', async () => {
    let stop!: () => void;
    const stopped = new Promise<void>((resolve) => (stop = resolve));
    const stdout = new PassThrough();
    let out = '';
    stdout.on('data', (chunk) => (out += chunk));
    const running = main(['simulate', '--token', 'demo-token'], { env: {}, stdout, stderr: new PassThrough(), stdin: new PassThrough(), untilStopped: () => stopped });
    await expect.poll(() => out).toMatch(/listening at (http:\/\/127\.0\.0\.1:\d+)/);
    const url = out.match(/listening at (\S+)/)![1]!;
    const reply = await fetch(`${url}/crm/api/v1.0/service-suspension-reasons`, { headers: { 'X-Auth-Token': 'demo-token' } });
    expect(reply.status).toBe(200);
    expect(out).not.toContain('demo-token');
    stop();
    expect(await running).toBe(0);

    const bad = await subops(['simulate', '--port', '70000']);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('--port: Port must be a whole number from 0 to 65535.');
  });

  it('simulate --generate writes a data set of that many customers that --data serves; --out is required', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'subops-generate-')), 'set.json');
    const written = await subops(['simulate', '--generate', '200', '--out', file, '--seed', '3']);
    expect(written.code).toBe(0);
    expect(written.out).toContain(`Wrote a data set of 200 customers to ${file}`);
    const data = await loadDataFile(file);
    expect(data.clients).toHaveLength(200);
    expect(data.sites.some((site) => site.identification.type === 'endpoint')).toBe(true);
    const missing = await subops(['simulate', '--generate', '200']);
    expect(missing.code).toBe(2);
    expect(missing.err).toContain('--generate needs --out <file.json>');
  });
});
