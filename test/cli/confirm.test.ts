/**
 * What a CLI write asks before it deletes, moves or suspends (clig.dev: confirm dangerous actions): on
 * a terminal the plan or the service is shown and a y/N question asked; anywhere else `--yes` confirms
 * and without it nothing is written (exit 1). What the person was shown is what is confirmed: the
 * activation reads UISP again after the answer and asks again when anything changed.
 */
import { userInfo } from 'node:os';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { auditLines, runCli } from './support.js';
import { runAtTerminal, type TerminalOptions } from './terminal-run.js';

let sim: RunningSimulator;
beforeEach(async () => {
  await sim?.close();
  sim = await startSimulator();
});
afterAll(async () => sim?.close());

const env = () => ({ UISP_URL: sim.url, UISP_TOKEN: sim.token });
const piped = (argv: string[]) => runCli(argv, env(), [sim.token]);
const atTerminal = (argv: string[], options?: TerminalOptions) => runAtTerminal(argv, env(), options);
const writes = () => sim.requests.filter((r) => r.method !== 'GET').map((r) => `${r.method} ${r.path}`);
const USER = userInfo().username;

const PRIYA = ['activate', '--device', '10.20.1.51', '--first-name', 'priya', '--last-name', 'ramnarine'];
const HOPE_DEVICE = ['activate', '--device', '10.20.1.77', '--first-name', 'ada', '--last-name', 'lovelace'];
const NEW_CUSTOMER = ['activate', '--device', '10.20.1.88', '--first-name', 'ada', '--last-name', 'lovelace'];

describe('subops activate on a terminal', () => {
  it('shows the plan, asks before deleting the Quoted service, and deletes exactly it on "y"', async () => {
    const run = await atTerminal(PRIYA, { answer: () => 'y' });
    expect(run.questions).toEqual(['Delete Quoted service #102 and activate? [y/N]']);
    expect(run.err).toContain('• service      Would delete Quoted service #102, then create an Active service');
    expect(run.code).toBe(0);
    expect(run.out).toMatch(/^OK: Activated Priya Ramnarine/m);
    expect(writes().filter((w) => w.startsWith('DELETE'))).toEqual(['DELETE /crm/api/v1.0/clients/services/102']);
    // On a terminal the audit record is one short line, not pino's JSON.
    expect(run.err).toContain(`Audit: activate by ${USER} (CLI): activated`);
    expect(auditLines(run.err)).toEqual([]);
  });

  it.each([
    ['"n"', () => 'n'],
    ['Enter (No is the default)', () => ''],
    ['Ctrl-D', () => undefined],
  ])('%s: nothing is written, exit 1, not audited', async (_, answer) => {
    const run = await atTerminal(PRIYA, { answer });
    expect(run.questions).toHaveLength(1);
    expect(run.code).toBe(1);
    expect(run.err).toContain('Not confirmed: nothing was changed.');
    expect(run.err).not.toContain('Audit:');
    expect(writes()).toEqual([]);
  });

  it('asks before moving the device off another client\'s site, naming the site and its client', async () => {
    const run = await atTerminal([...HOPE_DEVICE, '--json'], { answer: () => 'yes' });
    expect(run.questions).toEqual(['Move cpe-hope off site "Leon Hope" (client #1007 Leon Hope) and activate? [y/N]']);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.out.trim().split('\n').at(-1)!)).toMatchObject({ outcome: 'activated', movedFrom: { site: { name: 'Leon Hope' } } });
  });

  it('the question shows UISP text escaped, as every terminal line', async () => {
    const device = sim.data.devices.find((d) => d.identification.ip === '10.20.1.77')!;
    device.identification = { ...device.identification, displayName: 'cpe\u001b[2J' };
    const run = await atTerminal(HOPE_DEVICE, { answer: () => 'n' });
    expect(run.questions).toEqual(['Move cpe\\x1b[2J off site "Leon Hope" (client #1007 Leon Hope) and activate? [y/N]']);
    expect(run.err).not.toContain('\u001b');
  });

  it('UISP changed while the question waited: says what changed, writes nothing, and asks again', async () => {
    const run = await atTerminal(PRIYA, {
      answer: (_, index) => {
        // Another Quoted service appears for the client before "y" is typed.
        if (index === 0) sim.data.services.push({ ...sim.data.services.find((s) => s.id === 102)!, id: 120 });
        return 'y';
      },
    });
    expect(run.questions).toEqual(['Delete Quoted service #102 and activate? [y/N]', 'Delete Quoted service #102, Quoted service #120 and activate? [y/N]']);
    expect(run.err).toContain('UISP changed since you confirmed, so nothing was written: Quoted service #120 would now be deleted too.');
    expect(run.code).toBe(0);
    expect(writes().filter((w) => w.startsWith('DELETE'))).toEqual(['DELETE /crm/api/v1.0/clients/services/102', 'DELETE /crm/api/v1.0/clients/services/120']);
  });

  it('the service shown turned Active meanwhile: it is not deleted, and "n" to the new question writes nothing', async () => {
    const run = await atTerminal(PRIYA, {
      answer: (_, index) => {
        if (index === 0) sim.data.services.find((s) => s.id === 102)!.status = 1;
        return index === 0 ? 'y' : 'n';
      },
    });
    expect(run.questions).toEqual(['Delete Quoted service #102 and activate? [y/N]', 'Activate? [y/N]']);
    expect(run.err).toContain('Service #102 is Active now, no longer what you confirmed deleting: it will not be deleted');
    expect(run.code).toBe(1);
    expect(writes()).toEqual([]);
  });

  it('a new customer deletes and moves nothing: no question, and stdin is never read', async () => {
    const run = await atTerminal(NEW_CUSTOMER, { answer: () => { throw new Error('asked'); } });
    expect(run.questions).toEqual([]);
    expect(run.code).toBe(0);
    expect(run.out).toMatch(/^OK: Activated Ada Lovelace/m);
  });

  it('--yes does not ask', async () => {
    const run = await atTerminal([...PRIYA, '--yes']);
    expect(run.questions).toEqual([]);
    expect(run.code).toBe(0);
    expect(writes()).toContain('DELETE /crm/api/v1.0/clients/services/102');
  });

  it('stdin not a terminal (input piped in): never asks, stops with the hint as in a script', async () => {
    const run = await atTerminal(PRIYA, { terminal: { stdin: false, stdout: true, stderr: true }, answer: () => 'y' });
    expect(run.questions).toEqual([]);
    expect(run.code).toBe(1);
    expect(run.out).toContain('--yes confirms deleting those services.');
    expect(writes()).toEqual([]);
  });
});

describe('subops activate anywhere else', () => {
  it('--dry-run says what the real run will ask', async () => {
    const { code, out } = await piped([...PRIYA, '--dry-run']);
    expect(code).toBe(0);
    expect(out).toContain('The real run asks "Delete Quoted service #102 and activate? [y/N]" on a terminal; elsewhere it needs --yes.');
    const plain = await piped([...NEW_CUSTOMER, '--dry-run']);
    expect(plain.out).not.toContain('The real run asks');
    expect(writes()).toEqual([]);
  });
});

describe('subops suspend and unsuspend', () => {
  it('not on a terminal and without --yes: nothing written, exit 1, says --yes; --json adds the error object', async () => {
    const { code, out, err } = await piped(['suspend', '--service-id', '101', '--reason', '1', '--json']);
    expect(code).toBe(1);
    expect(err).toContain('Suspending service #101 (Standard Monthly) of client #1001 needs confirmation: run it on a terminal to be asked, or add --yes. Nothing was changed.');
    expect(JSON.parse(out)).toEqual({ type: 'error', field: '--yes', message: expect.stringContaining('needs confirmation'), problems: [{ field: '--yes', message: expect.stringContaining('needs confirmation') }] });
    expect(auditLines(err)).toEqual([]);
    expect(writes()).toEqual([]);
  });

  it('nothing to write needs no confirmation: already suspended (exit 0), not Active (exit 1), read once', async () => {
    const already = await piped(['suspend', '--service-id', '104', '--reason', '1']);
    expect(already.code).toBe(0);
    expect(already.out).toMatch(/^Nothing to do: service #104/);
    const refused = await piped(['suspend', '--service-id', '102', '--reason', '1']);
    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(/^Refused: service #102 .* is Quoted/m);
    expect(writes()).toEqual([]);
    expect(sim.requests.filter((r) => r.path === '/crm/api/v1.0/clients/services/104')).toHaveLength(1);
  });

  it('on a terminal: shows client, service, status and reason, asks, then reads again and suspends', async () => {
    const run = await atTerminal(['suspend', '--service-id', '101', '--reason', 'customer'], { answer: () => 'y' });
    expect(run.err).toContain('Client: #1001 Marcus Baptiste\nService: #101 Standard Monthly\nCurrent status: Active\nReason: Customer request\n');
    expect(run.questions).toEqual(['Suspend service #101? [y/N]']);
    expect(run.code).toBe(0);
    expect(run.out).toMatch(/^Suspended service #101 .*Status: Active → Suspended\./);
    const order = sim.requests.filter((r) => r.path.startsWith('/crm/api/v1.0/clients/services/101')).map((r) => `${r.method} ${r.path}`);
    expect(order).toEqual(['GET /crm/api/v1.0/clients/services/101', 'GET /crm/api/v1.0/clients/services/101', 'PATCH /crm/api/v1.0/clients/services/101/suspend', 'GET /crm/api/v1.0/clients/services/101']);
    expect(run.err).toContain(`Audit: suspend by ${USER} (CLI): suspended`);
  });

  it('on a terminal, "n": nothing written, exit 1', async () => {
    const run = await atTerminal(['unsuspend', '--service-id', '104'], { answer: () => 'n' });
    expect(run.questions).toEqual(['Lift the suspension of service #104? [y/N]']);
    expect(run.code).toBe(1);
    expect(writes()).toEqual([]);
  });

  it('a change made between the question and the answer is not repeated: nothing to do', async () => {
    const run = await atTerminal(['suspend', '--service-id', '101', '--reason', '1'], {
      answer: () => {
        sim.data.services.find((s) => s.id === 101)!.status = 3;
        return 'y';
      },
    });
    expect(run.code).toBe(0);
    expect(run.out).toMatch(/^Nothing to do: service #101 .* is already suspended/);
    expect(writes()).toEqual([]);
  });

  it('--yes (or -y) confirms without asking, on a terminal or not', async () => {
    const run = await atTerminal(['unsuspend', '--service-id', '104', '-y']);
    expect(run.questions).toEqual([]);
    expect(run.code).toBe(0);
    const piping = await piped(['suspend', '--service-id', '105', '--reason', '1', '--yes']);
    expect(piping.code).toBe(0);
    expect(writes()).toEqual(['PATCH /crm/api/v1.0/clients/services/104/cancel-suspend', 'PATCH /crm/api/v1.0/clients/services/105/suspend']);
  });
});

describe('payments add', () => {
  it('accepts --yes (it deletes, moves and suspends nothing, so it never asks)', async () => {
    const { code } = await piped(['payments', 'add', '--client-id', '1001', '--amount', '10', '--yes']);
    expect(code).toBe(0);
    expect(writes()).toEqual(['POST /crm/api/v1.0/payments']);
  });
});
