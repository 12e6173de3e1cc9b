/**
 * `subops serve` start-up against the fake Slack: Slack unreachable (retried, then one fatal line and exit
 * 75), the token refused, AUDIT_CHANNEL_ID unusable (exit 78), and the process-level guard for stray
 * rejections. No stack traces, no secrets, one fatal JSON line on stdout and nothing on stderr.
 */
import { EventEmitter } from 'node:events';
import { createServer } from 'node:net';
import { PassThrough, Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { serve } from '../../src/serve.js';
import type { ProcessIo } from '../../src/process/io.js';
import { loadAppConfig, type Env } from '../../src/config.js';
import { startFakeSlack, type FakeSlack, type FakeSlackOptions } from '../../src/playground/fake-slack.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { fatalLines } from '../support/log-lines.js';

const BOT_TOKEN = 'xoxb-startup-secret-token';
const noWait = () => Promise.resolve();

let sim: RunningSimulator;
let fake: FakeSlack | undefined;
beforeEach(async () => {
  sim = await startSimulator();
});
afterEach(async () => {
  await fake?.close();
  fake = undefined;
  await sim.close();
});

interface Run extends ProcessIo {
  out(): string;
  err(): string;
  /** Resolves when stdout has a line containing `text`. */
  printed(text: string): Promise<void>;
  stop(): void;
}

function io(env: Env): Run {
  let out = '';
  let err = '';
  const written = new EventEmitter();
  const sink = (append: (text: string) => void) =>
    new Writable({
      write(chunk, _encoding, done) {
        append(String(chunk));
        written.emit('write');
        done();
      },
    });
  let stop!: () => void;
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  return {
    env,
    stdout: sink((t) => (out += t)),
    stderr: sink((t) => (err += t)),
    stdin: new PassThrough(),
    untilStopped: () => stopped,
    out: () => out,
    err: () => err,
    printed: (text) =>
      new Promise((resolve) => {
        const check = () => {
          if (!out.includes(text)) return;
          written.off('write', check);
          resolve();
        };
        written.on('write', check);
        check();
      }),
    stop,
  };
}

async function withFake(options: FakeSlackOptions = {}): Promise<FakeSlack> {
  fake = await startFakeSlack(options);
  return fake;
}

let port: number;
beforeEach(async () => {
  port = await freePort();
});

function env(slackApiUrl: string, extra: Env = {}): Env {
  // OPS_PORT 0: the ops listener (/metrics, /healthz) on a free port, never the default one another run may hold.
  return { UISP_URL: sim.url, UISP_TOKEN: sim.token, SLACK_BOT_TOKEN: BOT_TOKEN, SLACK_SIGNING_SECRET: 'startup-secret', SLACK_API_URL: slackApiUrl, PORT: String(port), OPS_PORT: '0', ALLOWED_EVERYONE: 'true', ...extra };
}

/** The one fatal line's message, after checking it is the only one, stderr is empty, and no stack or secret shows. */
function fatalMessage(run: Run): string {
  expect(run.err()).toBe('');
  expect(run.out()).not.toMatch(/\\n\s+at /);
  expect(run.out()).not.toContain(BOT_TOKEN);
  const fatal = fatalLines(run.out());
  expect(fatal).toHaveLength(1);
  return fatal[0]!.msg;
}

/** A port nothing listens on (for a moment): a Slack that refuses connections, or a port to serve on. */
function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

describe('serve start-up', () => {
  it('retries an unreachable Slack with a log line each time, then exits 75 (a restart may help) with one clear line', async () => {
    const run = io(env(`http://127.0.0.1:${await freePort()}/api`));
    expect(await serve([], run, { sleep: noWait })).toBe(75);
    expect(fatalMessage(run)).toMatch(/^Slack is not reachable \(auth\.test: .*\) after 5 attempts; check the network, any proxy, and SLACK_API_URL\.$/);
    expect(run.out().split('\n').filter((line) => line.includes('Slack is not reachable yet (auth.test); retrying in'))).toHaveLength(4);
  });

  it('starts once Slack answers again', async () => {
    const slack = await withFake();
    slack.failNext('auth.test', { status: 503 });
    slack.failNext('auth.test', { status: 503 });
    const run = io(env(slack.apiUrl));
    const exit = serve([], run, { sleep: noWait });
    await run.printed('SubOps is listening on port');
    run.stop();
    expect(await exit).toBe(0);
    expect(slack.callsTo('auth.test').map((c) => c.status)).toEqual([503, 503, 200]);
    expect(run.err()).toBe('');
  });

  it('waits out a rate limit like an unreachable Slack, asking with the bot token and the audit channel', async () => {
    const slack = await withFake();
    slack.failNext('auth.test', { status: 429 });
    slack.failNext('conversations.info', { status: 429 });
    const run = io(env(slack.apiUrl, { AUDIT_CHANNEL_ID: 'C0AUDIT' }));
    const exit = serve([], run, { sleep: noWait });
    await run.printed('SubOps is listening on port');
    run.stop();
    expect(await exit).toBe(0);
    expect(slack.callsTo('auth.test').map((c) => [c.status, c.token])).toEqual([
      [429, BOT_TOKEN],
      [200, BOT_TOKEN],
    ]);
    expect(slack.callsTo('conversations.info').map((c) => [c.status, c.args.channel])).toEqual([
      [429, 'C0AUDIT'],
      [200, 'C0AUDIT'],
    ]);
    expect(run.out()).toContain('Slack is not reachable yet (conversations.info); retrying in');
    expect(run.err()).toBe('');
  });

  it('exits 78 when the AUDIT_CHANNEL_ID channel is archived', async () => {
    const slack = await withFake({ channels: { C0AUDIT: { name: 'old-audit', is_archived: true } } });
    const run = io(env(slack.apiUrl, { AUDIT_CHANNEL_ID: 'C0AUDIT' }));
    expect(await serve([], run, { sleep: noWait })).toBe(78);
    expect(fatalMessage(run)).toBe('AUDIT_CHANNEL_ID C0AUDIT (#old-audit) is archived; the bot cannot post there. Set it to a live channel.');
  });

  it('exits 78 naming SLACK_BOT_TOKEN, never showing it, when Slack refuses the token', async () => {
    const slack = await withFake();
    slack.failNext('auth.test', { error: 'invalid_auth' });
    const run = io(env(slack.apiUrl));
    expect(await serve([], run, { sleep: noWait })).toBe(78);
    expect(fatalMessage(run)).toBe("Slack refused SLACK_BOT_TOKEN (invalid_auth); copy the Bot User OAuth Token (xoxb-…) from the app's OAuth & Permissions page.");
    expect(slack.callsTo('auth.test')).toHaveLength(1);
  });

  it('exits 78 when the bot is not in the AUDIT_CHANNEL_ID channel, saying how to fix it', async () => {
    const slack = await withFake({ channels: { C0AUDIT: { name: 'subops-audit', is_member: false } } });
    const run = io(env(slack.apiUrl, { AUDIT_CHANNEL_ID: 'C0AUDIT' }));
    expect(await serve([], run, { sleep: noWait })).toBe(78);
    expect(fatalMessage(run)).toBe('AUDIT_CHANNEL_ID C0AUDIT (#subops-audit): the bot is not a member, so it cannot post the audit trail there. Run /invite @SubOps in that channel.');
    expect(slack.callsTo('chat.postMessage')).toEqual([]);
  });

  it('exits 78 when AUDIT_CHANNEL_ID names no channel the bot can see', async () => {
    const slack = await withFake();
    slack.failNext('conversations.info', { error: 'channel_not_found' });
    const run = io(env(slack.apiUrl, { AUDIT_CHANNEL_ID: 'C0GONE' }));
    expect(await serve([], run, { sleep: noWait })).toBe(78);
    expect(fatalMessage(run)).toContain('AUDIT_CHANNEL_ID C0GONE: no such channel');
  });

  it('starts with a warning when the app may not read channels (installed before that scope)', async () => {
    const slack = await withFake();
    slack.failNext('conversations.info', { error: 'missing_scope' });
    const run = io(env(slack.apiUrl, { AUDIT_CHANNEL_ID: 'C0AUDIT' }));
    const exit = serve([], run, { sleep: noWait });
    await run.printed('SubOps is listening on port');
    run.stop();
    expect(await exit).toBe(0);
    expect(run.out()).toContain('Could not verify AUDIT_CHANNEL_ID C0AUDIT');
  });
});

describe('serve while running', () => {
  it('logs a stray unhandled rejection and keeps serving', async () => {
    const slack = await withFake();
    const run = io(env(slack.apiUrl));
    // Vitest reports any unhandled rejection as a failure of the run; step its listeners aside so this
    // one reaches only the process-level guard under test, as it would in production.
    const vitestListeners = process.listeners('unhandledRejection');
    const exit = serve([], run, { sleep: noWait });
    await run.printed('SubOps is listening on port');
    for (const listener of vitestListeners) process.off('unhandledRejection', listener);
    try {
      void Promise.reject(new Error('a promise nobody awaited'));
      await run.printed('unhandled promise rejection; SubOps keeps running');
    } finally {
      for (const listener of vitestListeners) process.on('unhandledRejection', listener);
    }
    expect(run.out()).toContain('a promise nobody awaited');
    run.stop();
    expect(await exit).toBe(0);
    expect(process.listeners('unhandledRejection')).toEqual(vitestListeners);
  });
});

describe('SHUTDOWN_GRACE_MS', () => {
  const base = { SLACK_BOT_TOKEN: 'xoxb-1', SLACK_SIGNING_SECRET: 's', ALLOWED_EVERYONE: 'true' };
  it('defaults to 25 s and takes a whole number of ms, naming the variable when it cannot', () => {
    expect(loadAppConfig({ SUBOPS_SIMULATOR: '1', ...base }).slack.shutdownGraceMs).toBe(25_000);
    expect(loadAppConfig({ SUBOPS_SIMULATOR: '1', ...base, SHUTDOWN_GRACE_MS: '5000' }).slack.shutdownGraceMs).toBe(5_000);
    expect(() => loadAppConfig({ SUBOPS_SIMULATOR: '1', ...base, SHUTDOWN_GRACE_MS: 'soon' })).toThrow(/SHUTDOWN_GRACE_MS must be a whole number/);
  });
});
