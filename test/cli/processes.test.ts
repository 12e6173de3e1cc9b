/**
 * Real operating-system processes: four `subops activate` commands started at once for the same new
 * customer, the device typed four ways, against one UISP (the simulator, in this test process). Nothing
 * is shared between them but UISP. Runs the built CLI (bin/subops.js → dist/), as `npm ci` builds it.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { fleetCustomer, fleetData, holdings } from '../support/fleet.js';
import { runSubops } from '../support/subops-process.js';

const BUILT = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));

let sim: RunningSimulator;
beforeAll(async () => {
  sim = await startSimulator({ data: fleetData(1), latencyMs: 2 });
});
afterAll(async () => sim?.close());

const subops = (args: string[]) =>
  runSubops(args, { SUBOPS_ENV_FILE: '', UISP_URL: sim.url, UISP_TOKEN: sim.token, ISP_TIMEZONE: 'America/Guyana', UISP_WRITE_BACKOFF_MS: '5', NO_COLOR: '1' });

it('four `subops activate` processes for the same new customer end with one client, one Active service, one site', async () => {
  expect(existsSync(BUILT), 'dist/ is missing: run `npm run build` (npm ci does it)').toBe(true);
  const customer = fleetCustomer(0);
  const runs = await Promise.all(customer.typed.map((device) => subops(['activate', '--device', device, '--first-name', 'fleet', '--last-name', customer.lastName.toLowerCase(), '--json'])));

  const results = runs.map((run) => JSON.parse(run.stdout.trim().split('\n').at(-1)!) as { type: string; outcome: string; message: string; client: { id: number } });
  // stderr holds each run's audit line (one JSON object with "audit": true) and nothing else.
  const notAudit = (stderr: string) => stderr.split('\n').filter((line) => line && !line.includes('"audit":true')).join('\n');
  expect(runs.map((run, i) => ({ code: run.code, stderr: notAudit(run.stderr), message: results[i]!.message }))).toEqual(
    results.map((result) => ({ code: 0, stderr: '', message: result.message })),
  );
  for (const result of results) expect(['activated', 'already-activated']).toContain(result.outcome);

  const held = holdings(sim, customer);
  expect({ clients: held.clients.length, services: held.services.length, active: held.active.length, sites: held.sites.length }).toEqual({ clients: 1, services: 1, active: 1, sites: 1 });
  expect(held.device.identification).toMatchObject({ authorized: true, site: { id: held.sites[0]!.id } });
  expect(new Set(results.map((result) => result.client.id))).toEqual(new Set([held.clients[0]!.id]));
});
