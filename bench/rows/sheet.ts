/**
 * Row 10 (issue 41): a 40-row install sheet against the simulator at 50 ms per UISP request, its wall
 * time against 40 single activations run one after another (the baseline, on the same simulator and
 * services), and UISP requests per row against a single activation's. Each row and each single
 * activation is a new customer on a discovered device of its own (added to the sample data), so both
 * sides do the same work. The sheet runs as `subops activate --sheet` runs it: checked, then run at
 * SHEET_CONCURRENCY (its default, 2).
 */
import { loadCoreConfig } from '../../src/config.js';
import { createServices } from '../../src/services/container.js';
import type { ActivationRequest } from '../../src/services/activation/types.js';
import type { SheetRow } from '../../src/services/sheets/sheet.js';
import { addDiscoveredDevices } from '../../src/simulator/discovered.js';
import { startSimulator } from '../../src/simulator/index.js';
import { ms, record } from '../report.js';

const ROWS = 40;
const LATENCY_MS = 50;
/** The sheet's wall time against the same activations one after another. */
const TIME_GOAL = 0.6;
/** UISP requests per row against a single activation's: the sheet's check reads each row once more. */
const REQUESTS_GOAL = 2;

const request = (device: string, n: number): ActivationRequest => ({ device, firstName: 'Bench', lastName: `Customer ${String.fromCharCode(65 + (n % 26))}${String.fromCharCode(65 + Math.floor(n / 26))}` });

export async function installSheet(): Promise<void> {
  const sim = await startSimulator({ latencyMs: LATENCY_MS });
  const services = createServices(loadCoreConfig({ UISP_URL: sim.url, UISP_TOKEN: sim.token, ISP_TIMEZONE: 'America/Guyana' }));
  try {
    const singles = addDiscoveredDevices(sim, ROWS, 0);
    const sheetDevices = addDiscoveredDevices(sim, ROWS, ROWS);

    let requests = sim.requests.length;
    let started = performance.now();
    for (const [n, device] of singles.entries()) {
      for await (const event of services.activation.run(request(device, n), { confirm: {} })) {
        if (event.type === 'result' && event.outcome !== 'activated') throw new Error(`single activation ${n} ended ${event.outcome}`);
      }
    }
    const singlesMs = performance.now() - started;
    const singleRequests = (sim.requests.length - requests) / ROWS;

    const rows: SheetRow[] = sheetDevices.map((device, i) => ({ row: i + 1, line: i + 2, ok: true, request: request(device, ROWS + i) }));
    requests = sim.requests.length;
    started = performance.now();
    const check = await services.sheets.check(rows);
    let done = 0;
    for await (const event of services.sheets.run(check, 'none')) if (event.type === 'row' && event.outcome === 'done') done++;
    const sheetMs = performance.now() - started;
    const sheetRequests = (sim.requests.length - requests) / ROWS;
    if (done !== ROWS) throw new Error(`the sheet ended with ${done} of ${ROWS} rows done`);

    record({
      target: '10',
      name: `a ${ROWS}-row install sheet, checked and run, UISP at ${LATENCY_MS} ms: wall time`,
      figure: ms(sheetMs),
      baseline: `${ms(singlesMs)} (${ROWS} single activations, one after another)`,
      ratio: sheetMs / singlesMs,
      goal: `≤ ${TIME_GOAL}×`,
      pass: sheetMs <= TIME_GOAL * singlesMs,
    });
    record({
      target: '10',
      name: `the same sheet: UISP requests per row (its check included)`,
      figure: sheetRequests.toFixed(1),
      baseline: `${singleRequests.toFixed(1)} (a single activation)`,
      ratio: sheetRequests / singleRequests,
      goal: `≤ ${REQUESTS_GOAL}×`,
      pass: sheetRequests <= REQUESTS_GOAL * singleRequests,
    });
  } finally {
    await services.close();
    await sim.close();
  }
}
