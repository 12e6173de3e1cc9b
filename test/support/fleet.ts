/**
 * Many brand-new customers for convergence and fault tests: the sample data plus `count` discovered
 * CPEs, each meant for a customer of its own, and several UISP service containers on one simulator,
 * each with its own dispatcher and locks, as separate processes (CLI runs, bot replicas) would have.
 */
import { readFileSync } from 'node:fs';
import { loadCoreConfig, type Env } from '../../src/config.js';
import type { ActivationConfirmation, ActivationRequest, ActivationResult } from '../../src/services/activation/types.js';
import { worded, type WordedResult } from './worded.js';
import { createServices, type Services } from '../../src/services/container.js';
import { buildData, startSimulator, type RunningSimulator, type SimulatorData } from '../../src/simulator/index.js';
import { afterEach } from 'vitest';

const SAMPLE = new URL('../../src/simulator/sample-data.json', import.meta.url);

export interface FleetCustomer {
  firstName: string;
  lastName: string;
  deviceId: string;
  /** The same device as an agent might type it: IP, IP with prefix, MAC, name. */
  typed: [ip: string, prefixed: string, mac: string, name: string];
}

/** Letters only, so every name is a valid person name: 0 → "a", 25 → "z", 26 → "ba". */
function letters(n: number): string {
  let out = '';
  do {
    out = String.fromCharCode(97 + (n % 26)) + out;
    n = Math.floor(n / 26);
  } while (n > 0);
  return out;
}

export function fleetCustomer(i: number): FleetCustomer {
  const hex = (n: number) => n.toString(16).padStart(2, '0');
  const ip = `10.30.${i >> 8}.${i & 255}`;
  const mac = `02:5a:00:00:${hex(i >> 8)}:${hex(i & 255)}`;
  return {
    firstName: 'Fleet',
    lastName: `Cust${letters(i)}`,
    deviceId: `0f1ee700-0000-4000-8000-${i.toString(16).padStart(12, '0')}`,
    typed: [ip, `${ip}/24`, mac.toUpperCase(), `cpe-fleet-${i}`],
  };
}

/** The sample data with `count` more discovered CPEs, customer i's device being fleetCustomer(i)'s. */
export function fleetData(count: number): SimulatorData {
  const raw = JSON.parse(readFileSync(SAMPLE, 'utf8')) as { devices: unknown[] };
  for (let i = 0; i < count; i++) {
    const { deviceId, typed } = fleetCustomer(i);
    raw.devices.push({
      identification: { id: deviceId, name: typed[3], mac: typed[2].toLowerCase(), ip: typed[0], model: 'LBE-5AC-Gen2', type: 'airMax', role: 'station', category: 'wireless', authorized: false },
      ipAddress: typed[1],
      mode: 'sta-ptmp',
    });
  }
  return buildData(raw);
}

/**
 * A fresh simulator (the sample data and 4 fleet customers) with `processes` containers per test, all
 * closed after it: `start` in the test, then `sim` is that test's simulator.
 */
export function fleetPerTest() {
  let open: Services[] = [];
  let current: RunningSimulator | undefined;
  afterEach(async () => {
    await Promise.all(open.map((s) => s.close()));
    open = [];
    await current?.close();
    current = undefined;
  });
  return {
    async start(processes: number, latencyMs = 0, env: Env = {}): Promise<Services[]> {
      current = await startSimulator({ data: fleetData(4), latencyMs });
      open = containers(current, processes, env);
      return open;
    },
    get sim(): RunningSimulator {
      if (!current) throw new Error('fleetPerTest: start() first');
      return current;
    },
  };
}

/** One services container per simulated process; close them all with closeAll. */
export function containers(sim: RunningSimulator, count: number, env: Env = {}): Services[] {
  const config = loadCoreConfig({
    UISP_URL: sim.url,
    UISP_TOKEN: sim.token,
    ISP_TIMEZONE: 'America/Guyana',
    UISP_RETRY_BACKOFF_MS: '1',
    UISP_WRITE_BACKOFF_MS: '1',
    ...env,
  });
  return Array.from({ length: count }, () => createServices(config));
}

/** Runs one activation to its end (`confirm`: the deletes and moves the agent agreed to): the result, worded as an agent reads it. */
export async function activate(services: Services, request: ActivationRequest, confirm: ActivationConfirmation = {}): Promise<WordedResult> {
  let result: ActivationResult | undefined;
  for await (const event of services.activation.run(request, { confirm })) if (event.type === 'result') result = event;
  return worded(result!);
}

/**
 * What UISP holds for a customer, read straight from the simulator's state by the tests' own rule (never
 * the code under test's): clients by name, their services, and the sites whose note names one of those
 * clients as the README documents it ("Created by SubOps for CRM client <id> (activation …)") or that the
 * CRM binds to one of them.
 */
export function holdings(sim: RunningSimulator, customer: FleetCustomer) {
  const { data } = sim;
  const clients = data.clients.filter((c) => c.firstName === customer.firstName && c.lastName === customer.lastName);
  const clientIds = new Set(clients.map((c) => c.id));
  const services = data.services.filter((s) => clientIds.has(s.clientId));
  const namedFor = (note: string | null | undefined) => /Created by SubOps for CRM client (\d+) \(activation [0-9a-f]{8}\)/.exec(note ?? '')?.[1];
  const sites = data.sites.filter((s) => {
    const id = namedFor(s.description?.note) ?? s.ucrm?.client?.id ?? s.description?.ucrmId;
    return id != null && clientIds.has(Number(id));
  });
  const device = data.devices.find((d) => d.identification.id === customer.deviceId)!;
  return { clients, services, active: services.filter((s) => s.status === 1), sites, device };
}
