/**
 * Install sheets against the UISP simulator: the check (each row's plan, the rows in error, the totals),
 * the run (every row's outcome, what reached UISP), a 429 storm that slows the sheet down instead of
 * failing rows, and a re-run of a finished sheet that writes nothing.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { readSheet, type SheetRow } from '../../src/services/sheets/sheet.js';
import { SheetService } from '../../src/services/sheets/service.js';
import { ActivationService } from '../../src/services/activation/workflow.js';
import { KeyedLock, type Locks } from '../../src/services/converge.js';
import type { RowEvent, SheetConfirmation, SheetEvent } from '../../src/services/sheets/types.js';
import { startUisp, type UispFixture } from '../support/uisp.js';

let uisp: UispFixture;
afterEach(async () => uisp?.close());

const NOW = () => new Date('2026-11-22T15:00:00Z');
const HEADER = 'device,first_name,last_name,client_id';
/** Four installs that can run: two replace a Quoted service (confirmed), one adds a service, one is a new client. */
const CLEAN = [HEADER, '10.20.1.51,Priya,Ramnarine,1002', 'NS-Fraser,Dwayne,Fraser,', '10.20.3.12,Shanice,Williams,1004', 'PowerBeam 5AC,Ada,Lovelace,'].join('\n');

function rowsOf(text: string): SheetRow[] {
  const sheet = readSheet(text);
  if (!sheet.ok) throw new Error(`not a sheet: ${JSON.stringify(sheet.problem)}`);
  return sheet.rows;
}

async function runSheet(service: SheetService, text: string, confirmation: SheetConfirmation = 'shown') {
  const check = await service.check(rowsOf(text));
  const events: SheetEvent[] = [];
  for await (const event of service.run(check, confirmation)) events.push(event);
  const rows = events.filter((e): e is RowEvent => e.type === 'row');
  return { check, events, rows, outcomes: rows.map((r) => [r.row, r.outcome]).sort((a, b) => Number(a[0]) - Number(b[0])) };
}

describe('the check', () => {
  it('plans each row as a dry run would, reading only: reuse or new client, service, site, device, what needs confirming', async () => {
    uisp = await startUisp({ now: NOW });
    const check = await uisp.services.sheets.check(rowsOf(CLEAN));
    expect(uisp.writes()).toEqual([]);
    expect(check.rows.map((r) => (r.kind === 'plan' ? [r.row, r.plan.client.action, r.plan.service.action, r.plan.site.action, r.plan.device.name, r.confirm?.deletes.map((s) => s.id) ?? null] : [r.row, r.kind]))).toEqual([
      [1, 'reuse', 'create', 'create', 'LBE-Ramnarine', [102]],
      [2, 'reuse', 'create', 'create', 'NS-Fraser', [103]],
      [3, 'reuse', 'create', 'create', 'LiteBeam-Williams', null],
      [4, 'create', 'create', 'create', 'PowerBeam 5AC', null],
    ]);
    expect(check.totals).toEqual({ rows: 4, toRun: 4, needConfirmation: 2, alreadyDone: 0, inError: 0 });
  });

  it('marks rows in error with the reason, next to good ones: device not found, unknown client id, a bad name, the same device twice', async () => {
    uisp = await startUisp({ now: NOW });
    const text = [HEADER, '10.9.9.9,No,Device,', '10.20.3.12,Shanice,Williams,99999', 'PowerBeam 5AC,Ada,L4ovelace!,', 'PowerBeam 5AC,Ada,Lovelace,', '10.20.1.88,Grace,Hopper,', 'cpe-baptiste,Marcus,Baptiste,'].join('\n');
    const check = await uisp.services.sheets.check(rowsOf(text));
    const summary = check.rows.map((r) => [r.row, r.kind === 'refused' ? r.error.code : r.kind === 'problem' ? r.problem.code : r.alreadyDone ? 'already' : 'plan']);
    expect(summary).toEqual([
      [1, 'device-not-found'],
      [2, 'client-not-found'],
      [3, 'invalid'],
      [4, 'plan'],
      // The same device by its IP: found once both rows are read.
      [5, 'duplicate-device'],
      [6, 'already'],
    ]);
    const bad = check.rows[2]!;
    expect(bad.kind === 'problem' && bad.problem).toEqual({ code: 'invalid', problems: [{ column: 'last_name', problem: expect.stringContaining('Last name') }] });
    expect(check.rows[4]!.kind === 'problem' && check.rows[4]!.problem).toEqual({ code: 'duplicate-device', firstRow: 4 });
    expect(check.totals).toEqual({ rows: 6, toRun: 1, needConfirmation: 0, alreadyDone: 1, inError: 4 });

    // The good row runs; the others stop before any write.
    const { outcomes } = await runSheet(uisp.services.sheets, text);
    expect(outcomes).toEqual([
      [1, 'refused'],
      [2, 'refused'],
      [3, 'refused'],
      [4, 'done'],
      [5, 'refused'],
      [6, 'already-done'],
    ]);
    expect(uisp.writes().filter((w) => w.includes('/authorize'))).toHaveLength(1);
  });

  it('finds the same device typed twice the same way without reading it twice', async () => {
    uisp = await startUisp({ now: NOW });
    const check = await uisp.services.sheets.check(rowsOf([HEADER, '74:83:C2:0F:AB:88,Ada,Lovelace,', '74-83-c2-0f-ab-88,Grace,Hopper,'].join('\n')));
    expect(check.rows.map((r) => r.kind)).toEqual(['plan', 'problem']);
    expect(check.rows[1]!.kind === 'problem' && check.rows[1]!.problem).toEqual({ code: 'duplicate-device', firstRow: 1 });
  });
});

describe('the run', () => {
  it('activates every row of a clean sheet, deleting only the Quoted services the check showed; a re-run says already activated and writes nothing', async () => {
    uisp = await startUisp({ now: NOW });
    const first = await runSheet(uisp.services.sheets, CLEAN);
    expect(first.outcomes).toEqual([
      [1, 'done'],
      [2, 'done'],
      [3, 'done'],
      [4, 'done'],
    ]);
    expect(first.events.at(-1)).toEqual({ type: 'sheet-done', counts: { done: 4, 'already-done': 0, failed: 0, refused: 0 } });
    const writes = uisp.writes();
    expect(writes.filter((w) => w.startsWith('DELETE')).sort()).toEqual(['DELETE /crm/api/v1.0/clients/services/102', 'DELETE /crm/api/v1.0/clients/services/103']);
    expect(writes.filter((w) => w.endsWith('/authorize'))).toHaveLength(4);
    expect(writes.filter((w) => w === 'POST /crm/api/v1.0/clients')).toHaveLength(1);

    const again = await runSheet(uisp.services.sheets, CLEAN);
    expect(again.check.totals).toMatchObject({ toRun: 0, alreadyDone: 4 });
    expect(again.outcomes.map(([, outcome]) => outcome)).toEqual(['already-done', 'already-done', 'already-done', 'already-done']);
    expect(again.rows.map((r) => r.result?.outcome)).toEqual(['already-activated', 'already-activated', 'already-activated', 'already-activated']);
    expect(uisp.writes()).toEqual(writes);
  });

  it('rows that delete stop before any write when the sheet was not confirmed; the others run', async () => {
    uisp = await startUisp({ now: NOW });
    const { outcomes, rows } = await runSheet(uisp.services.sheets, CLEAN, 'none');
    expect(outcomes).toEqual([
      [1, 'refused'],
      [2, 'refused'],
      [3, 'done'],
      [4, 'done'],
    ]);
    expect(rows.find((r) => r.row === 1)!.result).toMatchObject({ outcome: 'failed', error: { code: 'delete-unconfirmed' } });
    expect(uisp.writes().filter((w) => w.startsWith('DELETE'))).toEqual([]);
  });

  it('rows of the same client never run at once: the second waits for the first to finish, then runs on its records', async () => {
    uisp = await startUisp({ now: NOW });
    // The activation's own locks, watched: each acquire as it is asked for, and whether it has been granted.
    const real = new KeyedLock();
    const asked: { keys: string[]; granted: boolean }[] = [];
    let notify = () => {};
    const locks: Locks = {
      acquire: async (keys) => {
        const entry = { keys, granted: false };
        asked.push(entry);
        notify();
        const hold = await real.acquire(keys);
        entry.granted = true;
        return hold;
      },
    };
    const { crm, nms, network, numbering } = uisp.services;
    const activation = new ActivationService({ crm, nms, network, numbering, settings: uisp.config.activation, crmBaseUrl: `${uisp.sim.url}/crm`, today: () => '2026-11-22', writeRetry: { retries: 0, backoffMs: 1, windowMs: 1_000 }, locks });
    const sheets = new SheetService({ activation, concurrency: 2 });
    // The first row to write holds its authorization; the other row has read and asks for the locks meanwhile.
    const gate = uisp.sim.gate({ method: 'POST', path: '/nms/api/v2.1/devices/authorize' });
    const running = runSheet(sheets, [HEADER, '10.20.3.12,Shanice,Williams,1004', 'PowerBeam 5AC,Shanice,Williams,1004'].join('\n'));
    await gate.arrived(1);
    await new Promise<void>((resolve) => (asked.length >= 2 ? resolve() : (notify = () => asked.length >= 2 && resolve())));
    await new Promise((resolve) => setImmediate(resolve));
    expect(asked.map((a) => a.keys.includes('client:1004'))).toEqual([true, true]);
    expect(asked.map((a) => a.granted)).toEqual([true, false]);
    expect(uisp.sim.requests.filter((r) => r.method !== 'GET')).toHaveLength(3);
    gate.open();
    const { outcomes } = await running;
    expect(outcomes).toEqual([
      [1, 'done'],
      [2, 'done'],
    ]);
    // The second row runs on the first row's service and site: nothing of the client's is created twice.
    expect(uisp.writes().filter((w) => w.endsWith('/services') || w.endsWith('/sites'))).toHaveLength(2);
    expect(uisp.writes().filter((w) => w.endsWith('/authorize'))).toHaveLength(2);
  });

  it('a 429 storm with Retry-After slows the whole sheet to one row at a time and retries the rows: every row ends done', async () => {
    // Writes are not retried inside a row here, so each 429 reaches the sheet.
    uisp = await startUisp({ now: NOW, env: { UISP_WRITE_RETRIES: '0' } });
    uisp.sim.setFaults([{ method: 'POST', path: /\/(services|sites)$/, kind: 'status', status: 429, retryAfter: 3, times: 3 }]);
    const waits: number[] = [];
    const sheets = new SheetService({ activation: uisp.services.activation, concurrency: 2, wait: async (ms) => void waits.push(ms) });
    const { outcomes, events, rows } = await runSheet(sheets, CLEAN);

    expect(outcomes.map(([, outcome]) => outcome)).toEqual(['done', 'done', 'done', 'done']);
    const limited = uisp.sim.requests.filter((r) => r.status === 429);
    expect(limited).toHaveLength(3);
    // Each 429 made the sheet wait what Retry-After asked (3 s) before the next row started.
    const throttled = events.filter((e) => e.type === 'row-throttled');
    expect(throttled.length).toBeGreaterThanOrEqual(1);
    expect(throttled.every((e) => e.waitMs === 3_000 && e.concurrency === 1 && e.status === 429)).toBe(true);
    expect(waits).toEqual(throttled.map(() => 3_000));
    // Two rows at a time until the first throttle; after it, a row starts only when none is running.
    const running = new Set<number>();
    const runningAtStart: number[] = [];
    for (const event of events) {
      if (event.type === 'row-started') runningAtStart.push(running.add(event.row).size - 1);
      else if (event.type === 'row' || event.type === 'row-throttled') running.delete(event.row);
    }
    const startsAfterThrottle = events.slice(events.indexOf(throttled[0]!)).filter((e) => e.type === 'row-started').length;
    expect(runningAtStart.slice(0, 2)).toEqual([0, 1]);
    expect(runningAtStart.slice(-startsAfterThrottle)).toEqual(Array.from({ length: startsAfterThrottle }, () => 0));
    expect(rows.some((r) => r.attempts > 1)).toBe(true);
    expect(uisp.writes().filter((w) => w.endsWith('/authorize'))).toHaveLength(4);
  });

  it('a row UISP keeps throttling fails after 4 runs, saying why; the sheet goes on', async () => {
    uisp = await startUisp({ now: NOW, env: { UISP_WRITE_RETRIES: '0' } });
    uisp.sim.setFaults([{ method: 'POST', path: '/crm/api/v1.0/clients', kind: 'status', status: 503, retryAfter: 1 }]);
    const sheets = new SheetService({ activation: uisp.services.activation, concurrency: 2, wait: async () => {} });
    const { outcomes, rows } = await runSheet(sheets, CLEAN);
    expect(outcomes).toEqual([
      [1, 'done'],
      [2, 'done'],
      [3, 'done'],
      [4, 'failed'],
    ]);
    const failed = rows.find((r) => r.row === 4)!;
    expect(failed.attempts).toBe(4);
    expect(failed.result).toMatchObject({ outcome: 'failed', error: { code: 'uisp-error', throttled: { status: 503, retryAfterMs: 1_000 } } });
  });
});
