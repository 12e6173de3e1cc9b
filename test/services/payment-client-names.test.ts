/**
 * How a payments export names its clients, in both UISP worlds: a few clients are read one at a time,
 * many from the CRM's client list read a page at a time; a CRM that does not page GET /clients as asked
 * (it ignores `offset`, or `limit` and `offset`, or answers 404) is said once and asked each client on
 * its own from then on. Whichever way, the CSV is byte-identical to per-client reads.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { loadCoreConfig } from '../../src/config.js';
import { CLIENT_READS_BEFORE_LISTING } from '../../src/services/client-names.js';
import { createServices, type Services } from '../../src/services/container.js';
import { csvHeader, paymentCsvLine } from '../../src/services/payments-csv.js';
import { SIMULATOR_WORLDS, startSimulator, type FaultRule, type RunningSimulator } from '../../src/simulator/index.js';
import { addPayingClients, csvByClientReads, PAYING_RANGE } from '../support/paying-clients.js';

const LIST = 'GET /crm/api/v1.0/clients';
const ONE_CLIENT = /^GET \/crm\/api\/v1\.0\/clients\/\d+$/;

let closing: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closing.reverse()) await close();
  closing = [];
});

/** A UISP in front of the simulator that drops these query parameters from GET /crm/api/v1.0/clients (and passes everything else on). */
async function ignoringOnClientList(sim: RunningSimulator, dropped: string[]): Promise<string> {
  const server: Server = createServer((request, response) => {
    const url = new URL(request.url!, sim.url);
    if (request.method === 'GET' && url.pathname === '/crm/api/v1.0/clients') for (const name of dropped) url.searchParams.delete(name);
    const headers = Object.fromEntries(Object.entries(request.headers).filter(([name]) => name.startsWith('x-auth'))) as Record<string, string>;
    void fetch(url, { method: request.method!, headers }).then(async (answer) => {
      response.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
      response.end(Buffer.from(await answer.arrayBuffer()));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closing.push(() => new Promise((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

interface Setup {
  payers: number;
  /** Query parameters the CRM in front drops from GET /clients. */
  dropped?: string[];
  faults?: FaultRule[];
}

async function start(world: (typeof SIMULATOR_WORLDS)[number], { payers, dropped, faults }: Setup) {
  const sim = await startSimulator({ world, ...(faults && { faults }) });
  closing.push(() => sim.close());
  addPayingClients(sim, payers);
  const url = dropped ? await ignoringOnClientList(sim, dropped) : sim.url;
  const notices: string[] = [];
  const config = loadCoreConfig({ UISP_URL: url, UISP_TOKEN: sim.token, UISP_RETRIES: '2', UISP_RETRY_BACKOFF_MS: '1', ISP_TIMEZONE: 'America/Guyana' });
  const services = createServices(config, { notice: (line) => notices.push(line) });
  closing.push(() => services.close());
  // The oracle reads the simulator directly, each client on its own.
  const direct = createServices(loadCoreConfig({ UISP_URL: sim.url, UISP_TOKEN: sim.token, ISP_TIMEZONE: 'America/Guyana' }));
  closing.push(() => direct.close());
  return { sim, services, notices, expected: () => csvByClientReads(direct, PAYING_RANGE) };
}

/** The export as the CLI and Slack write it, and what it asked the simulator. */
async function exportCsv(sim: RunningSimulator, services: Services): Promise<{ csv: string; asked: string[] }> {
  const before = sim.requests.length;
  const lines = [csvHeader()];
  for await (const page of services.payments.pagesWithClientNames(PAYING_RANGE)) for (const payment of page.payments) lines.push(paymentCsvLine(payment, page));
  return { csv: `${lines.join('\n')}\n`, asked: sim.requests.slice(before).map((r) => `${r.method} ${r.path}`) };
}

describe.each(SIMULATOR_WORLDS)('client names of a payments export (%s world)', (world) => {
  it(`picks by count: up to ${CLIENT_READS_BEFORE_LISTING} clients are read one at a time, one more and the client list is read instead`, async () => {
    // addPayingClients adds two more payers: an archived client and one the CRM no longer has.
    const few = await start(world, { payers: CLIENT_READS_BEFORE_LISTING - 2 });
    const read = await exportCsv(few.sim, few.services);
    expect(read.asked).not.toContain(LIST);
    expect(read.asked.filter((r) => ONE_CLIENT.test(r))).toHaveLength(CLIENT_READS_BEFORE_LISTING);
    expect(read.csv).toBe(await few.expected());

    const many = await start(world, { payers: CLIENT_READS_BEFORE_LISTING - 1 });
    const listed = await exportCsv(many.sim, many.services);
    expect(listed.asked).toContain(LIST);
    expect(listed.asked.filter((r) => ONE_CLIENT.test(r))).toHaveLength(2);
    expect(listed.csv).toBe(await many.expected());
    expect([...few.notices, ...many.notices]).toEqual([]);
  });

  it(`archived clients that pay (GET /clients leaves them out): past ${CLIENT_READS_BEFORE_LISTING} of them, their own list is read, not each of them`, async () => {
    const { sim, services, notices, expected } = await start(world, { payers: 100 });
    // Every other payer archived: 50 active, 51 archived (addPayingClients' own included).
    for (const client of sim.data.clients) if (client.id >= 20_000 && client.id % 2 === 1) client.isArchived = true;
    sim.data.clients.push(...Array.from({ length: 20 }, (_, i) => ({ ...sim.data.clients.at(-1)!, id: 30_000 + i, isArchived: true })));
    sim.data.payments.push(...Array.from({ length: 20 }, (_, i) => ({ ...sim.data.payments.at(-1)!, id: 990_000 + i, clientId: 30_000 + i })));
    const listed = await exportCsv(sim, services);
    expect(listed.csv).toBe(await expected());
    expect(sim.requests.some((r) => r.path === '/crm/api/v1.0/clients' && r.query.isArchived === '1')).toBe(true);
    // The client the CRM no longer has, and one more: the rest came from the two lists.
    expect(listed.asked.filter((r) => ONE_CLIENT.test(r)).length).toBeLessThanOrEqual(2);
    expect(notices).toEqual([]);
  });

  it.each([
    ['ignores offset', { dropped: ['offset'] }, /it answered offset=500 with clients it had already listed/],
    ['ignores limit and offset', { dropped: ['limit', 'offset'] }, /it answered \d+ clients to limit=500/],
    ['answers 404 to GET /clients', { faults: [{ method: 'GET', path: '/crm/api/v1.0/clients', kind: 'status', status: 404 }] as FaultRule[] }, /it refused it \(.*HTTP 404\)/],
  ])('a CRM that %s: names as per-client reads give them, said once; the next export reads each client', async (_, setup, why) => {
    const { sim, services, notices, expected } = await start(world, { payers: 600, ...setup });
    const first = await exportCsv(sim, services);
    expect(first.csv).toBe(await expected());
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatch(why);
    expect(notices[0]).toContain("payment exports read each client's name on its own (GET /clients/{id}) from now on");

    const second = await exportCsv(sim, services);
    expect(second.csv).toBe(first.csv);
    // (Each client read on its own, from the listing's cache where the first export read it.)
    expect(second.asked).not.toContain(LIST);
    expect(notices).toHaveLength(1);
  });

  it('a client list that fails for a while (500 to every try: the first and UISP_RETRIES=2 more) is not taken for one the CRM does not page: names by per-client reads, nothing said, the list asked again next time', async () => {
    const { sim, services, notices, expected } = await start(world, { payers: 600, faults: [{ method: 'GET', path: '/crm/api/v1.0/clients', kind: 'status', status: 500, times: 3 }] });
    const first = await exportCsv(sim, services);
    expect(first.csv).toBe(await expected());
    expect(notices).toEqual([]);
    const second = await exportCsv(sim, services);
    expect(second.asked).toContain(LIST);
    expect(second.asked.filter((r) => ONE_CLIENT.test(r)).length).toBeLessThanOrEqual(2);
    expect(second.csv).toBe(first.csv);
  });
});
