/**
 * Running SubOps for real (README "Deployment"), as operating-system processes: `npm start`, `npm run
 * simulate`, `npm run demo` and `npx subops simulate` stopped by a signal to npm, the Dockerfile's
 * HEALTHCHECK command against a running bot, bin/subops.js without a build, and `prepare` without
 * TypeScript. Every wait is on an event (a line of output, an exit, the pipes closing), never a pause.
 * Runs the built CLI (bin/subops.js → dist/), rebuilt here when a source file is newer.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../support/subops-process.js';
import { fatalLines } from '../support/log-lines.js';
import { startFakeSlack, type FakeSlack } from '../../src/playground/fake-slack.js';
import { SlackSender } from '../../src/playground/slack-sender.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PROCESS_TIMEOUT_MS = 60_000;

let scratch: string;
let fake: FakeSlack;
const launched: Launched[] = [];

beforeAll(async () => {
  ensureBuilt();
  scratch = mkdtempSync(join(tmpdir(), 'subops-deployment-'));
  fake = await startFakeSlack();
}, 120_000);
afterEach(() => {
  // A test that failed half-way leaves nothing running: each launch is its own process group.
  for (const run of launched.splice(0)) run.killGroup();
});
afterAll(async () => {
  await fake?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

/** The environment of every launch: nothing from this process's (no npm_* variables), no developer `.env`. */
function baseEnv(): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    SUBOPS_ENV_FILE: '',
    SUBOPS_SIMULATOR_STATE: join(scratch, 'simulator.json'),
    XDG_STATE_HOME: scratch,
    ISP_TIMEZONE: 'America/Guyana',
    NO_COLOR: '1',
    npm_config_update_notifier: 'false',
    npm_config_fund: 'false',
    npm_config_audit: 'false',
  };
}

function botEnv(port: number): Record<string, string> {
  return { ...baseEnv(), SLACK_BOT_TOKEN: 'xoxb-deployment', SLACK_SIGNING_SECRET: 'deployment-secret', SLACK_API_URL: fake.apiUrl, PORT: String(port), OPS_PORT: '0', LOG_LEVEL: 'info', ALLOWED_EVERYONE: 'true' };
}

describe('npm start', () => {
  it('SIGTERM to npm reaches the bot: it drains and stops, npm exits 0 after it, and nothing is left listening', { timeout: PROCESS_TIMEOUT_MS }, async () => {
    const port = await freePort();
    const npm = launch('npm', ['start', '--', '--simulator'], botEnv(port));
    const opsPort = Number((await npm.waitFor(/\/metrics, \/healthz and \/livez on 127\.0\.0\.1:(\d+)/))[1]);

    // The Dockerfile's HEALTHCHECK command, run as Docker runs it (the container's environment).
    expect(await healthcheck(opsPort)).toBe(0);
    const reply = await new SlackSender({ url: `http://127.0.0.1:${port}/slack/events`, signingSecret: 'deployment-secret' }).slashCommand({ command: '/subops', text: 'help', userId: 'U1', channelId: 'C1' });
    expect(reply.body.text).toBe('SubOps commands');

    process.kill(npm.pid, 'SIGTERM');
    expect(await npm.closed).toEqual({ code: 0, signal: null });
    expect(npm.output()).toContain('stopping: new requests are turned away while the operations in flight finish');
    expect(npm.output()).toContain('SubOps stopped');
    expect(await refused(port)).toBe(true);
    expect(await refused(opsPort)).toBe(true);
    expect(await healthcheck(opsPort)).toBe(1);
  });

  it('Ctrl-C (SIGINT to npm and the bot at once, as a terminal sends it) stops the bot once, after the drain', { timeout: PROCESS_TIMEOUT_MS }, async () => {
    const port = await freePort();
    const npm = launch('npm', ['start', '--', '--simulator'], botEnv(port));
    const opsPort = Number((await npm.waitFor(/\/metrics, \/healthz and \/livez on 127\.0\.0\.1:(\d+)/))[1]);
    // Answered once the bot's start-up has run to its end, where it starts waiting for the signal.
    expect(await healthcheck(opsPort)).toBe(0);

    process.kill(-npm.pid, 'SIGINT');
    const exit = await npm.closed;
    // npm passes its copy of the signal on: the bot ignores it and drains; if the copy lands while the
    // bot is already exiting, npm reports the signal instead of 0 — after the same clean stop.
    expect([0, 'SIGINT']).toContain(exit.code ?? exit.signal);
    expect(npm.output()).toContain('SubOps stopped');
    expect(await refused(port)).toBe(true);
  });
});

describe('simulate and demo', () => {
  it('`npm run simulate`: SIGTERM to npm stops the simulator and npm exits 0', { timeout: PROCESS_TIMEOUT_MS }, async () => {
    const npm = launch('npm', ['run', 'simulate', '--', '--port', '0'], baseEnv());
    const port = Number((await npm.waitFor(/UISP simulator listening at http:\/\/127\.0\.0\.1:(\d+)/))[1]);
    expect(await refused(port)).toBe(false);

    process.kill(npm.pid, 'SIGTERM');
    expect(await npm.closed).toEqual({ code: 0, signal: null });
    expect(await refused(port)).toBe(true);
  });

  it('`npx subops simulate`: npx runs it under a shell that dies on SIGTERM; the simulator stops all the same', { timeout: PROCESS_TIMEOUT_MS }, async () => {
    const npx = launch('npx', ['--no', 'subops', 'simulate', '--port', '0'], baseEnv());
    const port = Number((await npx.waitFor(/UISP simulator listening at http:\/\/127\.0\.0\.1:(\d+)/))[1]);

    process.kill(npx.pid, 'SIGTERM');
    // The pipes close only when every process holding them has exited: the simulator too.
    await npx.closed;
    expect(await refused(port)).toBe(true);
  });

  it('`npm run demo`: SIGTERM to npm ends the demo with it, nothing left running', { timeout: PROCESS_TIMEOUT_MS }, async () => {
    const npm = launch('npm', ['run', 'demo'], baseEnv());
    await npm.waitFor(/SubOps playground: the Slack bot, offline/);

    process.kill(npm.pid, 'SIGTERM');
    // The demo has no work to drain: the signal ends it, and npm reports it.
    expect(await npm.closed).toEqual({ code: null, signal: 'SIGTERM' });
  });
});

describe('bin/subops.js without a build', () => {
  /** bin/subops.js copied into a folder of its own, with the dist/ files given (and no node_modules). */
  function checkout(name: string, dist: Record<string, string>): string {
    const root = join(scratch, name);
    mkdirSync(join(root, 'bin'), { recursive: true });
    copyFileSync(join(ROOT, 'bin/subops.js'), join(root, 'bin/subops.js'));
    for (const [path, text] of Object.entries(dist)) {
      mkdirSync(join(root, 'dist', path, '..'), { recursive: true });
      writeFileSync(join(root, 'dist', path), text);
    }
    return join(root, 'bin/subops.js');
  }

  async function run(bin: string, command = 'client'): Promise<{ code: number | null; stdout: string; stderr: string }> {
    const child = launch(process.execPath, [bin, command], { PATH: process.env.PATH ?? '' });
    const closed = await child.closed;
    return { code: closed.code, stdout: child.stdout(), stderr: child.stderr() };
  }

  it('says in one line that it is not built, and how to get a build: exit 2 (a bad installation: restarting does not fix it), no stack trace', async () => {
    expect(await run(checkout('never-built', {}))).toEqual({
      code: 2,
      stdout: '',
      stderr: 'SubOps is not built (no dist/): run npm ci (it installs the dev dependencies, the compiler among them, and builds), or npm run build where they are installed; or use the Docker image.\n',
    });
  });

  it('names a build that is out of date: exit 2', async () => {
    const bin = checkout('stale-build', { 'cli/main.js': 'export async function main() { return 0; }\n' });
    expect(await run(bin)).toEqual({ code: 2, stdout: '', stderr: "SubOps' build in dist/ is out of date (no process/env-file.js): run npm run build (with the dev dependencies installed: npm ci).\n" });
  });

  it('for serve, says it as serve says every fatal problem: one JSON log line on stdout, exit 78 (the unit does not restart it)', async () => {
    const result = await run(checkout('never-built-serve', {}), 'serve');
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 78, stderr: '' });
    expect(fatalLines(result.stdout)).toEqual([expect.objectContaining({ app: 'subops', exitCode: 78, msg: expect.stringMatching(/^SubOps is not built \(no dist\/\)/) })]);
  });

  it('names a dependency that is not installed: exit 2', async () => {
    const bin = checkout('no-dependencies', {
      'cli/main.js': "import '@subops-test/not-installed';\nexport async function main() { return 0; }\n",
      'process/env-file.js': 'export async function runProcess(main) { return main(); }\n',
    });
    expect(await run(bin)).toEqual({ code: 2, stdout: '', stderr: "SubOps' dependencies are not installed (no @subops-test/not-installed): run npm ci (or npm ci --omit=dev where dist/ is built).\n" });
  });
});

describe('`prepare` (run by npm ci, npm ci --omit=dev included)', () => {
  const prepare = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts.prepare!;

  /** The script as npm runs it (`sh -c`), with only `dir` on the PATH. */
  async function runPrepare(dir: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
    const child = launch('/bin/sh', ['-c', prepare], { PATH: dir }, scratch);
    const closed = await child.closed;
    return { code: closed.code, stdout: child.stdout(), stderr: child.stderr() };
  }

  it('without TypeScript (dev dependencies omitted) succeeds and says dist/ was not built, and how to get it', async () => {
    const empty = join(scratch, 'no-tsc');
    mkdirSync(empty, { recursive: true });
    const result = await runPrepare(empty);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^SubOps: dist\/ was not built: TypeScript is a dev dependency.*docs\/deployment\.md\.\n$/);
  });

  it('with TypeScript compiles, and fails when the compiler does', async () => {
    const withTsc = join(scratch, 'with-tsc');
    mkdirSync(withTsc, { recursive: true });
    writeFileSync(join(withTsc, 'tsc'), '#!/bin/sh\necho "tsc $*"\nexit 3\n');
    chmodSync(join(withTsc, 'tsc'), 0o755);
    expect(await runPrepare(withTsc)).toEqual({ code: 3, stdout: 'tsc -p tsconfig.build.json\n', stderr: '' });
  });
});

interface Launched {
  pid: number;
  /** Resolves with the first match once stdout or stderr holds it; rejects if the process ends first. */
  waitFor(pattern: RegExp): Promise<RegExpMatchArray>;
  /** Resolves once the process has exited and every holder of its pipes (its children too) closed them. */
  closed: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  output(): string;
  stdout(): string;
  stderr(): string;
  killGroup(): void;
}

/** Starts a process as the leader of a new process group (so a test can signal it as a terminal does). */
function launch(command: string, args: string[], env: Record<string, string>, cwd = ROOT): Launched {
  const child: ChildProcess = spawn(command, args, { cwd, env, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  let all = '';
  let ended = false;
  const watchers = new Set<() => void>();
  const notify = () => watchers.forEach((watcher) => watcher());
  child.stdout!.on('data', (chunk: Buffer) => ((out += chunk.toString('utf8')), (all += chunk.toString('utf8')), notify()));
  child.stderr!.on('data', (chunk: Buffer) => ((err += chunk.toString('utf8')), (all += chunk.toString('utf8')), notify()));
  const closed = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => {
      ended = true;
      notify();
      resolve({ code, signal });
    });
  });
  const launchedRun: Launched = {
    pid: child.pid!,
    closed,
    output: () => all,
    stdout: () => out,
    stderr: () => err,
    waitFor: (pattern) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const match = all.match(pattern);
          if (match) return watchers.delete(check), resolve(match);
          if (ended) return watchers.delete(check), reject(new Error(`${command} ${args.join(' ')} ended without printing ${String(pattern)}:\n${all}`));
        };
        watchers.add(check);
        check();
      }),
    killGroup: () => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // the group has already gone
      }
    },
  };
  launched.push(launchedRun);
  return launchedRun;
}

/** The HEALTHCHECK command of the Dockerfile's runtime stage, run with OPS_PORT set: its exit code. */
async function healthcheck(opsPort: number): Promise<number | null> {
  const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8').replace(/\\\n/g, ' ');
  const line = /^HEALTHCHECK\b.*?\bCMD\s+(\[.*\])\s*$/m.exec(dockerfile);
  expect(line, 'the Dockerfile has a HEALTHCHECK … CMD ["…"]').not.toBeNull();
  const [command, ...args] = JSON.parse(line![1]!) as string[];
  expect(command).toBe('node');
  const check = launch(process.execPath, args, { PATH: process.env.PATH ?? '', OPS_PORT: String(opsPort) });
  return (await check.closed).code;
}

function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(false)));
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

