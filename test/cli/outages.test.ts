/**
 * `subops outages` (issue #40): the outages in progress with the customers each affects, as text (the
 * first 10 and a count) and as --json objects, exit 0; an NMS without GET /outages (the interface
 * document's) is said so, exit 1, never "no outage".
 */
import { afterEach, describe, expect, it } from 'vitest';
import { buildData, generateDataSet, startSimulator, type RunningSimulator, type SimulatorData } from '../../src/simulator/index.js';
import { WORLD_FILTERS, worldFromEnv, type SimulatorFilter } from '../../src/simulator/world.js';
import { runCli } from './support.js';

const DIAMOND_AP = '1c0f5e8b-2a3d-4b4c-9e6f-7d8a9b0c1d02';
const CPE_PERSAUD = '5a4d9c2f-6e7b-4f8a-9c0d-1b2e3f4a5b06';
const world = worldFromEnv();
const withOutages: readonly SimulatorFilter[] = [...new Set([...WORLD_FILTERS[world], 'outages' as const])];

let sim: RunningSimulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

async function start(filters: readonly SimulatorFilter[] = withOutages, data?: SimulatorData) {
  sim = await startSimulator({ world, filters, ...(data && { data }) });
  return sim;
}
const subops = (argv: string[]) => runCli(argv, { UISP_URL: sim!.url, UISP_TOKEN: sim!.token }, [sim!.token]);
const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000);
const nonNotices = (err: string) => err.split('\n').filter((line) => line && !line.startsWith("UISP's NMS does not honour "));

describe(`subops outages (${world} world)`, () => {
  it('lists each outage, newest first, with the customers it affects and their services', async () => {
    const sim = await start();
    const since = minutesAgo(65);
    sim.takeDown(DIAMOND_AP, since);
    sim.takeDown(CPE_PERSAUD, minutesAgo(3));
    const { code, out, err } = await subops(['outages']);
    expect(code).toBe(0);
    expect(nonNotices(err)).toEqual([]);
    const stamp = `${since.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
    expect(out.split('\n')).toEqual([
      expect.stringMatching(/^cpe-persaud \(NanoBeam 5AC Gen2, station, 10\.20\.2\.44\) at Ravi Persaud, down since .* UTC \(3m\)$/),
      '  1 customer affected:',
      '    #1005 Ravi Persaud: service #104 Standard Monthly (Suspended)',
      '',
      `diamond-ap1 (Rocket 5AC Prism, ap, 10.20.1.2/24) at Diamond Tower, down since ${stamp} (1h 5m)`,
      '  2 customers affected:',
      '    #1007 Leon Hope: no service linked',
      '    #1001 Marcus Baptiste: service #101 Standard Monthly (Active)',
      '',
    ]);
  });

  it('names the first 10 customers of an outage and counts the rest', async () => {
    const data = buildData(generateDataSet({ customers: 30 }));
    const sim = await start(withOutages, data);
    const tower = data.sites.find((s) => s.identification.type === 'site' && s.identification.parent !== null)!;
    sim.takeDown(data.devices.find((d) => d.identification.site?.id === tower.id)!.identification.id);
    const { code, out } = await subops(['outages']);
    expect(code).toBe(0);
    const customers = data.sites.filter((s) => s.identification.parent?.id === tower.id && s.identification.type === 'endpoint').length;
    expect(customers).toBeGreaterThan(20);
    const lines = out.split('\n');
    expect(lines[1]).toBe(`  ${customers} customers affected:`);
    expect(lines.slice(2, 12).every((line) => /^ {4}#\d+ /.test(line))).toBe(true);
    expect(lines[12]).toBe(`    … and ${customers - 10} more`);
    expect(lines[13]).toBe('');
  });

  it('--json: one object per outage with every affected customer', async () => {
    const sim = await start();
    sim.takeDown(DIAMOND_AP, new Date('2026-11-28T14:02:00Z'));
    const { code, out } = await subops(['outages', '--json']);
    expect(code).toBe(0);
    const objects = out.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(objects).toEqual([
      {
        type: 'outage',
        id: expect.any(String),
        since: '2026-11-28T14:02:00.000Z',
        device: { id: DIAMOND_AP, name: 'diamond-ap1', model: 'Rocket 5AC Prism', role: 'ap', ip: '10.20.1.2/24' },
        devicesDown: 1,
        site: { id: '7c1d9e2a-4b3f-4a6c-8e5d-2f9b0c1a7d12', name: 'Diamond Tower', kind: 'infrastructure' },
        affectedCount: 2,
        affected: [
          { clientId: 1007, name: 'Leon Hope', siteId: '4d5e6f7a-8b9c-4dae-9f10-3b4c5d6e7f89', service: null },
          { clientId: 1001, name: 'Marcus Baptiste', siteId: '1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c56', service: { id: 101, name: 'Standard Monthly', status: 1, statusLabel: 'Active' } },
        ],
      },
    ]);
  });

  it('none in progress: says so, exit 0 (--json: no object)', async () => {
    await start();
    expect(await subops(['outages'])).toMatchObject({ code: 0, out: 'No outage in progress.\n' });
    expect(await subops(['outages', '--json'])).toMatchObject({ code: 0, out: '' });
  });

  it('--simulator: the embedded simulator answers as its world does', async () => {
    const { code, out, err } = await runCli(['outages'], {}, []);
    if (world === 'stock') {
      expect(code).toBe(0);
      expect(out).toContain('No outage in progress.');
      expect(out).toContain('Simulated:');
    } else {
      expect(code).toBe(1);
      expect(err).toContain('does not serve GET /outages');
    }
  });
});

describe('subops outages on an NMS without GET /outages (the interface document)', () => {
  it('says outages are unavailable, exit 1, and never that none is in progress', async () => {
    const sim = await start(WORLD_FILTERS.interface);
    sim.takeDown(DIAMOND_AP);
    const text = await subops(['outages']);
    expect(text.code).toBe(1);
    expect(text.out).toBe('');
    expect(nonNotices(text.err)).toEqual([expect.stringMatching(/^Failed: UISP's NMS does not serve GET \/outages \(404/)]);
    const json = await subops(['outages', '--json']);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.out)).toMatchObject({ type: 'error', field: null, message: expect.stringContaining('does not serve GET /outages') });
  });
});
