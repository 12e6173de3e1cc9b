/**
 * `subops activate` with a late duplicate of the client (two SubOps-made Active services): the terminal
 * names it with the render's sentence, `--json` adds it to the result (`duplicates`, [] when none), and
 * nothing is removed: only a person does that (the Slack notice's button, or `subops duplicates remove`:
 * test/cli/duplicates.test.ts).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { seedClientDuplicate, seedServiceDuplicate } from '../support/late-duplicates.js';
import { runCli } from './support.js';

let sim: RunningSimulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

const subops = (s: RunningSimulator, argv: string[]) => runCli(argv, { UISP_URL: s.url, UISP_TOKEN: s.token }, [s.token]);
const ACTIVATE = ['activate', '--device', '10.20.3.12', '--first-name', 'shanice', '--last-name', 'williams'];

describe('subops activate meets a late duplicate', () => {
  it('names it on a line of its own, and removes nothing', async () => {
    const s = (sim = await startSimulator());
    const { kept, late } = await seedServiceDuplicate(s);
    const run = await subops(s, ACTIVATE);
    expect(run.code).toBe(0);
    expect(run.out).toContain(
      `  Late duplicate: Client #1004 Shanice Williams has 2 Active services made by SubOps: #${kept} "Standard Monthly" (the one activations keep and report) and #${late} "Standard Monthly" (made late, after its activation gave up)\n`,
    );
    expect(run.out).toContain(`    To remove it: subops duplicates remove --client-id 1004 --service-id ${late}\n`);
    expect(s.data.services.filter((x) => x.clientId === 1004).map((x) => x.id)).toEqual([kept, late]);
    expect(s.requests.filter((r) => r.method === 'DELETE')).toEqual([]);
  });

  it('--json: the result carries `duplicates` with the record, client, kept, others and the sentence; [] without one', async () => {
    const s = (sim = await startSimulator());
    const plain = JSON.parse((await subops(s, [...ACTIVATE, '--json'])).out.trim().split('\n').at(-1)!) as Record<string, unknown>;
    expect(plain.duplicates).toEqual([]);

    const { kept, late } = await seedServiceDuplicate(s, 1002);
    const result = JSON.parse((await subops(s, ['activate', '--device', '10.20.1.51', '--first-name', 'priya', '--last-name', 'ramnarine', '--yes', '--json'])).out.trim().split('\n').at(-1)!) as Record<string, unknown>;
    expect(result.duplicates).toEqual([
      {
        record: 'service',
        client: { id: 1002, name: 'Priya Ramnarine' },
        kept: { id: kept, name: 'Standard Monthly' },
        others: [{ id: late, name: 'Standard Monthly' }],
        message: expect.stringMatching(new RegExp(`^Client #1002 Priya Ramnarine has 2 Active services made by SubOps: #${kept} .* and #${late} `)),
      },
    ]);
  });

  it('an empty SubOps-made namesake of the client: a `client` entry (kept: the client activations use), a line, and nothing removed', async () => {
    const s = (sim = await startSimulator());
    const { kept, late } = await seedClientDuplicate(s);
    const argv = ['activate', '--device', '10.20.1.88', '--first-name', 'jane', '--last-name', 'doe'];
    const result = JSON.parse((await subops(s, [...argv, '--json'])).out.trim().split('\n').at(-1)!) as Record<string, unknown>;
    expect(result).toMatchObject({ outcome: 'activated', client: { id: kept } });
    expect(result.duplicates).toEqual([
      {
        record: 'client',
        client: { id: kept, name: 'Jane Doe' },
        kept: { id: kept, name: 'Jane Doe' },
        others: [{ id: late, name: 'Jane Doe' }],
        message: `Client #${kept} Jane Doe has SubOps-made namesakes with no service: #${late} "Jane Doe" (made late, or left by an activation that failed midway); activations use #${kept}`,
      },
    ]);
    const run = await subops(s, argv);
    expect(run.out).toContain(`  Late duplicate: Client #${kept} Jane Doe has SubOps-made namesakes with no service: #${late} "Jane Doe"`);
    expect(s.data.clients.filter((c) => c.lastName === 'Doe').map((c) => c.id)).toEqual([kept, late]);
    expect(s.requests.filter((r) => r.method === 'DELETE')).toEqual([]);
  });
});
