/**
 * `subops activate --sheet`: the check, the run and its exit codes, `--json` (one object per row,
 * docs/cli.md), the audit record per row, a re-run that writes nothing, and files that are not sheets.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { auditLines, runCli } from './support.js';
import { runAtTerminal } from './terminal-run.js';

let sim: RunningSimulator;
beforeEach(async () => {
  await sim?.close();
  sim = await startSimulator();
});
const folder = mkdtempSync(join(tmpdir(), 'subops-sheet-'));
afterAll(async () => {
  await sim?.close();
  rmSync(folder, { recursive: true, force: true });
});

let files = 0;
function sheetFile(text: string): string {
  const path = join(folder, `sheet-${++files}.csv`);
  writeFileSync(path, text);
  return path;
}

const subops = (argv: string[]) => runCli(argv, { UISP_URL: sim.url, UISP_TOKEN: sim.token }, [sim.token]);
const lines = (out: string) => out.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
const writes = () => sim.requests.filter((r) => r.method !== 'GET').map((r) => `${r.method} ${r.path}`);
const keys = (value: unknown) => Object.keys(value as object).sort();

const HEADER = 'device,first_name,last_name,client_id';
const CLEAN = [HEADER, '10.20.1.51,Priya,Ramnarine,1002', 'NS-Fraser,Dwayne,Fraser,', '10.20.3.12,Shanice,Williams,1004', 'PowerBeam 5AC,Ada,Lovelace,'].join('\r\n');

describe('subops activate --sheet', () => {
  it('--json: one object per row and the counts; an audit record per row; exit 0; a re-run is all "already activated" and writes nothing', async () => {
    const path = sheetFile(CLEAN);
    const run = await subops(['activate', '--sheet', path, '--yes', '--json']);
    expect(run.code).toBe(0);
    const objects = lines(run.out);
    const rows = objects.filter((o) => o.type === 'sheet-row');
    expect(rows.map((r) => [r.row, r.outcome]).sort()).toEqual([
      [1, 'done'],
      [2, 'done'],
      [3, 'done'],
      [4, 'done'],
    ]);
    for (const row of rows) expect(keys(row)).toEqual(['attempts', 'device', 'line', 'message', 'outcome', 'problem', 'result', 'row', 'type']);
    expect(rows.find((r) => r.row === 1)).toMatchObject({ line: 2, device: '10.20.1.51', attempts: 1, problem: null, result: { type: 'result', outcome: 'activated', client: { id: 1002 } } });
    expect(objects.at(-1)).toEqual({ type: 'sheet-done', counts: { done: 4, 'already-done': 0, failed: 0, refused: 0 }, message: '4 activated, 0 already activated, 0 failed, 0 refused' });
    expect(auditLines(run.err)).toHaveLength(4);
    const written = writes();
    expect(written.filter((w) => w.endsWith('/authorize'))).toHaveLength(4);

    const again = await subops(['activate', '--sheet', path, '--json']);
    expect(again.code).toBe(0);
    expect(lines(again.out).filter((o) => o.type === 'sheet-row').map((r) => r.outcome)).toEqual(['already-done', 'already-done', 'already-done', 'already-done']);
    expect(writes()).toEqual(written);
  });

  it('rows in error next to good ones: the good ones run, each row says why, exit 1', async () => {
    const path = sheetFile([HEADER, '10.9.9.9,No,Device,', 'PowerBeam 5AC,Ada,Lovelace,', '10.20.1.88,Grace,Hopper,', 'NS-Fraser,Dwayne,Fr4ser,'].join('\n'));
    const run = await subops(['activate', '--sheet', path]);
    expect(run.code).toBe(1);
    expect(run.out).toContain('✓ row 2 (line 3) PowerBeam 5AC: Activated Ada Lovelace');
    expect(run.out).toMatch(/✗ row 1 \(line 2\) 10\.9\.9\.9: Activation failed at the discover step: Device not found: no device with IP 10\.9\.9\.9/);
    expect(run.out).toContain('✗ row 3 (line 4) 10.20.1.88: The same device as row 2: a device is activated once. Nothing was changed.');
    expect(run.out).toContain('✗ row 4 (line 5): last_name: Last name may contain only letters');
    expect(run.out).toContain('Sheet: 1 activated, 0 already activated, 0 failed, 3 refused.');
    expect(writes().filter((w) => w.endsWith('/authorize'))).toHaveLength(1);
  });

  it('off a terminal without --yes, rows that delete stop before any write, naming the services, exit 1', async () => {
    const run = await subops(['activate', '--sheet', sheetFile(CLEAN)]);
    expect(run.code).toBe(1);
    expect(run.out).toMatch(/✗ row 1 \(line 2\) 10\.20\.1\.51: .*deletes Quoted service #102 of client #1002 Priya Ramnarine/);
    expect(writes().filter((w) => w.startsWith('DELETE'))).toEqual([]);
    expect(writes().filter((w) => w.endsWith('/authorize'))).toHaveLength(2);
  });

  it('--dry-run: each row planned, what needs confirming, the totals; nothing written', async () => {
    const text = await subops(['activate', '--sheet', sheetFile(CLEAN), '--dry-run']);
    expect(text.code).toBe(0);
    expect(text.out).toContain('Install sheet: 4 rows: 4 rows to activate (2 deleting or moving), 0 already activated, 0 rows in error.');
    expect(text.out).toContain('• row 1 (line 2) 10.20.1.51: client #1002 Priya Ramnarine; new Active service replacing Quoted service #102; new site "Priya Ramnarine"; authorize LBE-Ramnarine (discovered).');
    expect(text.out).toContain('    to confirm: delete Quoted service #102');
    expect(text.out).toContain('• row 4 (line 5) PowerBeam 5AC: new client Ada Lovelace;');
    const json = lines((await subops(['activate', '--sheet', sheetFile(CLEAN), '--dry-run', '--json'])).out);
    expect(json[0]).toEqual({ type: 'sheet-check', row: 1, line: 2, device: '10.20.1.51', status: 'plan', message: expect.stringContaining('client #1002'), confirm: 'delete Quoted service #102', error: null });
    expect(json.at(-1)).toEqual({ type: 'sheet-totals', rows: 4, toRun: 4, needConfirmation: 2, alreadyDone: 0, inError: 0 });
    expect(writes()).toEqual([]);
  });

  it('an ambiguous name: the check lists the clients with their ids, to put in client_id', async () => {
    const run = await subops(['activate', '--sheet', sheetFile([HEADER, '10.20.1.88,Kevin,Singh,'].join('\n')), '--dry-run']);
    expect(run.code).toBe(1);
    expect(run.out).toMatch(/✗ row 1 \(line 2\) 10\.20\.1\.88: .*\n {4}- #1008 Kevin Singh .*\n {4}- #1009 Kevin Singh/);
  });

  it('a 429 storm: UISP asks to wait (Retry-After: 1), the sheet waits and goes on one row at a time, every row ends done', async () => {
    sim.setFaults([{ method: 'POST', path: /\/(services|sites)$/, kind: 'status', status: 429, retryAfter: 1, times: 2 }]);
    const run = await runCli(['activate', '--sheet', sheetFile(CLEAN), '--yes', '--json'], { UISP_URL: sim.url, UISP_TOKEN: sim.token, UISP_WRITE_RETRIES: '0' }, [sim.token]);
    expect(run.code).toBe(0);
    const rows = lines(run.out).filter((o) => o.type === 'sheet-row');
    expect(rows.map((r) => r.outcome)).toEqual(['done', 'done', 'done', 'done']);
    expect(rows.some((r) => Number(r.attempts) > 1)).toBe(true);
    expect(run.err).toMatch(/UISP answered HTTP 429 during row \d \(line \d\): the sheet goes on one row at a time, after 1 s; the row runs again\./);
    // The backoff, as UISP saw it: the rows went on at least Retry-After's second after the first 429 (unthrottled, the whole sheet takes a fraction of that).
    const limited = sim.requests.filter((r) => r.status === 429);
    expect(limited).toHaveLength(2);
    const authorizations = sim.requests.filter((r) => r.path.endsWith('/authorize'));
    expect(authorizations).toHaveLength(4);
    expect(authorizations.at(-1)!.startedAt - limited[0]!.startedAt).toBeGreaterThanOrEqual(1_000);
  });

  it('on a terminal: the check is shown and asked once; "y" deletes exactly the Quoted services shown; "n" writes nothing, exit 1', async () => {
    const env = { UISP_URL: sim.url, UISP_TOKEN: sim.token };
    const declined = await runAtTerminal(['activate', '--sheet', sheetFile(CLEAN)], env, { answer: () => 'n' });
    expect(declined.questions).toEqual(['Activate 4 rows, with the deletes and moves listed above? [y/N]']);
    expect(declined.err).toContain('    to confirm: delete Quoted service #102');
    expect(declined.err).toContain('Not confirmed: nothing was changed.');
    expect(declined.code).toBe(1);
    expect(writes()).toEqual([]);

    const confirmed = await runAtTerminal(['activate', '--sheet', sheetFile(CLEAN)], env, { answer: () => 'y' });
    expect(confirmed.code).toBe(0);
    expect(confirmed.out).toContain('Sheet: 4 activated, 0 already activated, 0 failed, 0 refused.');
    expect(writes().filter((w) => w.startsWith('DELETE')).sort()).toEqual(['DELETE /crm/api/v1.0/clients/services/102', 'DELETE /crm/api/v1.0/clients/services/103']);
  });

  it('a malformed file is refused with the line and column, exit 2, before anything reaches UISP', async () => {
    const run = await subops(['activate', '--sheet', sheetFile(`${HEADER}\n10.20.1.88,"Ada,Lovelace,\n`), '--json']);
    expect(run.code).toBe(2);
    expect(run.err).toContain('is not an install sheet: line 2: A quoted field starts here and is never closed.');
    expect(lines(run.out)).toEqual([expect.objectContaining({ type: 'error', message: expect.stringContaining('line 2: A quoted field') })]);
    const stray = await subops(['activate', '--sheet', sheetFile(`${HEADER}\n10.20.1.88,Ada,Love"lace,\n`)]);
    expect(stray.code).toBe(2);
    expect(stray.err).toContain('line 2, column 3: A quote inside an unquoted field');
    expect(sim.requests).toEqual([]);
  });

  it('201 rows are refused, exit 2; --sheet with --device is bad input', async () => {
    const big = [HEADER, ...Array.from({ length: 201 }, (_, i) => `dev-${i},Ada,Lovelace,`)].join('\n');
    const run = await subops(['activate', '--sheet', sheetFile(big)]);
    expect(run.code).toBe(2);
    expect(run.err).toContain('the sheet has 201 rows; at most 200 run at once');
    const both = await subops(['activate', '--sheet', sheetFile(CLEAN), '--device', '10.20.1.88']);
    expect(both.code).toBe(2);
    expect(both.err).toContain('--device: the sheet names each install');
    expect(sim.requests).toEqual([]);
  });
});
