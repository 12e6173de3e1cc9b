/**
 * CLI runs share the embedded store with the bot and with each other on one machine (issue #35): an
 * activation holds its device in the store (STORE_DIR) while it writes, where any other SubOps process
 * on the machine sees it, and lets go of it before it exits.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it, onTestFinished } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { openStore } from '../../src/store/index.js';
import { fleetCustomer, fleetData } from '../support/fleet.js';
import { runMain } from './support.js';

let sim: RunningSimulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

it('`subops activate` holds its device in the embedded store while it writes, and lets go of it before it exits', async () => {
  sim = await startSimulator({ data: fleetData(1) });
  const customer = fleetCustomer(0);
  const dir = await mkdtemp(join(tmpdir(), 'subops-cli-shared-'));
  const bot = openStore({ engine: 'embedded', dir });
  onTestFinished(() => bot.close());

  const clients = sim.gate({ method: 'POST', path: /^\/crm\/api\/v1\.0\/clients$/ });
  const run = runMain(['activate', '--device', customer.typed[0], '--first-name', 'Fleet', '--last-name', customer.lastName, '--yes'], { UISP_URL: sim.url, UISP_TOKEN: sim.token, ISP_TIMEZONE: 'America/Guyana', STORE_DIR: dir });
  await clients.arrived(1);
  // Parked at its first write: another process on the machine sees the device held.
  expect(await bot.claims.isClaimed(`lock:device:${customer.deviceId}`)).toBe(true);
  clients.open();
  const { code } = await run;
  expect(code).toBe(0);
  expect(await bot.claims.isClaimed(`lock:device:${customer.deviceId}`)).toBe(false);
});
