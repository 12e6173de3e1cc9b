/**
 * The `subops` CLI in-process against the UISP simulator: what the user sees, the exit codes, and what
 * was (or was not) sent to UISP.
 */
import { PassThrough } from 'node:stream';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';

let sim: RunningSimulator;
const TOKEN = 'cli-SECRET-token-5e1f';

beforeEach(async () => {
  await sim?.close();
  sim = await startSimulator({ token: TOKEN });
});
afterAll(async () => sim?.close());

async function subops(argv: string[], env: Record<string, string> = { UISP_URL: sim.url, UISP_TOKEN: TOKEN }) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (chunk) => (out += chunk));
  stderr.on('data', (chunk) => (err += chunk));
  const code = await main(argv, { env: { ISP_TIMEZONE: 'America/Guyana', ...env }, stdout, stderr, stdin: new PassThrough() });
  expect(out + err).not.toContain(TOKEN);
  return { code, out, err };
}

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
    expect(err).toContain('--last-name: Use letters');
    expect(err).toContain('--email: Enter a valid email address.');
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

  it('without UISP_URL runs against the embedded simulator and says so on stderr', async () => {
    const { code, err, out } = await subops(['activate', '--device', '10.20.1.88', '--first-name', 'ada', '--last-name', 'lovelace'], {});
    expect(code).toBe(0);
    expect(err).toMatch(/UISP_URL is not set: using the embedded UISP simulator/);
    expect(out).toContain('Manual step');
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
    const { code, out } = await subops(['suspend', '--service-id', '101', '--reason', 'non-payment']);
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

  it('a write UISP keeps refusing with 503 is retried, read back, and reported as not applied', async () => {
    sim.setFaults([{ method: 'PATCH', path: /\/suspend$/, kind: 'status', status: 503 }]);
    const { code, err } = await subops(['suspend', '--service-id', '101', '--reason', '1'], fastRetries());
    expect(code).toBe(1);
    expect(err).toMatch(/HTTP 503.*\(tried 5 times; UISP shows it was not applied\)/);
    expect(err).toContain('Nothing was changed.');
    expect(writes()).toEqual(Array(5).fill('PATCH /crm/api/v1.0/clients/services/101/suspend'));
  });

  it('a suspension applied but whose answer was lost is not sent again: the service is read first', async () => {
    sim.setFaults([{ method: 'PATCH', path: /\/suspend$/, kind: 'reset', phase: 'after', times: 1 }]);
    const { code, out } = await subops(['suspend', '--service-id', '101', '--reason', '1'], fastRetries());
    expect(code).toBe(0);
    expect(out).toMatch(/Status: Active → Suspended\./);
    expect(writes()).toEqual(['PATCH /crm/api/v1.0/clients/services/101/suspend']);
    expect(sim.data.services.find((s) => s.id === 101)?.suspensionPeriods).toHaveLength(1);
  });

  it('a missing service id is exit 2 before any request', async () => {
    const { code, err } = await subops(['suspend', '--reason', '1']);
    expect(code).toBe(2);
    expect(err).toContain('--service-id is required.');
    expect(sim.requests).toEqual([]);
  });

  it('unsuspend lifts the suspension through cancel-suspend, never /unsuspend', async () => {
    const { code, out } = await subops(['unsuspend', '--service-id', '104']);
    expect(code).toBe(0);
    expect(out).toMatch(/Lifted the suspension of service #104 .*Status: Suspended → Active\./);
    expect(writes()).toEqual(['PATCH /crm/api/v1.0/clients/services/104/cancel-suspend']);
  });

  it('unsuspending a service that is not suspended fails with UISP’s reason (exit 1)', async () => {
    const { code, err } = await subops(['unsuspend', '--service-id', '101']);
    expect(code).toBe(1);
    expect(err).toMatch(/^Failed: CRM PATCH \/crm\/api\/v1\.0\/clients\/services\/101\/cancel-suspend: .*\(HTTP 422\)/m);
    expect(err).toContain('Nothing was changed.');
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
    expect(lines[0]).toBe('id,createdDate,clientId,amount,currencyCode,methodId,note');
    expect(lines).toHaveLength(expected + 1);
    expect(lines.slice(1).every((line) => line.split(',')[2] === '1001')).toBe(true);
    // Paged behind the scenes, never more than 500 at a time.
    expect(sim.requests.every((r) => r.path !== '/crm/api/v1.0/payments' || Number(r.query.limit) <= 500)).toBe(true);
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
    expect(err).toContain('--from: from must be a date as YYYY-MM-DD');
    expect(sim.requests.filter((r) => r.path.endsWith('/payments'))).toEqual([]);
  });

  it('payments add validates before sending, then records the payment', async () => {
    const bad = await subops(['payments', 'add', '--client-id', '1001', '--amount', '0']);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('--amount: Amount must be a number greater than 0.');
    expect(sim.requests).toEqual([]);

    const { code, out } = await subops(['payments', 'add', '--client-id', '1001', '--amount', '2500.50', '--method', 'cash', '--note', 'counter']);
    expect(code).toBe(0);
    expect(out).toMatch(/^Recorded payment #\d+: GYD 2,500\.50 from client #1001 Marcus Baptiste by Cash\./);
    const cash = sim.data.paymentMethods.find((m) => m.name === 'Cash')!;
    expect(sim.requests.find((r) => r.method === 'POST')).toMatchObject({ path: '/crm/api/v1.0/payments', body: { clientId: 1001, amount: 2500.5, methodId: cash.id, note: expect.stringMatching(/^counter\nsubops:op=cli-[0-9a-f]{16}$/) } });
  });
});

describe('subops help and simulate', () => {
  it('with no command prints the usage and exits 2; `help` exits 0', async () => {
    const none = await subops([]);
    expect(none.code).toBe(2);
    expect(none.out).toMatch(/^Usage: subops <command>/);
    expect((await subops(['help'])).code).toBe(0);
    expect((await subops(['activate', '--help'])).out).toMatch(/--dry-run +read everything and print the plan/);
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
    expect(bad.err).toContain('--port must be at most 65535.');
  });
});
