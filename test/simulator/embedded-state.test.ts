/**
 * The embedded simulator (--simulator, SUBOPS_SIMULATOR=1) keeps its state between CLI commands in a state file: where it
 * lives, saving and loading it (atomically, so concurrent processes never leave a broken file), what the
 * commands say on stderr, `subops simulate --reset`, and `serve --simulator` keeping nothing.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runSubops } from '../support/subops-process.js';
import { connect, simulatorStatePath } from '../../src/connect.js';
import { loadStateFile, sampleData, saveStateFile, SimulatorDataError } from '../../src/simulator/index.js';
import { runCli } from '../cli/support.js';

let folder: string;
let state: string;
beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'subops-state-'));
  state = join(folder, 'nested', 'simulator.json');
});
afterEach(async () => {
  await rm(folder, { recursive: true, force: true });
});

/** A CLI command against the embedded simulator whose state is `state`. */
const subops = (argv: string[], env: Record<string, string> = {}) => runCli(argv, { SUBOPS_SIMULATOR_STATE: state, ...env }, []);
const leftovers = async () => (await readdir(join(folder, 'nested')).catch(() => [])).filter((name) => name !== 'simulator.json');

describe('where the state lives', () => {
  it('SUBOPS_SIMULATOR_STATE, else XDG_STATE_HOME/subops/simulator.json, else ~/.local/state/subops/simulator.json', () => {
    expect(simulatorStatePath({ SUBOPS_SIMULATOR_STATE: '/tmp/x.json', XDG_STATE_HOME: '/state', HOME: '/home/ada' })).toBe('/tmp/x.json');
    expect(simulatorStatePath({ XDG_STATE_HOME: '/state', HOME: '/home/ada' })).toBe('/state/subops/simulator.json');
    expect(simulatorStatePath({ HOME: '/home/ada' })).toBe('/home/ada/.local/state/subops/simulator.json');
    // The XDG spec: a relative XDG_STATE_HOME is ignored.
    expect(simulatorStatePath({ XDG_STATE_HOME: 'state', HOME: '/home/ada' })).toBe('/home/ada/.local/state/subops/simulator.json');
    expect(simulatorStatePath({})).toBe(join(homedir(), '.local/state/subops/simulator.json'));
  });
});

describe('saveStateFile and loadStateFile', () => {
  it('a saved state loads back as it was; no state is undefined', async () => {
    expect(await loadStateFile(state)).toBeUndefined();
    const data = sampleData();
    data.clients[0]!.firstName = 'Changed';
    await saveStateFile(state, data);
    expect(JSON.parse(JSON.stringify(await loadStateFile(state)))).toEqual(JSON.parse(JSON.stringify(data)));
    expect(await leftovers()).toEqual([]);
  });

  it('a file that is not a state is refused, naming the file and what is wrong', async () => {
    await saveStateFile(state, sampleData());
    await writeFile(state, '{"clients": [');
    await expect(loadStateFile(state)).rejects.toThrow(new RegExp(`^${state}: \\(file\\): not valid JSON`));
    await writeFile(state, JSON.stringify({ clients: [] }));
    await expect(loadStateFile(state)).rejects.toBeInstanceOf(SimulatorDataError);
    await writeFile(state, JSON.stringify({ $state: { version: 1, savedAt: 'now' }, clients: [{ id: 'x' }] }));
    await expect(loadStateFile(state)).rejects.toThrow(/clients\.0\.id/);
  });

  it('saves that overlap leave one whole state, never a mix or a temporary file', async () => {
    const states = Array.from({ length: 8 }, (_, i) => {
      const data = sampleData();
      data.clients[0]!.firstName = `Writer ${i}`;
      return data;
    });
    await Promise.all(states.map((data) => saveStateFile(state, data)));
    const loaded = (await loadStateFile(state))!;
    expect(loaded.clients[0]!.firstName).toMatch(/^Writer \d$/);
    expect(loaded.payments).toHaveLength(states[0]!.payments.length);
    expect(await leftovers()).toEqual([]);
  });
});

describe('CLI commands on the embedded simulator', () => {
  it('remember what earlier commands did, and say on stderr where the state lives', async () => {
    const first = await subops(['payments', 'add', '--client-id', '1001', '--amount', '25', '--key', 'receipt-1']);
    expect(first.code).toBe(0);
    expect(first.out).toMatch(/^Recorded payment #\d+/);
    expect(first.err).toContain(`Simulated: the embedded UISP simulator answers (--simulator or SUBOPS_SIMULATOR=1) at http://127.0.0.1:`);
    expect(first.err).toContain(`with sample data; its state is kept between commands in ${state} (\`subops simulate --reset\` starts over).`);

    const again = await subops(['payments', 'add', '--client-id', '1001', '--amount', '25', '--key', 'receipt-1']);
    expect(again.out).toMatch(/^Already recorded: payment #\d+/);
    expect(again.err).toContain(`with the state earlier commands left in ${state} (\`subops simulate --reset\` starts over from the sample data).`);
  });

  it('a second activation of the same customer finds the first one: no second client', async () => {
    const argv = ['activate', '--device', '10.20.1.88', '--first-name', 'ada', '--last-name', 'lovelace', '--json'];
    const result = async () => JSON.parse((await subops(argv)).out.trim().split('\n').at(-1)!) as { outcome: string; client: { id: number } };
    const first = await result();
    expect(first.outcome).toBe('activated');
    const second = await result();
    expect(second).toMatchObject({ outcome: 'already-activated', client: { id: first.client.id } });
    expect((await loadStateFile(state))!.clients.filter((c) => c.lastName === 'Lovelace')).toHaveLength(1);
  });

  it('a command that changes nothing writes nothing', async () => {
    expect((await subops(['payments', '--client-id', '1001'])).code).toBe(0);
    expect((await subops(['client', '1001'])).code).toBe(0);
    expect(existsSync(state)).toBe(false);
  });

  it('`subops simulate --reset` forgets the state: the next command starts from the sample data', async () => {
    await subops(['payments', 'add', '--client-id', '1001', '--amount', '25', '--key', 'receipt-1']);
    const reset = await subops(['simulate', '--reset']);
    expect(reset).toMatchObject({ code: 0, out: `The embedded simulator's state is reset (${state} removed): the next command with --simulator starts from the sample data.\n` });
    expect(existsSync(state)).toBe(false);
    expect((await subops(['payments', 'add', '--client-id', '1001', '--amount', '25', '--key', 'receipt-1'])).out).toMatch(/^Recorded payment/);
    // Resetting when there is nothing to reset is fine too.
    await subops(['simulate', '--reset']);
    expect((await subops(['simulate', '--reset'])).code).toBe(0);
  });

  it('`subops simulate --reset --data <file>` makes a data set the state; --reset with server flags is bad input', async () => {
    const file = join(folder, 'data.json');
    await writeFile(file, JSON.stringify({ suspensionReasons: [{ id: 9, name: 'Storm damage' }] }));
    expect((await subops(['simulate', '--reset', '--data', file])).code).toBe(0);
    const reasons = await subops(['reasons']);
    expect(reasons.out).toMatch(/^\s+9 {2}Storm damage$/m);
    expect(reasons.out).not.toContain('Non-payment');
    const bad = await subops(['simulate', '--reset', '--port', '8080']);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('--reset cannot be combined with --port');
  });

  it('a state that cannot be read: says so, runs on the sample data, and the next change replaces it', async () => {
    await saveStateFile(state, sampleData());
    await writeFile(state, 'not json');
    const listed = await subops(['reasons']);
    expect(listed.code).toBe(0);
    expect(listed.err).toContain(`with sample data: the state in ${state} could not be read ((file): not valid JSON`);
    expect(await readFile(state, 'utf8')).toBe('not json');
    await subops(['payments', 'add', '--client-id', '1001', '--amount', '25']);
    expect((await loadStateFile(state))!.payments.at(-1)).toMatchObject({ clientId: 1001, amount: 25 });
  });

  it('two commands that overlap: the one that ends last wins, says so, and the file stays whole', async () => {
    const env = { SUBOPS_SIMULATOR: '1', SUBOPS_SIMULATOR_STATE: state, ISP_TIMEZONE: 'America/Guyana' };
    const a = await connect(env, () => undefined);
    const notices: string[] = [];
    const b = await connect(env, (line) => notices.push(line));
    await a.services.payments.record({ clientId: 1001, amount: 11 }, { operationKey: 'a' });
    await a.close();
    await b.services.payments.record({ clientId: 1002, amount: 22 }, { operationKey: 'b' });
    await b.close();
    expect(notices.at(-1)).toBe(`Another subops command saved the embedded simulator's state while this one ran: its changes are replaced by this command's (${state}).`);
    const saved = (await loadStateFile(state))!;
    expect(saved.payments.some((p) => p.amount === 22)).toBe(true);
    expect(saved.payments.some((p) => p.amount === 11)).toBe(false);
    expect(await leftovers()).toEqual([]);
  });

  it('`subops serve --simulator` (keepSimulatorState: false) keeps nothing and never touches the state file', async () => {
    const notices: string[] = [];
    const bot = await connect({ SUBOPS_SIMULATOR: '1', SUBOPS_SIMULATOR_STATE: state }, (line) => notices.push(line), { keepSimulatorState: false });
    await bot.services.payments.record({ clientId: 1001, amount: 11 }, { operationKey: 'bot' });
    await bot.close();
    expect(notices).toEqual([expect.stringMatching(/^Simulated: the embedded UISP simulator answers \(--simulator or SUBOPS_SIMULATOR=1\) at \S+ \(no real UISP is touched\), with sample data; nothing is kept after it stops\.$/)]);
    expect(existsSync(state)).toBe(false);
  });
});

describe('real processes sharing one state file', () => {
  const BUILT = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));

  // HOME points into the test's folder too: nothing reads or writes the real home.
  const spawnSubops = (args: string[]) => runSubops([...args, '--simulator'], { HOME: folder, SUBOPS_SIMULATOR_STATE: state, ISP_TIMEZONE: 'America/Guyana', NO_COLOR: '1' });

  it('four `subops payments add` at once leave a whole state with at least one of them, and no temporary file', { timeout: 60_000 }, async () => {
    expect(existsSync(BUILT), 'dist/ is missing: run `npm run build` (npm ci does it)').toBe(true);
    const runs = await Promise.all([1, 2, 3, 4].map((n) => spawnSubops(['payments', 'add', '--client-id', '1001', '--amount', String(n), '--key', `parallel-${n}`])));
    expect(runs.map((run) => run.code)).toEqual([0, 0, 0, 0]);
    const saved = (await loadStateFile(state))!;
    const kept = saved.payments.filter((p) => p.note?.includes('subops:op=parallel-'));
    expect(kept.length).toBeGreaterThanOrEqual(1);
    expect(await leftovers()).toEqual([]);
    // The next command starts from that state.
    const next = await spawnSubops(['payments', 'add', '--client-id', '1001', '--amount', String(kept[0]!.amount), '--key', `parallel-${kept[0]!.amount}`]);
    expect(next.stdout).toMatch(/^Already recorded/);
  });
});
