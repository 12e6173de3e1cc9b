/**
 * What the benchmark rows share: SubOps' Slack app (`subops serve`) and a bare Bolt app on the same
 * receiver, each in its own process, against the UISP simulator and the fake Slack over loopback in
 * the bench process; a latency proxy in front of the fake Slack; child processes timed from spawn.
 */
import { mkdtempSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startFakeSlack, type FakeSlack } from '../src/playground/fake-slack.js';
import { SlackSender } from '../src/playground/slack-sender.js';
import { startSimulator, type RunningSimulator, type SimulatorOptions } from '../src/simulator/index.js';

export const SIGNING_SECRET = 'bench-signing-secret-0123456789abcdef';
export const BOT_TOKEN = 'xoxb-fake-bench-token';
export const CHANNEL = 'C0SUPPORT';
export const AUDIT_CHANNEL = 'C0AUDIT';
export const AGENT = 'U0AGENT';

export interface Stage {
  sim: RunningSimulator;
  fake: FakeSlack;
  close(): Promise<void>;
}

/** The UISP simulator and the fake Slack every app of a row talks to. */
export async function startStage(simulator: SimulatorOptions = {}): Promise<Stage> {
  const sim = await startSimulator(simulator);
  const fake = await startFakeSlack();
  return {
    sim,
    fake,
    close: async () => {
      await fake.close();
      await sim.close();
    },
  };
}

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const SUBOPS = `${ROOT}bin/subops.js`;
export const BARE_BOLT = `${ROOT}bench/bare-bolt-app.js`;

/** The settings both apps are started with: the stage's simulator and fake Slack (or what stands for it). */
export async function appEnv(stage: Stage, slackApiUrl = stage.fake.apiUrl): Promise<Record<string, string>> {
  return {
    SLACK_BOT_TOKEN: BOT_TOKEN,
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    SLACK_API_URL: slackApiUrl.replace(/\/$/, ''),
    AUDIT_CHANNEL_ID: AUDIT_CHANNEL,
    UISP_URL: stage.sim.url,
    UISP_TOKEN: stage.sim.token,
    ISP_TIMEZONE: 'America/Guyana',
    // serve starts only when told who may use it; the measured requests come from several users.
    ALLOWED_EVERYONE: 'true',
    PORT: String(await freePort()),
    // The ops listener (/metrics, /healthz) on a free port; no developer's .env in a measured process.
    OPS_PORT: '0',
    SUBOPS_ENV_FILE: '',
  };
}

export interface RunningBot {
  sender: SlackSender;
  stop(): Promise<void>;
}

/**
 * An app in its own process, as in production (`subops serve`, or bench/bare-bolt-app.js), so that
 * what it is measured on is its own work, not the fakes' or the load generator's.
 */
export async function startAppProcess(stage: Stage, script: string, args: string[], ready: RegExp, env: Record<string, string> = {}): Promise<RunningBot> {
  const settings = { ...(await appEnv(stage)), ...env };
  const child = spawn(process.execPath, [script, ...args], { env: { PATH: process.env.PATH ?? '', ...settings }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (ready.test(output)) {
        child.stdout.off('data', onData);
        child.stdout.resume();
        resolve();
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    void exited.then(() => reject(new Error(`${script} ${args.join(' ')} exited before it was ready: ${output.trim().split('\n').slice(-3).join(' | ')}`)));
  });
  return {
    sender: new SlackSender({ url: `http://127.0.0.1:${settings.PORT}/slack/events`, signingSecret: SIGNING_SECRET, responseUrl: () => stage.fake.responseUrl() }),
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/**
 * `subops serve`, measured once it answers everything ("SubOps state: …", its store open): the rows that
 * use it measure operations (start-up is rows 6 and 7). Each process has a state folder of its own
 * unless `env` names one: the embedded store admits one bot per folder, and never the developer's own.
 */
export const startSubOpsProcess = (stage: Stage, env: Record<string, string> = {}) =>
  startAppProcess(stage, SUBOPS, ['serve'], /SubOps state: /, { XDG_STATE_HOME: mkdtempSync(join(tmpdir(), 'subops-bench-state-')), ...env });
export const startBareBoltProcess = (stage: Stage, env: Record<string, string> = {}) => startAppProcess(stage, BARE_BOLT, [], /^ready$/m, env);

/** Resolves once the fake Slack has received `count` more calls of `method` than it had when this was called. */
export function moreCalls(fake: FakeSlack, method: string, count: number): Promise<void> {
  const target = fake.callsTo(method).length + count;
  return new Promise((resolve) => {
    const check = () => {
      if (fake.callsTo(method).length >= target) resolve();
    };
    fake.on('call', check);
    check();
  });
}

/** An HTTP proxy that holds every request `delayMs` before passing it on: a slow Slack in front of the fake. */
export async function startDelayProxy(target: string, delayMs: number): Promise<{ url: string; close(): Promise<void> }> {
  const { hostname, port } = new URL(target);
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      setTimeout(() => {
        const upstream = httpRequest({ hostname, port, path: req.url, method: req.method, headers: req.headers }, (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        });
        upstream.on('error', () => res.destroy());
        upstream.end(Buffer.concat(chunks));
      }, delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

export interface ChildRun {
  /** ms from spawn to the line matching `until`, or to the exit when no `until` is given. */
  ms: number;
  /** ms from spawn to the first line matching each of `marks` (undefined: none came before `until` or the exit). */
  marksMs: (number | undefined)[];
  stdoutLines: number;
  stderr: string;
  code: number | null;
}

/**
 * Runs `node args…` and times it: to the first stdout line matching `until` (then sends SIGTERM and
 * waits for the exit), or to the exit; and to the first line matching each of `marks` on the way.
 * Stdout is counted, not kept. With `until`, a child that has not printed it in `giveUpMs` is killed.
 */
export function timeChild(args: string[], { env = {}, until, marks = [], giveUpMs = 120_000 }: { env?: Record<string, string>; until?: RegExp; marks?: RegExp[]; giveUpMs?: number } = {}): Promise<ChildRun> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, args, { env: { PATH: process.env.PATH ?? '', SUBOPS_ENV_FILE: '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let ms: number | undefined;
    const marksMs: (number | undefined)[] = marks.map(() => undefined);
    const giveUp = until && setTimeout(() => child.kill('SIGKILL'), giveUpMs);
    let lines = 0;
    let partial = '';
    let stderr = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      const text = partial + chunk;
      const parts = text.split('\n');
      partial = parts.pop() ?? '';
      lines += parts.length;
      marks.forEach((mark, i) => {
        if (marksMs[i] === undefined && parts.some((line) => mark.test(line))) marksMs[i] = performance.now() - started;
      });
      if (until && ms === undefined && parts.some((line) => until.test(line))) {
        ms = performance.now() - started;
        clearTimeout(giveUp);
        child.kill('SIGTERM');
      }
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      const elapsed = performance.now() - started;
      clearTimeout(giveUp);
      if (until && ms === undefined) reject(new Error(`node ${args.join(' ')} ${signal === 'SIGKILL' ? `was stopped after ${giveUpMs} ms` : `exited (${code})`} before printing ${until}: ${stderr.trim().split('\n').at(-1) ?? ''}`));
      else resolve({ ms: ms ?? elapsed, marksMs, stdoutLines: lines + (partial ? 1 : 0), stderr, code });
    });
  });
}

/** A free loopback port, for child processes that need to be told one. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
