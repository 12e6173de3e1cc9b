/**
 * The deployment files, read as Docker and Compose read them (Docker itself is not available to the
 * tests): the Dockerfile's stages, user, health check and entry point, what its COPY lines need from
 * the build context, the compose file's bot service, the npm scripts that start processes, and the
 * systemd unit in deploy/ (with systemd-analyze where the machine has it). Running the health check against a bot is in deployment-signals.test.ts.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadAppConfig } from '../../src/config.js';
import { SETTINGS } from '../../src/config-variables.js';
import { SERVE_EXIT } from '../../src/process/io.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

interface Instruction {
  keyword: string;
  args: string;
}
interface Stage {
  from: string;
  name: string | undefined;
  instructions: Instruction[];
}

/** Instructions per stage, with line continuations joined and comments left out. */
function dockerfileStages(text: string): Stage[] {
  const stages: Stage[] = [];
  const lines = text
    .split('\n')
    .filter((line) => !/^\s*#/.test(line))
    .join('\n')
    .replace(/\\\n/g, ' ')
    .split('\n');
  for (const line of lines) {
    const match = /^\s*([A-Za-z]+)\s+(.*?)\s*$/.exec(line);
    if (!match) continue;
    const keyword = match[1]!.toUpperCase();
    const args = match[2]!;
    if (keyword === 'FROM') {
      const [from, as, name] = args.split(/\s+/);
      stages.push({ from: from!, name: as?.toUpperCase() === 'AS' ? name : undefined, instructions: [] });
    } else stages.at(-1)?.instructions.push({ keyword, args });
  }
  return stages;
}

const execForm = (args: string): string[] => JSON.parse(args) as string[];
const all = (stage: Stage, keyword: string) => stage.instructions.filter((instruction) => instruction.keyword === keyword).map((instruction) => instruction.args);
const last = (stage: Stage, keyword: string) => all(stage, keyword).at(-1);

/** .dockerignore patterns, matched as Docker does for the simple forms used: a name, a path prefix, `*`. */
function ignoredByDocker(path: string): boolean {
  const patterns = read('.dockerignore')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'));
  return patterns.some((pattern) => {
    const regex = new RegExp(`^${pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*')}(/.*)?$`);
    return regex.test(path);
  });
}

/** When each Node LTS line stops getting security fixes (nodejs.org/en/about/previous-releases). */
const NODE_LTS_END_OF_LIFE: Record<number, string> = { 18: '2025-04-30', 20: '2026-04-30', 22: '2027-04-30', 24: '2028-04-30' };

/** Each stage's base image, with `${NODE_IMAGE}` taken from its ARG default. */
function stageImages(text: string, stages: Stage[]): string[] {
  const fallback = /^ARG\s+NODE_IMAGE=(\S+)\s*$/m.exec(text)?.[1];
  return stages.map((stage) => stage.from.replace('${NODE_IMAGE}', fallback ?? ''));
}

/** The Node major of every stage's `node:` image; all stages agree. */
function imageNodeMajor(text: string, stages: Stage[]): number {
  const majors = new Set(stageImages(text, stages).map((image) => /^node:(\d+)/.exec(image)?.[1]));
  expect([...majors]).toHaveLength(1);
  return Number([...majors][0]);
}

/** Where the image keeps SubOps' state: the node user's state folder, as SubOps itself works it out. */
const IMAGE_HOME = '/home/node';
const IMAGE_STATE = `${IMAGE_HOME}/.local/state/subops`;

/** Whether an engines range of the forms package.json uses (`^20.19.0 || ^22.12.0 || >=24`) accepts a version. */
function enginesAccept(range: string, version: string): boolean {
  const [major, minor, patch] = version.split('.').map(Number) as [number, number, number];
  const atLeast = (floor: string) => {
    const [a = 0, b = 0, c = 0] = floor.split('.').map(Number);
    return major !== a ? major > a : minor !== b ? minor > b : patch >= c;
  };
  return range.split('||').some((alternative) => {
    const [, operator, floor] = /^\s*(\^|>=)(\d+(?:\.\d+){0,2})\s*$/.exec(alternative) ?? [];
    if (!floor) throw new Error(`engines alternative not understood: "${alternative}"`);
    return atLeast(floor) && (operator === '>=' || major === Number(floor.split('.')[0]));
  });
}

describe('Dockerfile', () => {
  const stages = dockerfileStages(read('Dockerfile'));
  const build = stages.find((stage) => stage.name === 'build')!;
  const runtime = stages.at(-1)!;

  it('builds in one stage and runs from another with production dependencies only', () => {
    expect(stages.map((stage) => stage.name)).toEqual(['build', 'runtime']);
    for (const image of stageImages(read('Dockerfile'), stages)) expect(image).toMatch(/^node:/);
    const buildRuns = all(build, 'RUN').join('\n');
    expect(buildRuns).toMatch(/\bnpm ci\b/);
    expect(buildRuns).toMatch(/\bnpm run build\b/);

    const runtimeRuns = all(runtime, 'RUN').join('\n');
    expect(runtimeRuns).toMatch(/\bnpm ci --omit=dev --ignore-scripts\b/);
    expect(runtimeRuns).not.toMatch(/npm run build|\btsc\b|npm ci(?! --omit=dev)/);
    expect(all(runtime, 'COPY')).toContain('--from=build /app/dist ./dist');
    expect(all(runtime, 'COPY').join('\n')).not.toMatch(/\bsrc\b/);
  });

  it('runs a Node LTS line still supported today, which package.json engines accepts (as it accepts the Node running the tests)', () => {
    const major = imageNodeMajor(read('Dockerfile'), stages);
    const endOfLife = NODE_LTS_END_OF_LIFE[major];
    expect(endOfLife, `node ${major} is not an LTS line SubOps knows: add it to NODE_LTS_END_OF_LIFE`).toBeDefined();
    expect(new Date(`${endOfLife!}T23:59:59Z`).getTime(), `node ${major} reached end of life on ${endOfLife!}`).toBeGreaterThan(Date.now());
    const { engines } = JSON.parse(read('package.json')) as { engines: { node: string } };
    expect(enginesAccept(engines.node, `${major}.99.0`), `engines "${engines.node}" and node ${major}`).toBe(true);
    expect(enginesAccept(engines.node, process.versions.node), `engines "${engines.node}" and this node ${process.versions.node}`).toBe(true);
    const lock = JSON.parse(read('package-lock.json')) as { packages: Record<string, { engines?: { node: string } }> };
    expect(lock.packages['']!.engines).toEqual(engines);
  });

  it('is built on a slim Debian release still supported (trixie, not bookworm), pinned by digest', () => {
    for (const image of stageImages(read('Dockerfile'), stages)) {
      expect(image).toMatch(/^node:\d+-trixie-slim@sha256:[0-9a-f]{64}$/);
    }
  });

  it('makes the state folder, the runtime user’s alone, where SubOps keeps its store by default', () => {
    const user = last(runtime, 'USER')!;
    const made = all(runtime, 'RUN').find((run) => run.includes(IMAGE_STATE));
    expect(made).toMatch(new RegExp(`^install -d -o ${user} -g ${user} -m 0700 .*${IMAGE_STATE}$`));
    const { store } = loadAppConfig({ UISP_URL: 'https://uisp.example.net', UISP_TOKEN: 'image', HOME: IMAGE_HOME, SLACK_BOT_TOKEN: 'xoxb-image', SLACK_SIGNING_SECRET: 's', ALLOWED_USERGROUP_ID: 'S0OPS' });
    expect(store).toEqual({ engine: 'embedded', dir: `${IMAGE_STATE}/store` });
  });

  it('runs as an unprivileged user', () => {
    const user = last(runtime, 'USER');
    expect(user).toBeDefined();
    expect(user).not.toMatch(/^(root|0)(:|$)/);
  });

  it('runs node itself under tini, never npm or a shell, so SIGTERM reaches the bot; serve by default', () => {
    const entrypoint = execForm(last(runtime, 'ENTRYPOINT')!);
    expect(entrypoint).toEqual(['/usr/bin/tini', '--', 'node', 'bin/subops.js']);
    expect(execForm(last(runtime, 'CMD')!)).toEqual(['serve']);
    expect(all(runtime, 'RUN').join('\n')).toMatch(/apt-get install .*\btini\b/);
    expect(last(runtime, 'STOPSIGNAL') ?? 'SIGTERM').toBe('SIGTERM');
  });

  it('checks /healthz on the ops listener from inside the container, with node (no curl in the image)', () => {
    const healthcheck = last(runtime, 'HEALTHCHECK')!;
    const options = /^(.*?)\bCMD\s+(\[.*\])$/.exec(healthcheck);
    expect(options).not.toBeNull();
    const [command, flag, script] = execForm(options![2]!);
    expect([command, flag]).toEqual(['node', '-e']);
    expect(script).toContain("'127.0.0.1'");
    expect(script).toContain('process.env.OPS_PORT || 9464');
    expect(script).toContain('/healthz');
    // Longer than the probe's own 3 s cut-off, and a start period covering start-up's Slack retries.
    expect(options![1]).toMatch(/--timeout=5s/);
    expect(options![1]).toMatch(/--start-period=30s/);
  });

  it('copies only what is in the build context and not ignored by .dockerignore', () => {
    const sources = stages
      .flatMap((stage) => all(stage, 'COPY'))
      .filter((args) => !args.startsWith('--from='))
      .flatMap((args) => args.split(/\s+/).slice(0, -1));
    expect(sources).toEqual(['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json', 'src', 'package.json', 'package-lock.json', 'bin', 'examples']);
    for (const source of sources) {
      expect(existsSync(join(ROOT, source)), source).toBe(true);
      expect(ignoredByDocker(source), source).toBe(false);
    }
    for (const path of ['node_modules', 'dist', '.git', '.env', 'subops.env', 'test/fixtures']) expect(ignoredByDocker(path), path).toBe(true);
  });
});

describe('compose.yaml', () => {
  const compose = parse(read('compose.yaml')) as { services: Record<string, Record<string, any>> };
  const bot = compose.services.subops!;

  it('builds the image and runs `serve --simulator`, a configuration serve accepts once Slack is given', () => {
    expect(bot.build).toBe('.');
    expect(bot.command).toEqual(['serve', '--simulator']);
    // Compose's values with the ${…:-} defaults it applies when .env leaves them out, plus Slack.
    const env: Record<string, string> = {};
    for (const [name, value] of Object.entries(bot.environment as Record<string, string>)) env[name] = String(value).replace(/^\$\{[A-Z_]+:-(.*)\}$/, '$1');
    expect(env.UISP_URL).toBe('');
    const config = loadAppConfig({ SUBOPS_SIMULATOR: '1', ...env, SLACK_BOT_TOKEN: 'xoxb-compose', SLACK_APP_TOKEN: 'xapp-compose', ALLOWED_USERGROUP_ID: 'S0OPS' });
    expect(config.core.uisp.url).toBeUndefined();
    expect(config.ops).toMatchObject({ host: '127.0.0.1', port: 9464 });
    expect(() => loadAppConfig({ ...env, SLACK_BOT_TOKEN: 'xoxb-compose', SLACK_APP_TOKEN: 'xapp-compose' })).toThrow(/UISP_URL is required/);
  });

  it('passes every setting in .env on to the bot; only the in-container values are fixed', () => {
    // What Compose gives the container: the env_file's values, then `environment:` over them, its
    // ${NAME:-default} read from the same .env. Here the .env sets every setting SubOps reads.
    const envFiles = (bot.env_file as (string | { path: string })[] | undefined) ?? [];
    expect(envFiles.map((entry) => (typeof entry === 'string' ? entry : entry.path))).toEqual(['.env']);
    const dotenv = Object.fromEntries(SETTINGS.map((name) => [name, `from-env-file-${name}`]));
    const interpolate = (value: unknown) => String(value).replace(/\$\{([A-Z_]+)(?::-([^}]*))?\}/g, (_, name: string, fallback = '') => dotenv[name] || fallback);
    const container: Record<string, string> = { ...dotenv, ...Object.fromEntries(Object.entries(bot.environment as Record<string, unknown>).map(([name, value]) => [name, interpolate(value)])) };
    const lost = SETTINGS.filter((name) => container[name] !== dotenv[name]);
    // The simulator service never talks to a real UISP; the ports and the drain are the image's own.
    expect(lost).toEqual(['UISP_URL', 'UISP_TOKEN', 'PORT', 'SHUTDOWN_GRACE_MS', 'OPS_PORT']);
    for (const name of ['ALLOWED_USER_IDS', 'ALLOWED_USERGROUP_ID', 'ACCESS_APPROVE', 'APPROVAL_REQUIRED_FOR', 'WEBHOOK_TOKEN', 'OPS_HOST', 'DATABASE_URL']) expect(container[name], name).toBe(dotenv[name]);
  });

  it('gives the drain more time than SHUTDOWN_GRACE_MS before docker stop kills, and leaves PID 1 to the image’s tini', () => {
    const grace = Number(bot.environment.SHUTDOWN_GRACE_MS);
    const [, seconds] = /^(\d+)s$/.exec(bot.stop_grace_period as string)!;
    expect(Number(seconds) * 1000).toBeGreaterThan(grace);
    expect(bot.init).toBeUndefined();
    expect(bot.ports).toEqual(['${PORT:-3000}:3000']);
  });

  it('keeps the store in a named volume on the image’s state folder, so it outlives a recreated container', () => {
    const volumes = (compose as { volumes?: Record<string, unknown> }).volumes ?? {};
    const mounts = (bot.volumes as string[] | undefined) ?? [];
    const state = mounts.map((mount) => mount.split(':')).find(([, target]) => target === IMAGE_STATE);
    expect(state, `a volume on ${IMAGE_STATE}`).toBeDefined();
    expect(Object.keys(volumes)).toContain(state![0]);
  });

  it('restarts a failed bot a bounded number of times (Compose cannot leave out exit 78 as systemd does), never forever', () => {
    const [, policy, times] = /^(on-failure)(?::(\d+))?$/.exec(String(bot.restart)) ?? [];
    expect(policy, `restart: ${String(bot.restart)}`).toBe('on-failure');
    expect(Number(times)).toBeGreaterThan(0);
    expect(Number(times)).toBeLessThanOrEqual(10);
  });

  it('sets no ISP_TIMEZONE of its own: the zone is the user’s, from .env', () => {
    expect(Object.keys(bot.environment as Record<string, unknown>)).not.toContain('ISP_TIMEZONE');
  });

  it('has the offline demo behind a profile', () => {
    expect(compose.services.demo).toMatchObject({ profiles: ['demo'], command: ['demo'], stdin_open: true, tty: true });
  });
});

describe('npm scripts', () => {
  const { scripts } = JSON.parse(read('package.json')) as { scripts: Record<string, string> };

  it('start, demo and simulate replace npm’s shell with node (exec), so the signal npm passes on reaches the bot', () => {
    expect(scripts.start).toBe('exec node bin/subops.js serve');
    expect(scripts.demo).toBe('exec node bin/subops.js demo');
    expect(scripts.simulate).toBe('exec node bin/subops.js simulate');
  });

});

/** A unit file's settings: section → name → every value given (systemd adds up repeated settings), comments left out. */
function unitSettings(text: string): Record<string, Record<string, string[]>> {
  const sections: Record<string, Record<string, string[]>> = {};
  let section: Record<string, string[]> | undefined;
  for (const line of text.split('\n').map((raw) => raw.trim())) {
    if (!line || line.startsWith('#') || line.startsWith(';')) continue;
    const header = /^\[(.+)\]$/.exec(line);
    if (header) section = sections[header[1]!] = {};
    else {
      const [, name, value] = /^([A-Za-z]+)=(.*)$/.exec(line) ?? [];
      expect(name, `a setting: ${line}`).toBeDefined();
      (section![name!] ??= []).push(value!);
    }
  }
  return sections;
}

/** systemd-analyze, when this machine has it (it ships with systemd; containers and macOS often lack it). */
const systemdAnalyze = spawnSync('systemd-analyze', ['--version']).status === 0 ? 'systemd-analyze' : undefined;
const NO_ANALYZE = 'systemd-analyze is not installed on this machine: the unit is checked by reading it only';

describe('deploy/subops.service', () => {
  const text = read('deploy/subops.service');
  const unit = unitSettings(text);
  const service = unit.Service!;
  const one = (name: string) => {
    expect(service[name], name).toHaveLength(1);
    return service[name]![0]!;
  };

  it('runs node itself on `serve` as an account of its own, and waits out the drain before SIGKILL', () => {
    expect(one('ExecStart')).toMatch(/^\/\S*node \S*bin\/subops\.js serve$/);
    expect(service.KillSignal ?? ['SIGTERM']).toEqual(['SIGTERM']);
    expect(Number(one('TimeoutStopSec')) * 1000).toBeGreaterThan(loadAppConfig({ SUBOPS_SIMULATOR: '1', SLACK_BOT_TOKEN: 'xoxb-unit', SLACK_SIGNING_SECRET: 's', ALLOWED_USERGROUP_ID: 'S0OPS' }).slack.shutdownGraceMs);
    const account = service.DynamicUser?.[0] === 'yes' ? 'dynamic' : one('User');
    expect(account).not.toMatch(/^(root|0)$/);
    expect(unit.Unit!.After).toContain('network-online.target');
    expect(unit.Install!.WantedBy).toEqual(['multi-user.target']);
  });

  it('keeps the store in its StateDirectory, never in the code’s folder, and reads settings from the environment file only', () => {
    expect(one('StateDirectory')).toBe('subops');
    expect(one('StateDirectoryMode')).toBe('0700');
    const environment = service.Environment!;
    expect(environment).toContain('STORE_DIR=%S/subops/store');
    // The store's folder must be this account's alone (src/store/private-folder.ts): 0700 is.
    expect(environment).toContain('SUBOPS_ENV_FILE=');
    expect(one('EnvironmentFile')).toBe('/etc/subops/subops.env');
    expect(one('WorkingDirectory')).not.toBe('%S/subops');
  });

  it('restarts after a failure a restart may fix, and stays stopped on exit 78, the one that says it cannot', () => {
    expect(one('Restart')).toBe('on-failure');
    expect(one('RestartPreventExitStatus')).toBe(String(SERVE_EXIT.cannotStart));
    expect(Number(one('RestartSec'))).toBeGreaterThan(0);
  });

  it('has systemd’s hardening on, and leaves out MemoryDenyWriteExecute (V8 compiles to memory it executes)', () => {
    for (const [name, value] of Object.entries({
      NoNewPrivileges: 'yes',
      CapabilityBoundingSet: '',
      ProtectSystem: 'strict',
      ProtectHome: 'yes',
      PrivateTmp: 'yes',
      PrivateDevices: 'yes',
      ProtectKernelTunables: 'yes',
      ProtectKernelModules: 'yes',
      ProtectKernelLogs: 'yes',
      ProtectControlGroups: 'yes',
      RestrictAddressFamilies: 'AF_UNIX AF_INET AF_INET6',
      RestrictNamespaces: 'yes',
      RestrictSUIDSGID: 'yes',
      LockPersonality: 'yes',
      SystemCallArchitectures: 'native',
    })) {
      expect(one(name), name).toBe(value);
    }
    expect(service.SystemCallFilter).toContain('@system-service');
    expect(service.MemoryDenyWriteExecute).toBeUndefined();
    expect(text).toMatch(/MemoryDenyWriteExecute= is left out on purpose: V8/);
  });

  it('passes systemd-analyze verify', (context) => {
    if (!systemdAnalyze) context.skip(NO_ANALYZE);
    // verify checks that ExecStart's program exists: a machine whose node is elsewhere gets a copy naming its node.
    const dir = mkdtempSync(join(tmpdir(), 'subops-unit-'));
    const copy = join(dir, 'subops.service');
    writeFileSync(copy, existsSync('/usr/bin/node') ? text : text.replace('ExecStart=/usr/bin/node ', `ExecStart=${process.execPath} `));
    const verified = spawnSync(systemdAnalyze!, ['verify', copy], { encoding: 'utf8' });
    expect({ status: verified.status, stderr: verified.stderr }).toEqual({ status: 0, stderr: '' });
  });

  it('is rated OK or better by systemd-analyze security', (context) => {
    if (!systemdAnalyze) context.skip(NO_ANALYZE);
    const rated = spawnSync(systemdAnalyze!, ['security', '--offline=yes', join(ROOT, 'deploy/subops.service')], { encoding: 'utf8' });
    if (rated.status !== 0 && /offline/i.test(rated.stderr)) context.skip(`this systemd-analyze cannot rate a unit file offline (systemd 250 or later can): ${rated.stderr.trim()}`);
    const [, exposure, rating] = /Overall exposure level for subops\.service: ([\d.]+) (\w+)/.exec(rated.stdout) ?? [];
    expect(['OK', 'SAFE', 'PERFECT'], `exposure ${exposure} ${rating}`).toContain(rating);
    expect(rated.stderr).toBe('');
  });
});
