/**
 * No silent simulator (issue #29, 1): without UISP_URL a command that reaches UISP stops (exit 2, naming
 * UISP_URL) unless the embedded simulator was asked for, with --simulator or SUBOPS_SIMULATOR=1; and
 * then every answer says it was simulated: a closing line after text, `"simulated": true` in every JSON
 * object. Runs `main` with exactly the environment given (no test support adding the switch).
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { runMain } from './support.js';
import { runAtTerminal } from './terminal-run.js';

const folder = mkdtempSync(join(tmpdir(), 'subops-simulator-mode-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));
let state: string;
let runs = 0;
beforeEach(() => {
  state = join(folder, `simulator-${++runs}.json`);
});

const subops = (argv: string[], env: Record<string, string> = {}) => runMain(argv, { ISP_TIMEZONE: 'America/Guyana', HOME: folder, SUBOPS_SIMULATOR_STATE: state, ...env });

const SUSPEND = ['suspend', '--service-id', '101', '--reason', '1', '--yes'];
const SIMULATED_LINE = 'Simulated: the embedded UISP simulator answered, not UISP (--simulator or SUBOPS_SIMULATOR=1); nothing real was read or changed.';

describe('without UISP_URL and without asking for the simulator', () => {
  it('`suspend --yes` (a non-payment cron job) stops with exit 2 naming UISP_URL and how to try the simulator; nothing is simulated', async () => {
    const { code, out, err } = await subops(SUSPEND);
    expect(code).toBe(2);
    expect(out).toBe('');
    expect(err).toContain('UISP_URL is required: set it to your UISP (e.g. https://uisp.example.net, with UISP_TOKEN), or add --simulator to try SubOps against the bundled UISP simulator');
    expect(err).not.toMatch(/Suspended|simulator at http/);
    expect(existsSync(state)).toBe(false);
  });

  it('--json: one error object naming UISP_URL, not simulated', async () => {
    const { code, out } = await subops([...SUSPEND, '--json']);
    expect(code).toBe(2);
    const error = JSON.parse(out) as Record<string, unknown>;
    expect(error).toMatchObject({ type: 'error', field: 'UISP_URL', message: expect.stringMatching(/^UISP_URL is required/) });
    expect(error).not.toHaveProperty('simulated');
  });

  it.each([
    ['activate', '--device', '10.20.1.88', '--first-name', 'ada', '--last-name', 'lovelace', '--yes'],
    ['unsuspend', '--service-id', '104', '--yes'],
    ['client', '1001'],
    ['device', '10.20.1.88'],
    ['payments'],
    ['payments', 'add', '--client-id', '1001', '--amount', '25'],
    ['digest'],
    ['reasons'],
  ])('`%s …` stops the same way', async (...argv) => {
    const { code, out, err } = await subops(argv);
    expect({ code, out }).toEqual({ code: 2, out: '' });
    expect(err).toMatch(/UISP_URL is required: .*add --simulator/);
    expect(existsSync(state)).toBe(false);
  });

  it('`config check --cli` names the same problem (exit 2)', async () => {
    const { code, out } = await subops(['config', 'check', '--cli', '--json']);
    expect(code).toBe(2);
    expect((JSON.parse(out) as { problems: string[] }).problems).toEqual([expect.stringMatching(/^UISP_URL is required: .*--simulator/)]);
  });

  it('a SUBOPS_SIMULATOR that is neither on nor off is named (exit 2)', async () => {
    const { code, err } = await subops(SUSPEND, { SUBOPS_SIMULATOR: 'maybe' });
    expect(code).toBe(2);
    expect(err).toContain('SUBOPS_SIMULATOR must be 1 (the embedded UISP simulator) or 0 (got "maybe")');
  });
});

describe('asked for: --simulator or SUBOPS_SIMULATOR=1', () => {
  it('--simulator: the suspension runs on the embedded simulator; stderr says so first and stdout ends saying so', async () => {
    const { code, out, err } = await subops(SUSPEND.toSpliced(1, 0, '--simulator'));
    expect(code).toBe(0);
    expect(out).toBe(`Suspended service #101 (Standard Monthly) of client #1001 — reason: Non-payment. Status: Active → Suspended.\n${SIMULATED_LINE}\n`);
    expect(err).toMatch(/^Simulated: the embedded UISP simulator answers \(--simulator or SUBOPS_SIMULATOR=1\) at http:\/\/127\.0\.0\.1:\d+ \(no real UISP is touched\)/);
    expect(existsSync(state)).toBe(true);
  });

  it('SUBOPS_SIMULATOR=1 --json: the object says "simulated": true', async () => {
    const { code, out } = await subops([...SUSPEND, '--json'], { SUBOPS_SIMULATOR: '1' });
    expect(code).toBe(0);
    expect(JSON.parse(out)).toMatchObject({ action: 'suspend', outcome: 'done', simulated: true });
  });

  it('every JSON object says so: each activation event, each payment, each reason, an error', async () => {
    const lines = (out: string) => out.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    const activation = await subops(['activate', '--device', '10.20.1.88', '--first-name', 'ada', '--last-name', 'lovelace', '--json', '--simulator']);
    expect(activation.code).toBe(0);
    expect(lines(activation.out).length).toBeGreaterThan(3);
    for (const event of lines(activation.out)) expect(event.simulated).toBe(true);
    for (const argv of [['payments', '--json', '--from', '2000-01-01'], ['reasons', '--json'], ['client', '1001', '--json'], ['digest', '--json']]) {
      const run = await subops(argv, { SUBOPS_SIMULATOR: 'true' });
      expect(run.code, argv.join(' ')).toBe(0);
      for (const object of lines(run.out)) expect(object.simulated, argv.join(' ')).toBe(true);
    }
    const missing = await subops(['suspend', '--service-id', '9999', '--reason', '1', '--yes', '--json'], { SUBOPS_SIMULATOR: '1' });
    expect(missing.code).toBe(2);
    expect(JSON.parse(missing.out)).toMatchObject({ type: 'error', simulated: true });
  });

  it('at a terminal, the audit line says it was simulated', async () => {
    const { code, err } = await runAtTerminal(['suspend', '--service-id', '101', '--reason', '1', '--simulator'], { SUBOPS_SIMULATOR_STATE: state, HOME: folder }, { answer: () => 'y' });
    expect(code).toBe(0);
    expect(err).toMatch(/\bAudit \(simulated\): suspend by \S+ \(CLI\): suspended$/m);
  });

  it('--csv stays CSV: the notice is on stderr', async () => {
    const { code, out, err } = await subops(['payments', '--csv', '--simulator']);
    expect(code).toBe(0);
    expect(out.split('\n')[0]).toBe('id,createdDate,clientId,clientName,amount,currencyCode,methodId,methodName,note');
    expect(out).not.toContain('Simulated');
    expect(err).toMatch(/^Simulated: the embedded UISP simulator answers/);
  });
});

describe('--simulator with UISP_URL set', () => {
  let uisp: RunningSimulator;
  beforeEach(async () => {
    uisp = await startSimulator({ token: 'real-uisp-token' });
  });
  afterEach(async () => uisp.close());

  it('the embedded simulator answers and UISP_URL is not asked anything; without --simulator UISP_URL is used, not simulated', async () => {
    const env = { UISP_URL: uisp.url, UISP_TOKEN: 'real-uisp-token' };
    const simulated = await subops([...SUSPEND, '--json', '--simulator'], env);
    expect(simulated.code).toBe(0);
    expect(JSON.parse(simulated.out)).toMatchObject({ outcome: 'done', simulated: true });
    expect(simulated.err).toMatch(/^Simulated: the embedded UISP simulator answers instead of UISP_URL/);
    expect(uisp.requests).toEqual([]);

    const real = await subops([...SUSPEND, '--json'], env);
    expect(real.code).toBe(0);
    expect(JSON.parse(real.out)).not.toHaveProperty('simulated');
    expect(real.err).not.toContain('Simulated');
    expect(uisp.requests.some((request) => request.method === 'PATCH')).toBe(true);
  });
});

describe('commands that are the simulator anyway', () => {
  it('`subops demo` runs on its own simulator, with or without --simulator', async () => {
    const script = join(folder, 'payments.txt');
    writeFileSync(script, '/payments\n');
    for (const argv of [['demo', '--script', script], ['demo', '--script', script, '--simulator']]) {
      const { code, out, err } = await subops(argv);
      expect({ code, err }, argv.join(' ')).toEqual({ code: 0, err: '' });
      expect(out).toContain('SubOps: Latest payments');
    }
  });
});
