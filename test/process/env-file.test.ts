/**
 * `.env` is read once, by the process entry, with SubOps' own parser: variables already set win, the file
 * only fills in the rest, and only SubOps' settings; SUBOPS_ENV_FILE names another file or none. A file
 * that cannot be read, has a line that is not a setting, may be changed by every user, or would send a
 * token from the environment to an address of its own is refused with exit code 2. Every command run
 * with one names it on stderr. Nothing but the entry reads it, so tests (which pass env objects) never
 * see a developer's `.env`.
 */
import { execFile } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import type { Env } from '../../src/config.js';
import { applyEnvText, loadEnvFile, runProcess, type EntryProcess } from '../../src/process/env-file.js';
import { fatalLines } from '../support/log-lines.js';
import type { ProcessIo } from '../../src/process/io.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { startPasswordCatcher } from '../support/password-catcher.js';

/** The unprivileged account every Linux system has (test/support/postgres-server.ts runs PostgreSQL as it). */
const NOBODY = 65_534;
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const dirs: string[] = [];
function folder(files: Record<string, string> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'subops-env-'));
  dirs.push(dir);
  // Mode 0600 whatever the umask: only the mode tests make a file group- or world-writable.
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text, { mode: 0o600 });
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('applyEnvText', () => {
  const PATH = '/srv/subops/.env';

  it('sets what the environment lacks, keeps what it has (even empty), and names the variables it kept', () => {
    const env: Env = { UISP_TOKEN: 'from-shell', LOG_LEVEL: '', PORT: '3000' };
    const text = ['# a comment', 'UISP_CRM_TOKEN=crm', 'UISP_TOKEN=from-file', 'LOG_LEVEL=debug', 'PORT=3000', 'export OPS_HOST=0.0.0.0', 'ISP_TIMEZONE="America/Guyana"  # zone', 'AUDIT_CHANNEL_ID=', ''].join('\n');
    const result = applyEnvText(env, text, PATH);
    expect(env).toEqual({ UISP_CRM_TOKEN: 'crm', UISP_TOKEN: 'from-shell', LOG_LEVEL: '', PORT: '3000', OPS_HOST: '0.0.0.0', ISP_TIMEZONE: 'America/Guyana' });
    // PORT is the same in both, so nothing was overridden; an empty value (AUDIT_CHANNEL_ID=) sets nothing.
    expect(result).toEqual({ applied: ['ISP_TIMEZONE', 'OPS_HOST', 'UISP_CRM_TOKEN'], shadowed: ['LOG_LEVEL', 'UISP_TOKEN'], ignored: [] });
  });

  it('reads the usual forms: export, single and double quotes, comments, blank lines, spaces around =', () => {
    const env: Env = {};
    const text = [
      'export SLACK_BOT_TOKEN=xoxb-1',
      "SLACK_SIGNING_SECRET='s3cr#t \\n kept as written'",
      'APPROVAL_REQUIRED_FOR="delete-service, suspension" # two kinds',
      'AUDIT_CHANNEL_ID = C0123 # the audit channel',
      '   ',
      '  # indented comment',
      'WEBHOOK_TOKEN="a\\"b\\\\c"',
      'ACCESS_APPROVE=S1#not-a-comment',
      'LOG_LEVEL=info\r',
    ].join('\n');
    expect(applyEnvText(env, text, PATH)).toMatchObject({ applied: ['ACCESS_APPROVE', 'APPROVAL_REQUIRED_FOR', 'AUDIT_CHANNEL_ID', 'LOG_LEVEL', 'SLACK_BOT_TOKEN', 'SLACK_SIGNING_SECRET', 'WEBHOOK_TOKEN'] });
    expect(env).toEqual({
      SLACK_BOT_TOKEN: 'xoxb-1',
      SLACK_SIGNING_SECRET: 's3cr#t \\n kept as written',
      APPROVAL_REQUIRED_FOR: 'delete-service, suspension',
      AUDIT_CHANNEL_ID: 'C0123',
      WEBHOOK_TOKEN: 'a"b\\c',
      ACCESS_APPROVE: 'S1#not-a-comment',
      LOG_LEVEL: 'info',
    });
  });

  it('a stray line is reported by its number, and does not take the next setting with it: nothing is applied', () => {
    const env: Env = {};
    const text = ['UISP_URL=https://uisp.example.net', 'SLACK_APP_TOKEN="xapp-1', 'SLACK_BOT_TOKEN=xoxb-1', 'ACCESS_APPROVE U123', 'just some words', "AUDIT_CHANNEL_ID='C1' trailing"].join('\n');
    expect(applyEnvText(env, text, PATH)).toEqual({
      problem: [
        `${PATH} was not read: fix these lines (NAME=value, one a line):`,
        '  line 2: SLACK_APP_TOKEN: the " that opens the value is not closed on the same line (a value is one line; write a line break as \\n in double quotes)',
        '  line 4: not NAME=value, a comment (#) or blank',
        '  line 5: not NAME=value, a comment (#) or blank',
        "  line 6: AUDIT_CHANNEL_ID: text after the closing quote (quote the whole value, or put a # before a comment)",
      ].join('\n'),
    });
    expect(env).toEqual({});
    expect(applyEnvText(env, 'SLACK_BOT_TOKEN\n', PATH)).toEqual({ problem: `${PATH} was not read: fix this line (NAME=value, one a line):\n  line 1: SLACK_BOT_TOKEN has no "=" (write SLACK_BOT_TOKEN=value)` });
  });

  it('sets only SubOps settings: any other variable is left out and named', () => {
    const env: Env = { PATH: '/usr/bin' };
    const text = ['NODE_OPTIONS=--require /tmp/x.js', 'PATH=/tmp/evil', 'AWS_SECRET_ACCESS_KEY=k', 'SUBOPS_ENV_FILE=other.env', 'LOG_LEVEL=debug'].join('\n');
    expect(applyEnvText(env, text, PATH)).toEqual({ applied: ['LOG_LEVEL'], shadowed: [], ignored: ['AWS_SECRET_ACCESS_KEY', 'NODE_OPTIONS', 'PATH', 'SUBOPS_ENV_FILE'] });
    expect(env).toEqual({ PATH: '/usr/bin', LOG_LEVEL: 'debug' });
  });

  it('refuses to aim a token from the environment at an address the file sets; a file with both, or an address the environment sets, is fine', () => {
    const uisp: Env = { UISP_TOKEN: 'operator-token' };
    expect(applyEnvText(uisp, 'UISP_URL=https://collector.example\nLOG_LEVEL=debug\n', PATH)).toEqual({
      problem: `${PATH} was not read: it sets UISP_URL while UISP_TOKEN comes from the environment, and SubOps does not send the environment's secrets to an address a file names. Set UISP_URL in the environment too, or UISP_TOKEN in the file; or set SUBOPS_ENV_FILE to nothing to read no file.`,
    });
    expect(uisp).toEqual({ UISP_TOKEN: 'operator-token' });
    // The file's own token does not help: the environment's wins, so it is the one that would be sent.
    expect(applyEnvText({ UISP_CRM_TOKEN: 'crm' }, 'UISP_URL=https://collector.example\nUISP_TOKEN=t\n', PATH)).toMatchObject({ problem: expect.stringContaining('it sets UISP_URL while UISP_CRM_TOKEN comes from the environment') });
    expect(applyEnvText({ SLACK_BOT_TOKEN: 'xoxb-1', SLACK_APP_TOKEN: 'xapp-1' }, 'SLACK_API_URL=https://collector.example/api\n', PATH)).toMatchObject({
      problem: expect.stringContaining('it sets SLACK_API_URL while SLACK_BOT_TOKEN and SLACK_APP_TOKEN come from the environment'),
    });
    expect(applyEnvText({ PGPASSWORD: 'pw' }, 'DATABASE_URL=postgres://subops@collector.example/subops\n', PATH)).toMatchObject({ problem: expect.stringContaining('it sets DATABASE_URL while PGPASSWORD comes from the environment') });
    // The driver's other fallback for a URL without a password is ~/.pgpass: the file's own password only.
    const noPassword: Env = {};
    expect(applyEnvText(noPassword, 'DATABASE_URL=postgres://subops@collector.example/subops\nLOG_LEVEL=debug\n', PATH)).toEqual({
      problem: `${PATH} was not read: it sets DATABASE_URL without a password, and SubOps sends no password from the environment or ~/.pgpass to a database a file names. Put the password in the file's DATABASE_URL (postgres://user:password@host/database), or set DATABASE_URL in the environment; or set SUBOPS_ENV_FILE to nothing to read no file.`,
    });
    expect(noPassword).toEqual({});
    expect(applyEnvText({}, 'DATABASE_URL=postgres://subops:pw@db.example/subops\n', PATH)).toEqual({ applied: ['DATABASE_URL'], shadowed: [], ignored: [] });
    expect(applyEnvText({}, 'DATABASE_URL=postgres://subops@db.example/subops?password=pw\n', PATH)).toEqual({ applied: ['DATABASE_URL'], shadowed: [], ignored: [] });

    const both: Env = {};
    expect(applyEnvText(both, 'UISP_URL=https://uisp.example.net\nUISP_TOKEN=t\n', PATH)).toEqual({ applied: ['UISP_TOKEN', 'UISP_URL'], shadowed: [], ignored: [] });
    const addressInEnvironment: Env = { UISP_URL: 'https://uisp.example.net', UISP_TOKEN: 'operator-token' };
    expect(applyEnvText(addressInEnvironment, 'UISP_URL=https://collector.example\n', PATH)).toEqual({ applied: [], shadowed: ['UISP_URL'], ignored: [] });
    expect(addressInEnvironment.UISP_URL).toBe('https://uisp.example.net');
  });

  it('a secret the environment gives by file (NAME_FILE) is the environment\'s: the file neither aims it elsewhere, nor sets it, nor names a file of its own', () => {
    expect(applyEnvText({ UISP_TOKEN_FILE: '/run/secrets/uisp' }, 'UISP_URL=https://collector.example\n', PATH)).toEqual({
      problem: `${PATH} was not read: it sets UISP_URL while UISP_TOKEN_FILE comes from the environment, and SubOps does not send the environment's secrets to an address a file names. Set UISP_URL in the environment too; or set SUBOPS_ENV_FILE to nothing to read no file.`,
    });
    const byFile: Env = { SLACK_BOT_TOKEN_FILE: '/run/secrets/bot' };
    expect(applyEnvText(byFile, 'SLACK_BOT_TOKEN=xoxb-from-dotenv\n', PATH)).toEqual({ applied: [], shadowed: ['SLACK_BOT_TOKEN'], ignored: [] });
    expect(byFile).toEqual({ SLACK_BOT_TOKEN_FILE: '/run/secrets/bot' });
    // A cloned .env naming a file would send any file of the user's to the address it also names.
    const cloned: Env = {};
    expect(applyEnvText(cloned, 'UISP_URL=https://collector.example\nUISP_TOKEN_FILE=/home/me/.ssh/id_ed25519\n', PATH)).toEqual({ applied: ['UISP_URL'], shadowed: [], ignored: ['UISP_TOKEN_FILE'] });
    expect(cloned.UISP_TOKEN_FILE).toBeUndefined();
  });
});

describe('loadEnvFile', () => {
  it('reads .env in the working directory, and no .env is fine', () => {
    const dir = folder({ '.env': 'UISP_URL=https://uisp.example.net\n' });
    const env: Env = {};
    expect(loadEnvFile(env, dir)).toEqual({ file: { path: join(dir, '.env'), applied: ['UISP_URL'], shadowed: [], ignored: [] }, warnings: [] });
    expect(env).toEqual({ UISP_URL: 'https://uisp.example.net' });
    expect(loadEnvFile({}, folder())).toEqual({ file: undefined, warnings: [] });
  });

  it('SUBOPS_ENV_FILE names another file (relative to the working directory), or none when empty', () => {
    const dir = folder({ '.env': 'PORT=1\n', 'prod.env': 'PORT=2\n' });
    const env: Env = { SUBOPS_ENV_FILE: 'prod.env' };
    expect(loadEnvFile(env, dir)).toEqual({ file: { path: join(dir, 'prod.env'), applied: ['PORT'], shadowed: [], ignored: [] }, warnings: [] });
    expect(env.PORT).toBe('2');
    const none: Env = { SUBOPS_ENV_FILE: '' };
    expect(loadEnvFile(none, dir)).toEqual({ file: undefined, warnings: [] });
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

  it('refuses a file every user may change (chmod go-w fixes it), warns about one its group may change', () => {
    const dir = folder({ '.env': 'LOG_LEVEL=debug\n' });
    const path = join(dir, '.env');
    chmodSync(path, 0o666);
    const env: Env = {};
    expect(loadEnvFile(env, dir)).toEqual({ problem: `${path} was not read: every user of this machine may change it (mode 0666), and with it where SubOps sends its tokens. Run chmod go-w ${path}.` });
    expect(env).toEqual({});
    chmodSync(path, 0o664);
    expect(loadEnvFile(env, dir)).toEqual({
      file: { path, applied: ['LOG_LEVEL'], shadowed: [], ignored: [] },
      warnings: [`${path} may be changed by its group (mode 0664), and with it where SubOps sends its tokens: run chmod go-w ${path} unless that group is yours alone.`],
    });
  });

  it('warns about a file holding secrets that its group or every user may read: the file, the secrets by name and chmod 600, never a value', () => {
    const dir = folder({ '.env': 'SLACK_BOT_TOKEN=xoxb-SECRET-1\nDATABASE_URL=postgres://subops:SECRET@db.example/subops\nLOG_LEVEL=debug\nAUDIT_CHANNEL_ID=\n' });
    const path = join(dir, '.env');
    chmodSync(path, 0o644);
    const warningsOf = () => (loadEnvFile({}, dir) as { warnings: string[] }).warnings;
    expect(warningsOf()).toEqual([`${path} holds secrets (DATABASE_URL, SLACK_BOT_TOKEN) and may be read by every user of this machine (mode 0644): run chmod 600 ${path}.`]);
    chmodSync(path, 0o640);
    expect(warningsOf()).toEqual([`${path} holds secrets (DATABASE_URL, SLACK_BOT_TOKEN) and may be read by its group (mode 0640): run chmod 600 ${path}.`]);
    expect(warningsOf().join('\n')).not.toContain('SECRET');
    chmodSync(path, 0o600);
    expect(warningsOf()).toEqual([]);
    // Nothing secret in it: nothing to warn about.
    const plain = folder({ '.env': 'LOG_LEVEL=debug\nSLACK_BOT_TOKEN=\n' });
    chmodSync(join(plain, '.env'), 0o644);
    expect((loadEnvFile({}, plain) as { warnings: string[] }).warnings).toEqual([]);
  });

  // Only root can give a file to another account: elsewhere there is nothing to make (issue #37 §8).
  it.skipIf(process.getuid?.() !== 0)('refuses a file another account owns (it may change it), as one every user may change', () => {
    const dir = folder({ '.env': 'UISP_URL=https://collector.example\nUISP_TOKEN=t\nACCESS_APPROVE=U0ATTACKER\n' });
    const path = join(dir, '.env');
    chownSync(path, NOBODY, NOBODY);
    const env: Env = {};
    expect(loadEnvFile(env, dir)).toEqual({
      problem: `${path} was not read: it belongs to another account (uid ${NOBODY}), which may change it, and with it where SubOps sends its tokens. Use a file of your own (chown or copy it), or set SUBOPS_ENV_FILE to nothing to read none.`,
    });
    expect(env).toEqual({});
  });

  it('names the variables it ignored in a warning', () => {
    const dir = folder({ '.env': 'NODE_OPTIONS=--inspect\nHOME=/tmp\nLOG_LEVEL=debug\n' });
    expect(loadEnvFile({}, dir)).toEqual({
      file: { path: join(dir, '.env'), applied: ['LOG_LEVEL'], shadowed: [], ignored: ['HOME', 'NODE_OPTIONS'] },
      warnings: [`${join(dir, '.env')} sets HOME, NODE_OPTIONS, which are not SubOps settings: ignored (a .env sets only what .env.example lists).`],
    });
  });
});

describe('runProcess (the entry bin/subops.js runs)', () => {
  function entry(env: Env, cwd: string, ...args: string[]) {
    const [stdout, stderr] = [new PassThrough(), new PassThrough()];
    let [out, err] = ['', ''];
    stdout.on('data', (chunk) => (out += chunk));
    stderr.on('data', (chunk) => (err += chunk));
    const proc: EntryProcess = { env, argv: ['node', 'subops', ...args], cwd: () => cwd, stdout, stderr, stdin: new PassThrough() };
    const seen: { argv: string[]; io: ProcessIo }[] = [];
    const main = async (argv: string[], io: ProcessIo) => (seen.push({ argv, io }), 0);
    return { run: () => runProcess(main, proc), seen, out: () => out, err: () => err };
  }

  it('gives the command the environment with .env filled in, and names the file on stderr', async () => {
    const dir = folder({ '.env': 'UISP_URL=https://uisp.example.net\nUISP_TOKEN=file\nLOG_LEVEL=debug\nEDITOR=vim\n' });
    const env: Env = { LOG_LEVEL: 'warn' };
    const { run, seen, err } = entry(env, dir, 'config', 'check');
    expect(await run()).toBe(0);
    expect(seen).toHaveLength(1);
    expect(seen[0]!.argv).toEqual(['config', 'check']);
    expect(seen[0]!.io.env).toBe(env);
    expect(env).toEqual({ UISP_URL: 'https://uisp.example.net', UISP_TOKEN: 'file', LOG_LEVEL: 'warn' });
    expect(seen[0]!.io.envFile).toEqual({ path: join(dir, '.env'), applied: ['UISP_TOKEN', 'UISP_URL'], shadowed: ['LOG_LEVEL'], ignored: ['EDITOR'] });
    expect(err()).toBe(
      [
        `SubOps: settings from ${join(dir, '.env')} (2); the environment's LOG_LEVEL wins over the file's`,
        `SubOps: ${join(dir, '.env')} sets EDITOR, which is not a SubOps setting: ignored (a .env sets only what .env.example lists).`,
        '',
      ].join('\n'),
    );
  });

  it('a .env that would send the environment’s token elsewhere ends the run with exit code 2, before the command runs', async () => {
    const dir = folder({ '.env': 'SLACK_API_URL=https://collector.example/api\n' });
    const env: Env = { SLACK_BOT_TOKEN: 'xoxb-operator' };
    const { run, seen, err } = entry(env, dir, 'config', 'check');
    expect(await run()).toBe(2);
    expect(seen).toEqual([]);
    expect(err()).toContain(`${join(dir, '.env')} was not read: it sets SLACK_API_URL while SLACK_BOT_TOKEN comes from the environment`);
    expect(err()).not.toContain('xoxb-operator');
    expect(env).toEqual({ SLACK_BOT_TOKEN: 'xoxb-operator' });
  });

  it('an unreadable .env ends the run with one line and exit code 2, before the command runs', async () => {
    const dir = folder();
    mkdirSync(join(dir, '.env'));
    const { run, seen, err } = entry({}, dir, 'client', '1001');
    expect(await run()).toBe(2);
    expect(seen).toEqual([]);
    expect(err()).toBe(`Could not read ${join(dir, '.env')} (EISDIR): fix or remove it, or set SUBOPS_ENV_FILE to another file (empty: read none).\n`);
  });

  it('for serve, a .env it refuses is one fatal JSON log line on stdout and exit 78 (a restart does not fix it), as every fatal start-up problem', async () => {
    const dir = folder({ '.env': 'SLACK_API_URL=https://collector.example/api\n' });
    const { run, seen, out, err } = entry({ SLACK_BOT_TOKEN: 'xoxb-operator' }, dir, '--simulator', 'serve');
    expect(await run()).toBe(78);
    expect(seen).toEqual([]);
    expect(err()).toBe('');
    expect(fatalLines(out())).toEqual([expect.objectContaining({ exitCode: 78, msg: expect.stringContaining(`${join(dir, '.env')} was not read: it sets SLACK_API_URL`) })]);
    expect(out()).not.toContain('xoxb-operator');
  });
});

describe('only the process entry reads .env', () => {
  it('bin/subops.js runs the CLI through runProcess, and nothing in src/ but env-file.ts loads a file into the environment', () => {
    expect(readFileSync(join(ROOT, 'bin/subops.js'), 'utf8')).toMatch(/await runProcess\(main\);/);
    const sources = (dir: string): string[] =>
      readdirSync(dir).flatMap((name) => (statSync(join(dir, name)).isDirectory() ? sources(join(dir, name)) : name.endsWith('.ts') ? [join(dir, name)] : []));
    const readers = sources(join(ROOT, 'src')).filter((file) => /\b(runProcess|loadEnvFile|applyEnvText|parseEnv|parseEnvText)\(/.test(readFileSync(file, 'utf8')));
    expect(readers.map((file) => file.slice(ROOT.length))).toEqual(['src/process/env-file.ts', 'src/process/env-syntax.ts']);
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

  it('reads .env from the working directory, names it, and the environment wins over it', { timeout: 60_000 }, async () => {
    const dir = folder({ '.env': `UISP_URL=${sim.url}\nUISP_TOKEN=${sim.token}\nISP_TIMEZONE=Europe/Paris\nLOG_LEVEL=debug\n` });
    const run = await subops(dir, { ISP_TIMEZONE: 'America/Guyana' }, 'config', 'check', '--cli', '--json');
    expect(run.stderr).toBe(`SubOps: settings from ${join(dir, '.env')} (3); the environment's ISP_TIMEZONE wins over the file's\n`);
    const report = JSON.parse(run.stdout) as { exitCode: number; envFile: unknown; checks: { check: string; status: string; message: string }[] };
    expect(report.envFile).toEqual({ path: join(dir, '.env'), applied: ['LOG_LEVEL', 'UISP_TOKEN', 'UISP_URL'], shadowed: ['ISP_TIMEZONE'], ignored: [] });
    expect(report.checks.map((c) => [c.check, c.status])).toEqual([
      ['configuration', 'warning'],
      ['UISP CRM', 'ok'],
      ['UISP NMS', 'ok'],
      ['status numbers', 'ok'],
    ]);
    expect(report.checks[0]!.message).toContain('ISP_TIMEZONE is set in the environment too, whose value is used');
    expect(run.code).toBe(0);

    // SUBOPS_ENV_FILE set to nothing: the file is not read, so there is no UISP_URL, which the CLI requires.
    const none = await subops(dir, { UISP_TOKEN: sim.token, SUBOPS_ENV_FILE: '' }, 'config', 'check', '--cli', '--json');
    const unread = JSON.parse(none.stdout) as { envFile: unknown; exitCode: number; problems: string[]; checks: { status: string }[] };
    expect(unread.envFile).toBeNull();
    expect(unread).toMatchObject({ exitCode: 2, problems: [expect.stringMatching(/^UISP_URL is required: /)] });
    expect(unread.checks.map((c) => c.status)).toEqual(['failed']);
    expect(none.code).toBe(2);
  });

  it('a cloned .env aiming DATABASE_URL at its own server never gets the ~/.pgpass password: exit 2, nothing is connected to', { timeout: 60_000 }, async () => {
    const catcher = await startPasswordCatcher();
    onTestFinished(() => catcher.close());
    const home = folder({ '.pgpass': '*:*:*:*:operator-pgpass-secret\n' });
    const dir = folder({ '.env': `DATABASE_URL=${catcher.url}\n` });
    const run = await subops(dir, { HOME: home, SUBOPS_SIMULATOR: '1', SLACK_BOT_TOKEN: 'xoxb-operator', SLACK_SIGNING_SECRET: 'signing', SLACK_API_URL: 'http://127.0.0.1:1/api' }, 'config', 'check');
    expect(catcher.received).toEqual([]);
    expect(catcher.connections).toBe(0);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`${join(dir, '.env')} was not read: it sets DATABASE_URL without a password`);
  });

  it('a cloned .env aiming UISP_URL elsewhere never gets the exported token: exit 2, nothing is asked', { timeout: 60_000 }, async () => {
    const dir = folder({ '.env': `UISP_URL=${sim.url}\n` });
    const before = sim.requests.length;
    const run = await subops(dir, { UISP_TOKEN: sim.token }, 'config', 'check', '--cli');
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(`${join(dir, '.env')} was not read: it sets UISP_URL while UISP_TOKEN comes from the environment`);
    expect(run.stderr).not.toContain(sim.token);
    expect(run.stderr).not.toMatch(/\n\s+at /);
    expect(sim.requests.length).toBe(before);
  });
});
