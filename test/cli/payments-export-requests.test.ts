/**
 * What `subops payments --csv` asks UISP: the client names beside the payments come from the CRM's
 * client list read a page at a time, not from one GET /clients/{id} per paying client, and the CSV is
 * the same, byte for byte, as when each client was read on its own. In both UISP worlds.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { SIMULATOR_WORLDS, startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { containers } from '../support/fleet.js';
import { addPayingClients, ARCHIVED_PAYER_ID, csvByClientReads, FIRST_PAYER_ID, GONE_PAYER_ID, PAYING_RANGE } from '../support/paying-clients.js';
import { runCli } from './support.js';

let sim: RunningSimulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

const PAYERS = 600;

describe.each(SIMULATOR_WORLDS)('payments --csv of many paying clients (%s world)', (world) => {
  it('reads the client list a page at a time: a handful of requests, none per paying client; the CSV is byte-identical to per-client reads', async () => {
    sim = await startSimulator({ world });
    addPayingClients(sim, PAYERS);
    const before = sim.requests.length;
    const { code, out, err } = await runCli(['payments', '--csv', '--from', PAYING_RANGE.from, '--to', PAYING_RANGE.to], { UISP_URL: sim.url, UISP_TOKEN: sim.token }, [sim.token]);
    expect(err).toBe('');
    expect(code).toBe(0);
    const asked = sim.requests.slice(before).map((r) => `${r.method} ${r.path}`);
    // The archived client (left out of the list) and the one the CRM no longer has are read on their own.
    expect(asked.filter((r) => /^GET \/crm\/api\/v1\.0\/clients\/\d+$/.test(r)).sort()).toEqual([`GET /crm/api/v1.0/clients/${GONE_PAYER_ID}`, `GET /crm/api/v1.0/clients/${ARCHIVED_PAYER_ID}`]);
    // Two pages of clients and two of payments, each with up to 3 more read ahead past the end
    // (UISP_PAGES_IN_FLIGHT=4, empty answers), and the payment methods: before, 600 more.
    expect(asked.filter((r) => r === 'GET /crm/api/v1.0/clients').length).toBeLessThanOrEqual(2 + 3);
    expect(asked.length).toBeLessThanOrEqual(15);

    const lines = out.trimEnd().split('\n');
    expect(lines).toHaveLength(PAYERS + 3);
    expect(lines.find((l) => l.includes(`,${FIRST_PAYER_ID + 5},`))).toContain(',"Anne ""Nan"" 5 Demerara5",');
    expect(lines.find((l) => l.includes(`,${ARCHIVED_PAYER_ID},`))).toContain(',Payer0 Demerara0,');
    const [services] = containers(sim, 1);
    try {
      expect(out).toBe(await csvByClientReads(services!, PAYING_RANGE));
    } finally {
      await services!.close();
    }
  });

  it('--json (client ids, no names) asks the CRM for no client at all', async () => {
    sim = await startSimulator({ world });
    addPayingClients(sim, PAYERS);
    const before = sim.requests.length;
    const { code, out } = await runCli(['payments', '--json', '--from', PAYING_RANGE.from, '--to', PAYING_RANGE.to], { UISP_URL: sim.url, UISP_TOKEN: sim.token }, [sim.token]);
    expect(code).toBe(0);
    // A payment a line, then the totals.
    expect(out.trimEnd().split('\n')).toHaveLength(PAYERS + 3);
    const asked = sim.requests.slice(before).map((r) => `${r.method} ${r.path}`);
    expect(asked.filter((r) => r.startsWith('GET /crm/api/v1.0/clients'))).toEqual([]);
  });

  it('the listing of many (--limit 1000) names its clients the same way: the client list, not a read per client', async () => {
    sim = await startSimulator({ world });
    addPayingClients(sim, PAYERS);
    const before = sim.requests.length;
    const { code, out } = await runCli(['payments', '--limit', '1000', '--from', PAYING_RANGE.from, '--to', PAYING_RANGE.to], { UISP_URL: sim.url, UISP_TOKEN: sim.token }, [sim.token]);
    expect(code).toBe(0);
    expect(out).toContain(`#${FIRST_PAYER_ID + 1} Payer1 Demerara1`);
    const asked = sim.requests.slice(before).map((r) => `${r.method} ${r.path}`);
    expect(asked).toContain('GET /crm/api/v1.0/clients');
    expect(asked.filter((r) => /^GET \/crm\/api\/v1\.0\/clients\/\d+$/.test(r))).toHaveLength(2);
  });

  it('the sample data exported whole (a few clients, each read on its own as before): byte-identical to per-client reads', async () => {
    sim = await startSimulator({ world });
    const range = { from: '2000-01-01', to: '2099-12-31' };
    const before = sim.requests.length;
    const { code, out } = await runCli(['payments', '--csv', '--from', range.from, '--to', range.to], { UISP_URL: sim.url, UISP_TOKEN: sim.token }, [sim.token]);
    expect(code).toBe(0);
    const asked = sim.requests.slice(before).map((r) => `${r.method} ${r.path}`);
    expect(asked).not.toContain('GET /crm/api/v1.0/clients');
    expect(asked.filter((r) => r.startsWith('GET /crm/api/v1.0/clients/'))).toHaveLength(new Set(sim.data.payments.map((p) => p.clientId)).size);
    const [services] = containers(sim, 1);
    try {
      expect(out).toBe(await csvByClientReads(services!, range));
    } finally {
      await services!.close();
    }
  });
});
