/** `subops client` and `subops device`: the cards in the terminal and as --json objects, with their exit codes. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { WORLD_FILTERS, worldFromEnv } from '../../src/simulator/world.js';
import { runCli } from './support.js';

let sim: RunningSimulator;
// Lookups only read: one simulator serves every test.
beforeAll(async () => {
  sim = await startSimulator();
});
afterAll(async () => sim.close());

const subops = (argv: string[]) => runCli(argv, { UISP_URL: sim.url, UISP_TOKEN: sim.token }, [sim.token]);
const keys = (value: unknown) => Object.keys(value as object).sort();
const writes = () => sim.requests.filter((r) => r.method !== 'GET');

describe('subops client', () => {
  it('shows the card: balance, services with state and reason, last payment, site and devices, and what to run next', async () => {
    const { code, out, err } = await subops(['client', '#1005']);
    expect(code).toBe(0);
    // Nothing on stderr but, from an NMS without the Swagger's filters (the interface world), that notice.
    expect(err.split('\n').filter((line) => line && !line.startsWith("UISP's NMS does not honour "))).toEqual([]);
    expect(out).toContain('Client #1005 Ravi Persaud (DW-1005)');
    expect(out).toContain(`CRM: ${sim.url}/crm/client/1005`);
    expect(out).toContain('Balance: GYD -20,000.00 (owes GYD 20,000.00)');
    expect(out).toContain('#104  Standard Monthly  Suspended (Non-payment)  GYD 10,000.00 / month');
    expect(out).toMatch(/Last payment: #\d+ \d{4}-\d\d-\d\d GYD [\d,]+\.\d\d/);
    expect(out).toContain('NMS site "Ravi Persaud" (linked in the CRM)');
    expect(out).toContain('cpe-persaud  NanoBeam 5AC Gen2  online  -63 dBm · up 22d 1h  10.20.2.44');
    expect(out).toContain('subops unsuspend --service-id 104');
    expect(writes()).toEqual([]);
  });

  it('a UISP_URL with a user name and password works, but neither is shown in the CRM link', async () => {
    const withUserInfo = sim.url.replace('http://', 'http://admin:hunter2@');
    const { code, out } = await runCli(['client', '#1005'], { UISP_URL: withUserInfo, UISP_TOKEN: sim.token }, [sim.token, 'hunter2']);
    expect(code).toBe(0);
    expect(out).toContain(`CRM: ${sim.url}/crm/client/1005`);
    expect(out).not.toContain('admin');
  });

  it('shows an offline device with when it was last seen, and an archived client without next steps', async () => {
    const { code, out } = await subops(['client', 'Leon', 'Hope']);
    expect(code).toBe(0);
    expect(out).toContain('[archived]');
    expect(out).toContain('cpe-hope  LiteBeam 5AC Gen2  offline (disconnected), last seen 2025-11-02 08:15 UTC  10.20.1.77');
    expect(out).toContain('Archived: restore the client in the CRM before changing anything.');
  });

  it('lists several matches with what tells them apart (exit 0), and says when none matches (exit 1)', async () => {
    const many = await subops(['client', 'kevin singh']);
    expect(many.code).toBe(0);
    expect(many.out).toContain('2 clients match "kevin singh":');
    expect(many.out).toContain('#1008  Kevin Singh  19 Parika Backdam, Parika  kevin.singh@example.com');
    expect(many.out).toContain('#1009  Kevin Singh  2 Canje Road, New Amsterdam');
    const none = await subops(['client', 'ada', 'lovelace']);
    expect(none.code).toBe(1);
    expect(none.out).toContain('No CRM client matches "ada lovelace".');
    expect(none.out).toContain('subops activate --device <ip|mac|name> --first-name ada --last-name lovelace');
  });

  it('refuses bad input before asking UISP (exit 2)', async () => {
    const before = sim.requests.length;
    for (const argv of [['client'], ['client', '#0'], ['device']]) {
      const run = await subops(argv);
      expect(run.code).toBe(2);
      expect(run.err).toMatch(/^Error: <(name \| id|ip \| mac \| name)>: /);
    }
    expect(sim.requests.length).toBe(before);
  });

  it('--json: one documented object per answer, with the shared client, service, payment and device fields', async () => {
    const card = JSON.parse((await subops(['client', '1001', '--json'])).out) as Record<string, unknown> & { services: object[]; sites: { devices: object[] }[] };
    expect(keys(card)).toEqual(['account', 'activate', 'client', 'crmUrl', 'gaps', 'lastPayment', 'outages', 'services', 'sites', 'type']);
    expect(keys(card.client)).toEqual(['address', 'archived', 'email', 'id', 'name', 'phone', 'userIdent']);
    expect(keys(card.services[0])).toEqual(['action', 'clientId', 'currency', 'id', 'name', 'periodMonths', 'plan', 'price', 'status', 'statusLabel', 'suspensionReason']);
    expect(keys(card.lastPayment)).toEqual(['amount', 'clientId', 'createdDate', 'currency', 'id', 'method', 'note']);
    expect(keys(card.sites[0]!.devices[0])).toEqual(['authorized', 'id', 'ip', 'lastSeen', 'list', 'mac', 'model', 'name', 'online', 'role', 'signal', 'siteId', 'status', 'uptimeSeconds']);
    expect(card).toMatchObject({ type: 'client', account: { balance: 0, outstanding: 0, currency: 'GYD' }, services: [{ id: 101, statusLabel: 'Active', action: 'suspend' }], activate: null });

    expect(JSON.parse((await subops(['client', 'Kevin', '--json'])).out)).toMatchObject({ type: 'matches', query: 'Kevin', clients: [{ id: 1008 }, { id: 1009 }] });
    expect(JSON.parse((await subops(['client', 'Nobody', '--json'])).out)).toEqual({ type: 'none', query: 'Nobody' });
  });
});

describe('subops device', () => {
  it('shows a device by IP: model, status, signal, uptime, MAC, authorization, site and client', async () => {
    const { code, out } = await subops(['device', '10.20.1.21']);
    expect(code).toBe(0);
    expect(out.split('\n').slice(0, 7)).toEqual([
      'Device cpe-baptiste (LiteBeam 5AC Gen2)',
      '  Status: online',
      '  Link: -58 dBm · up 7d 9h',
      '  IP: 10.20.1.21   MAC: B4:FB:E4:1A:2B:21   Role: station',
      '  Authorized: yes',
      '  Site: Marcus Baptiste (endpoint)',
      '  Client: #1001 Marcus Baptiste',
    ]);
  });

  it('a discovered device comes with the activate command, prefilled; --json names it too', async () => {
    const { out } = await subops(['device', '74:83:C2:0F:AB:88']);
    expect(out).toContain('Activate it for a customer: subops activate --device 10.20.1.88 --first-name <name> --last-name <name>');
    const json = JSON.parse((await subops(['device', '10.20.1.88', '--json'])).out) as Record<string, unknown>;
    expect(keys(json)).toEqual(['activate', 'client', 'device', 'gaps', 'outages', 'site', 'type']);
    expect(json).toMatchObject({ type: 'device', device: { name: 'PowerBeam 5AC', list: 'discovered', authorized: false }, site: null, client: null, activate: { device: '10.20.1.88', firstName: null, lastName: null, clientId: null } });
  });

  it('lists partial name matches and says when nothing matches (exit 1)', async () => {
    const many = await subops(['device', 'ap1']);
    expect(many.code).toBe(0);
    expect(many.out).toContain('3 devices match "ap1":');
    const none = await subops(['device', '10.99.0.1']);
    expect(none.code).toBe(1);
    expect(none.out).toContain('No NMS device matches "10.99.0.1"');
  });
});

describe('the cards during an outage (issue #40)', () => {
  it("say since when and which device, for the tower's customer and its radio, not for a neighbour tower's customer; --json lists it", async () => {
    const world = worldFromEnv();
    const down = await startSimulator({ world, filters: [...new Set([...WORLD_FILTERS[world], 'outages' as const])] });
    try {
      down.takeDown('1c0f5e8b-2a3d-4b4c-9e6f-7d8a9b0c1d02', new Date('2026-11-28T14:02:00Z'));
      const run = (argv: string[]) => runCli(argv, { UISP_URL: down.url, UISP_TOKEN: down.token }, [down.token]);
      const line = '! Affected by an outage since 2026-11-28 14:02 UTC (diamond-ap1 at Diamond Tower)';
      const marcus = await run(['client', '#1001']);
      expect(marcus.code).toBe(0);
      const lines = marcus.out.split('\n');
      // Under the balance, before the services.
      expect(lines[lines.findIndex((l) => l.startsWith('  Balance: ')) + 1]).toBe(line);
      const radio = await run(['device', '10.20.1.21']);
      expect(radio.out.split('\n')).toContain(line);
      expect((await run(['client', '#1005'])).out).not.toContain('outage');
      const json = JSON.parse((await run(['client', '#1001', '--json'])).out) as { outages: unknown[] };
      expect(json.outages).toEqual([{ id: expect.any(String), since: '2026-11-28T14:02:00.000Z', device: 'diamond-ap1', site: 'Diamond Tower' }]);
    } finally {
      await down.close();
    }
  });
});
