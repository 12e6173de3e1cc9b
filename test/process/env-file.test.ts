/**
 * `.env` is read once, by the process entry, with Node's own parser: variables already set win, the file
 * only fills in the rest; SUBOPS_ENV_FILE names another file or none; a file that cannot be read is one
 * line and exit code 2. Nothing but the entry reads it, so tests (which pass env objects) never see a
 * developer's `.env`.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Env } from '../../src/config.js';
import { applyEnvText, loadEnvFile, runProcess, type EntryProcess } from '../../src/process/env-file.js';
import type { ProcessIo } from '../../src/process/io.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const dirs: string[] = [];
function folder(files: Record<string, string> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'subops-env-'));
  dirs.push(dir);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('applyEnvText', () => {
  it('sets what the environment lacks, keeps what it has (even empty), and names the variables it kept', () => {
    const env: Env = { UISP_TOKEN: 'from-shell', LOG_LEVEL: '', PORT: '3000' };
    const text = ['# a comment', 'UISP_URL=https://uisp.example.net', 'UISP_TOKEN=from-file', 'LOG_LEVEL=debug', 'PORT=3000', 'export OPS_HOST=0.0.0.0', 'ISP_TIMEZONE="America/Guyana"  # zone', 'AUDIT_CHANNEL_ID=', ''].join('\n');
    const result = applyEnvText(env, text);
    expect(env).toEqual({ UISP_URL: 'https://uisp.example.net', UISP_TOKEN: 'from-shell', LOG_LEVEL: '', PORT: '3000', OPS_HOST: '0.0.0.0', ISP_TIMEZONE: 'America/Guyana' });
    // PORT is the same in both, so nothing was overridden; an empty value (AUDIT_CHANNEL_ID=) sets nothing.
    expect(result).toEqual({ applied: ['ISP_TIMEZONE', 'OPS_HOST', 'UISP_URL'], shadowed: ['LOG_LEVEL', 'UISP_TOKEN'] });
  });
});

describe('loadEnvFile', () => {
  it('reads .env in the working directory, and no .env is fine', () => {
    const dir = folder({ '.env': 'UISP_URL=https://uisp.example.net\n' });
    const env: Env = {};
    expect(loadEnvFile(env, dir)).toEqual({ file: { path: join(dir, '.env'), applied: ['UISP_URL'], shadowed: [] } });
    expect(env).toEqual({ UISP_URL: 'https://uisp.example.net' });
    expect(loadEnvFile({}, folder())).toEqual({ file: undefined });
  });

  it('SUBOPS_ENV_FILE names another file (relative to the working directory), or none when empty', () => {
    const dir = folder({ '.env': 'PORT=1\n', 'prod.env': 'PORT=2\n' });
    const env: Env = { SUBOPS_ENV_FILE: 'prod.env' };
    expect(loadEnvFile(env, dir)).toEqual({ file: { path: join(dir, 'prod.env'), applied: ['PORT'], shadowed: [] } });
    expect(env.PORT).toBe('2');
    const none: Env = { SUBOPS_ENV_FILE: '' };
    expect(loadEnvFile(none, dir)).toEqual({ file: undefined });
    expect(none).toEqual({ SUBOPS_ENV_FILE: '' });
  });

  it('a file that cannot be read is a problem naming it and SUBOPS_ENV_FILE; nothing is applied', () => {
    const dir = folder();
    mkdirSync(join(dir, '.env'));
    const env: Env = {};
    expect(loadEnvFile(env, dir)).toEqual({ problem: `Could not read ${join(dir, '.env')} (EISDIR): fix or remove it, or set SUBOPS_ENV_FILE to another file (empty: read none).` });
    expect(loadEnvFile({ SUBOPS_ENV_FILE: 'missing.env' }, dir)).toEqual({
      problem: `SUBOPS_ENV_FILE names ${join(dir, 'missing.env')}, which could not be read (ENOENT): set it to a readable file, or to nothing to read none.`,
    });
    expect(env).toEqual({});
  });
});

describe('runProcess (the entry bin/subops.js runs)', () => {
  function entry(env: Env, cwd: string, ...args: string[]) {
    const stderr = new PassThrough();
    let err = '';
    stderr.on('data', (chunk) => (err += chunk));
    const proc: EntryProcess = { env, argv: ['node', 'subops', ...args], cwd: () => cwd, stdout: new PassThrough(), stderr, stdin: new PassThrough() };
    const seen: { argv: string[]; io: ProcessIo }[] = [];
    const main = async (argv: string[], io: ProcessIo) => (seen.push({ argv, io }), 0);
    return { run: () => runProcess(main, proc), seen, err: () => err };
  }

  it('gives the command the environment with .env filled in, and says which file it read', async () => {
    const dir = folder({ '.env': 'UISP_URL=https://uisp.example.net\nUISP_TOKEN=file\n' });
    const env: Env = { UISP_TOKEN: 'shell' };
    const { run, seen } = entry(env, dir, 'config', 'check');
    expect(await run()).toBe(0);
    expect(seen).toHaveLength(1);
    expect(seen[0]!.argv).toEqual(['config', 'check']);
    expect(seen[0]!.io.env).toBe(env);
    expect(env).toEqual({ UISP_URL: 'https://uisp.example.net', UISP_TOKEN: 'shell' });
    expect(seen[0]!.io.envFile).toEqual({ path: join(dir, '.env'), applied: ['UISP_URL'], shadowed: ['UISP_TOKEN'] });
  });

  it('an unreadable .env ends the run with one line and exit code 2, before the command runs', async () => {
    const dir = folder();
    mkdirSync(join(dir, '.env'));
    const { run, seen, err } = entry({}, dir, 'serve');
    expect(await run()).toBe(2);
    expect(seen).toEqual([]);
    expect(err()).toBe(`Could not read ${join(dir, '.env')} (EISDIR): fix or remove it, or set SUBOPS_ENV_FILE to another file (empty: read none).\n`);
  });
});

describe('only the process entry reads .env', () => {
  it('bin/subops.js runs the CLI through runProcess, and nothing in src/ but env-file.ts loads a file into the environment', () => {
    expect(readFileSync(join(ROOT, 'bin/subops.js'), 'utf8')).toMatch(/await runProcess\(main\);/);
    const sources = (dir: string): string[] =>
      readdirSync(dir).flatMap((name) => (statSync(join(dir, name)).isDirectory() ? sources(join(dir, name)) : name.endsWith('.ts') ? [join(dir, name)] : []));
    const readers = sources(join(ROOT, 'src')).filter((file) => /\b(runProcess|loadEnvFile|applyEnvText|parseEnv)\(/.test(readFileSync(file, 'utf8')));
    expect(readers.map((file) => file.slice(ROOT.length))).toEqual(['src/process/env-file.ts']);
  });
});

describe('a real process', () => {
  let sim: RunningSimulator;
  beforeAll(async () => {
    sim = await startSimulator();
  });
  afterAll(async () => sim?.close());

  // tsx by its file, since the process runs in a folder with no node_modules.
  const tsxPackage = join(ROOT, 'node_modules/tsx');
  const tsx = pathToFileURL(join(tsxPackage, (JSON.parse(readFileSync(join(tsxPackage, 'package.json'), 'utf8')) as { exports: { '.': string } }).exports['.'])).href;

  /** The CLI as bin/subops.js runs it (runProcess over the real process), from the sources, in `cwd`. */
  function subops(cwd: string, env: Record<string, string>, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    const script = `import { main } from ${JSON.stringify(join(ROOT, 'src/cli/main.ts'))}; import { runProcess } from ${JSON.stringify(join(ROOT, 'src/process/env-file.ts'))}; process.exitCode = await runProcess(main);`;
    return new Promise((resolve) => {
      execFile(process.execPath, ['--import', tsx, '--input-type=module', '-e', script, '--', 'subops', ...args], { cwd, env: { PATH: process.env.PATH ?? '', ...env } }, (error, stdout, stderr) =>
        resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
      );
    });
  }

  it('reads .env from the working directory, and the environment wins over it', { timeout: 60_000 }, async () => {
    const dir = folder({ '.env': `UISP_URL=${sim.url}\nUISP_TOKEN=not-the-token-from-file\nISP_TIMEZONE=America/Guyana\n` });
    const run = await subops(dir, { UISP_TOKEN: sim.token }, 'config', 'check', '--cli', '--json');
    expect(run.stderr).toBe('');
    const report = JSON.parse(run.stdout) as { exitCode: number; envFile: unknown; checks: { check: string; status: string; message: string }[] };
    expect(report.envFile).toEqual({ path: join(dir, '.env'), applied: ['ISP_TIMEZONE', 'UISP_URL'], shadowed: ['UISP_TOKEN'] });
    // UISP_URL came from the file; the token from the environment, which UISP took.
    expect(report.checks.map((c) => [c.check, c.status])).toEqual([
      ['configuration', 'warning'],
      ['UISP CRM', 'ok'],
      ['UISP NMS', 'ok'],
      ['status numbers', 'ok'],
    ]);
    expect(report.checks[0]!.message).toContain('UISP_TOKEN is set in the environment too, whose value is used');
    expect(run.stdout).not.toContain('not-the-token-from-file');
    expect(run.code).toBe(0);

    // SUBOPS_ENV_FILE set to nothing: the file is not read, so there is no UISP_URL, which the CLI requires.
    const none = await subops(dir, { UISP_TOKEN: sim.token, SUBOPS_ENV_FILE: '' }, 'config', 'check', '--cli', '--json');
    const unread = JSON.parse(none.stdout) as { envFile: unknown; exitCode: number; problems: string[]; checks: { status: string }[] };
    expect(unread.envFile).toBeNull();
    expect(unread).toMatchObject({ exitCode: 2, problems: [expect.stringMatching(/^UISP_URL is required: /)] });
    expect(unread.checks.map((c) => c.status)).toEqual(['failed']);
    expect(none.code).toBe(2);
  });
});
