/**
 * `subops suspend` / `unsuspend` follow the service's state (issue 8 §4): what the terminal shows, the
 * exit code, and that nothing is sent to UISP when there is nothing to do or the state forbids it.
 */
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { runCli } from './support.js';

let sim: RunningSimulator;
beforeEach(async () => {
  await sim?.close();
  sim = await startSimulator();
});
afterAll(async () => sim?.close());

const subops = (argv: string[]) => runCli(argv, { UISP_URL: sim.url, UISP_TOKEN: sim.token }, [sim.token]);
const writes = () => sim.requests.filter((r) => r.method !== 'GET').map((r) => `${r.method} ${r.path}`);
const readsOf = (id: number) => sim.requests.filter((r) => r.method === 'GET' && r.path === `/crm/api/v1.0/clients/services/${id}`);

describe('subops suspend', () => {
  it('an already suspended service: exit 0, says so, writes nothing', async () => {
    const { code, out } = await subops(['suspend', '--service-id', '104', '--reason', 'non-payment']);
    expect(code).toBe(0);
    expect(out).toBe('Nothing to do: service #104 (Standard Monthly) of client #1005 is already suspended. Nothing was changed. (To lift it: subops unsuspend --service-id 104)\n');
    expect(writes()).toEqual([]);
    expect(readsOf(104)).toHaveLength(1);
  });

  it.each([
    [102, 'Quoted'],
    [103, 'Obsolete'],
  ])('service #%i, %s: refused with its state on stderr, exit 1, nothing written', async (id, state) => {
    const { code, out, err } = await subops(['suspend', '--service-id', String(id), '--reason', '1']);
    expect(code).toBe(1);
    expect(out).toBe('');
    expect(err).toMatch(new RegExp(`^Refused: service #${id} \\(.*\\) of client #\\d+ is ${state}; only an Active service can be suspended\\. Nothing was changed\\.$`, 'm'));
    expect(err).not.toMatch(/HTTP 422|Validation failed/);
    expect(writes()).toEqual([]);
  });

  it('a status is named under the numbering SERVICE_STATUS_NUMBERING sets', async () => {
    // Stock UISP numbering: 7 is Quoted there, so the Obsolete-in-the-spec service 103 is "Quoted".
    const { code, err } = await runCli(['suspend', '--service-id', '103', '--reason', '1'], { UISP_URL: sim.url, UISP_TOKEN: sim.token, SERVICE_STATUS_NUMBERING: 'stock' }, []);
    expect(code).toBe(1);
    expect(err).toContain('is Quoted; only an Active service can be suspended');
  });

  it('an Active service is read right before the write, then suspended', async () => {
    const { code } = await subops(['suspend', '--service-id', '105', '--reason', '2', '--yes']);
    expect(code).toBe(0);
    const order = sim.requests.filter((r) => r.path.startsWith('/crm/api/v1.0/clients/services/105')).map((r) => `${r.method} ${r.path}`);
    expect(order).toEqual(['GET /crm/api/v1.0/clients/services/105', 'PATCH /crm/api/v1.0/clients/services/105/suspend', 'GET /crm/api/v1.0/clients/services/105']);
  });
});

describe('subops unsuspend', () => {
  it.each([101, 102])('service #%i, not suspended: exit 0, says so with its status, writes nothing', async (id) => {
    const { code, out } = await subops(['unsuspend', '--service-id', String(id)]);
    expect(code).toBe(0);
    expect(out).toMatch(new RegExp(`^Nothing to do: service #${id} .* is not suspended \\(status (Active|Quoted)\\)\\. Nothing was changed\\.\\n$`));
    expect(writes()).toEqual([]);
  });
});
