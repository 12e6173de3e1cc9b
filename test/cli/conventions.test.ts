/**
 * The command-line conventions of clig.dev the CLI follows: --version, `help <command>`, "did you
 * mean" for a mistyped command or flag, one JSON object on stdout for every outcome with --json (bad
 * input included) besides the human line on stderr, and the audit record as a short line on a terminal
 * and as JSON elsewhere (or with --log-json), never dropped by LOG_LEVEL.
 */
import { readFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logging.js';
import { closest } from '../../src/process/suggest.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { auditLines, runCli } from './support.js';
import { runAtTerminal } from './terminal-run.js';

let sim: RunningSimulator;
beforeEach(async () => {
  await sim?.close();
  sim = await startSimulator();
});
afterAll(async () => sim?.close());

const env = (more: Record<string, string> = {}) => ({ UISP_URL: sim.url, UISP_TOKEN: sim.token, ...more });
const subops = (argv: string[], more?: Record<string, string>) => runCli(argv, env(more), [sim.token]);
const writes = () => sim.requests.filter((r) => r.method !== 'GET').map((r) => `${r.method} ${r.path}`);
const VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

describe('--version and help', () => {
  it.each([['--version'], ['-V']])('%s prints the version, exit 0', async (flag) => {
    const { code, out } = await subops([flag]);
    expect(code).toBe(0);
    expect(out).toBe(`subops ${VERSION}\n`);
  });

  it('`subops help <command>` prints that command\'s help, as `<command> --help` does', async () => {
    const help = await subops(['help', 'activate']);
    expect(help.code).toBe(0);
    expect(help.out).toMatch(/^Usage: subops activate --device/);
    expect(help.out).toBe((await subops(['activate', '--help'])).out);
    expect((await subops(['help', 'suspend'])).out).toMatch(/^Usage: subops suspend --service-id <id> --reason <id or name> \[--yes\]/);
    expect(sim.requests).toEqual([]);
  });
});

describe('did you mean', () => {
  it.each([
    ['activte', 'activate'],
    ['suspnd', 'suspend'],
    ['unsupsend', 'unsuspend'],
    ['paymnets', 'payments'],
  ])('a mistyped command (%s) names the command it most likely meant (%s), exit 2', async (typed, meant) => {
    const { code, err } = await subops([typed]);
    expect(code).toBe(2);
    // One line, not the suggestion followed by the whole usage.
    expect(err).toBe(`Unknown command "${typed}". Did you mean "${meant}"? (subops help ${meant})\n`);
  });

  it('`help` of a mistyped command too; a word like no command offers nothing but where the list is', async () => {
    expect((await subops(['help', 'activte'])).err).toBe('Unknown command "activte". Did you mean "activate"? (subops help activate)\n');
    const none = await subops(['frobnicate']);
    expect(none.code).toBe(2);
    expect(none.err).toBe('Unknown command "frobnicate". subops help lists the commands.\n');
  });

  it('a mistyped subcommand (`config chek`, `duplicates remvoe`) names the one it most likely meant, exit 2', async () => {
    const config = await subops(['config', 'chek']);
    expect(config.code).toBe(2);
    expect(config.err.split('\n')[0]).toBe('Error: Unknown subcommand "chek". Did you mean "check"? (subops config check)');
    const duplicates = await subops(['duplicates', 'remvoe']);
    expect(duplicates.code).toBe(2);
    expect(duplicates.err.split('\n')[0]).toBe('Error: Unknown subcommand "remvoe". Did you mean "remove"? (subops duplicates remove)');
    expect(sim.requests).toEqual([]);
  });

  it.each([
    [['activate', '--devise', '10.20.1.88'], "Unknown option '--devise'. Did you mean --device?"],
    [['activate', '--first_name', 'ada'], "Unknown option '--first_name'. Did you mean --first-name?"],
    [['activate', '--dryrun'], "Unknown option '--dryrun'. Did you mean --dry-run?"],
    [['suspend', '--service', '101'], "Unknown option '--service'. Did you mean --service-id?"],
    [['payments', '--jsno'], "Unknown option '--jsno'. Did you mean --json?"],
    [['--verison'], "Unknown option '--verison'. Did you mean --version?"],
  ])('a mistyped flag %j names the flag it most likely meant, exit 2, nothing sent', async (argv, message) => {
    const { code, err } = await subops(argv);
    expect(code).toBe(2);
    expect(err).toContain(message);
    expect(sim.requests).toEqual([]);
  });

  it('closest: a unique beginning, or a couple of typos at most', () => {
    expect(closest('act', ['activate', 'suspend'])).toBe('activate');
    expect(closest('zzz', ['activate', 'suspend'])).toBeUndefined();
    expect(closest('a', ['activate', 'suspend'])).toBeUndefined();
  });
});

describe('--json: one JSON object on stdout for every outcome, besides the human line on stderr', () => {
  const jsonOf = (out: string) => {
    const lines = out.trim().split('\n');
    expect(lines).toHaveLength(1);
    return JSON.parse(lines[0]!) as Record<string, unknown>;
  };

  it.each([
    [['payments', 'add', '--client-id', '1001', '--amount', '0', '--json'], '--amount', 'Amount must be greater than 0.'],
    [['activate', '--device', '10.20.1.88', '--first-name', 'ada', '--json'], '--last-name', 'Enter the last name.'],
    [['suspend', '--service-id', 'x', '--reason', '1', '--json'], '--service-id', 'Service id must be a positive whole number such as 1001 or #1001.'],
    [['activate', '--devise', 'x', '--json'], '--devise', "Unknown option '--devise'. Did you mean --device?"],
    [['payments', '--json', '--csv'], null, '--json and --csv cannot be combined.'],
  ])('bad input %j: exit 2, {type: "error", field, message}', async (argv, field, message) => {
    const { code, out, err } = await subops(argv);
    expect(code).toBe(2);
    expect(jsonOf(out)).toMatchObject({ type: 'error', field, message });
    expect(err).toContain(message);
    expect(sim.requests).toEqual([]);
  });

  it('every bad flag is listed in problems', async () => {
    const { out } = await subops(['payments', 'add', '--client-id', 'Marcus', '--amount', '-1', '--json']);
    expect(jsonOf(out)).toMatchObject({ type: 'error', field: '--client-id', problems: [{ field: '--client-id' }, { field: '--amount' }] });
  });

  it('an unknown id found after a lookup (exit 2) and a UISP failure (exit 1) are error objects too', async () => {
    const unknown = await subops(['unsuspend', '--service-id', '99999', '--json']);
    expect(unknown.code).toBe(2);
    expect(jsonOf(unknown.out)).toEqual({ type: 'error', field: '--service-id', message: 'No CRM service #99999. Nothing was changed.', problems: [{ field: '--service-id', message: 'No CRM service #99999. Nothing was changed.' }] });

    sim.setFaults([{ method: 'GET', path: /\/service-suspension-reasons$/, kind: 'status', status: 500 }]);
    const failed = await subops(['reasons', '--json'], { UISP_RETRY_BACKOFF_MS: '1' });
    expect(failed.code).toBe(1);
    expect(jsonOf(failed.out)).toMatchObject({ type: 'error', field: null, message: expect.stringContaining('HTTP 500') });
    expect(failed.err).toMatch(/^Failed: /m);
  });

  it('bad configuration names the variable; an unknown command is an error object too', async () => {
    const config = await subops(['reasons', '--json'], { UISP_URL: 'not a url' });
    expect(config.code).toBe(2);
    expect(jsonOf(config.out)).toMatchObject({ type: 'error', field: 'UISP_URL' });
    const command = await subops(['activte', '--json']);
    expect(command.code).toBe(2);
    expect(jsonOf(command.out)).toMatchObject({ type: 'error', field: '<command>', message: expect.stringContaining('Did you mean "activate"?') });
  });
});

describe('the audit record on stderr', () => {
  const SUSPEND = ['suspend', '--service-id', '101', '--reason', '1', '--yes'];

  it('on a terminal: one short human line; with --log-json the JSON line', async () => {
    const human = await runAtTerminal(SUSPEND, env());
    expect(human.code).toBe(0);
    expect(human.err).toMatch(/^Audit: suspend by \S+ \(CLI\): suspended$/m);
    expect(human.err).not.toContain('{');
    const json = await runAtTerminal(['unsuspend', '--service-id', '101', '--yes', '--log-json'], env());
    expect(json.code).toBe(0);
    expect(auditLines(json.err)).toEqual([expect.objectContaining({ action: 'unsuspend', result: 'unsuspended' })]);
    expect(json.err).not.toContain('Audit:');
  });

  it.each(['warn', 'error', 'silent'])('LOG_LEVEL=%s does not drop the JSON line (stderr not a terminal)', async (level) => {
    const { code, err } = await subops(SUSPEND, { LOG_LEVEL: level });
    expect(code).toBe(0);
    expect(auditLines(err)).toEqual([expect.objectContaining({ action: 'suspend', result: 'suspended', ok: true })]);
    expect(writes()).toEqual(['PATCH /crm/api/v1.0/clients/services/101/suspend']);
  });
});

describe('errors in the log', () => {
  function logged(write: (logger: ReturnType<typeof createLogger>) => void): Record<string, unknown> {
    let line = '';
    const sink = new Writable({ write: (chunk: Buffer, _, done) => ((line += chunk.toString()), done()) });
    write(createLogger('info', sink));
    return JSON.parse(line) as Record<string, unknown>;
  }

  it('an Error logged as err keeps its real type, message and stack', () => {
    class UispLikeError extends Error {
      override readonly name = 'UispLikeError';
    }
    const line = logged((logger) => logger.warn({ err: new UispLikeError('boom') }, 'failed'));
    expect(line.err).toMatchObject({ type: 'UispLikeError', message: 'boom', stack: expect.stringContaining('UispLikeError: boom') });
    expect(logged((logger) => logger.error(new TypeError('bad'), 'oops')).err).toMatchObject({ type: 'TypeError', stack: expect.stringContaining('TypeError: bad') });
  });

  it('anything else logged as err is kept as it is, never an error of type "Object" with an empty stack', () => {
    expect(logged((logger) => logger.warn({ err: { message: 'not_in_channel', slackError: 'not_in_channel' } }, 'x')).err).toEqual({ message: 'not_in_channel', slackError: 'not_in_channel' });
    expect(logged((logger) => logger.warn({ err: 'socket hang up' }, 'x')).err).toBe('socket hang up');
  });
});
