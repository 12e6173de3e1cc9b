/** `subops serve` / `npm start`: configuration problems exit 2 before connecting; a good one serves. */
import { createServer } from 'node:net';
import { PassThrough, Writable } from 'node:stream';
import { mkdtempSync, readFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { serve } from '../../src/serve.js';
import type { ProcessIo } from '../../src/process/io.js';
import type { Env } from '../../src/config.js';
import { startFakeSlack } from '../../src/playground/fake-slack.js';
import { SlackSender } from '../../src/playground/slack-sender.js';
import { startSimulator } from '../../src/simulator/index.js';
import { holdingBot } from '../support/store.js';

function io(env: Env, untilStopped?: () => Promise<void>): ProcessIo & { out: () => string; err: () => string; printed: (text: string) => Promise<void> } {
  let out = '';
  let err = '';
  const waiters: { text: string; resolve: () => void }[] = [];
  const sink = (append: (text: string) => void) =>
    new Writable({
      write(chunk, _encoding, done) {
        append(String(chunk));
        for (const waiter of waiters.filter((w) => out.includes(w.text))) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve();
        }
        done();
      },
    });
  return {
    env,
    stdout: sink((t) => (out += t)),
    stderr: sink((t) => (err += t)),
    stdin: new PassThrough(),
    ...(untilStopped && { untilStopped }),
    out: () => out,
    err: () => err,
    /** Resolves once stdout holds `text` (a signal to wait on, not a quiet period). */
    printed: (text) => (out.includes(text) ? Promise.resolve() : new Promise((resolve) => waiters.push({ text, resolve }))),
  };
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

const VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

/** The store of these bots: the test run's PostgreSQL (the embedded one takes seconds to open). */
const store = () => ({ DATABASE_URL: inject('postgresUrl') });

describe('serve', () => {
  it('lists every configuration problem by variable name and exits 2 without connecting', async () => {
    const run = io({ SLACK_BOT_TOKEN: 'not-a-bot-token', UISP_URL: 'ftp://uisp', PORT: 'eighty', SLACK_API_URL: 'nope' });
    expect(await serve([], run)).toBe(2);
    const problems = run.err();
    for (const variable of ['UISP_URL', 'SLACK_BOT_TOKEN', 'SLACK_SIGNING_SECRET', 'PORT', 'SLACK_API_URL']) expect(problems).toContain(variable);
    expect(problems).not.toContain('not-a-bot-token');
    expect(run.out()).toBe('');
  });

  it('refuses to start, naming the settings, when nobody is given access (no ALLOWED_*) unless ALLOWED_EVERYONE=true opens it', async () => {
    const run = io({ SUBOPS_SIMULATOR: '1', SLACK_BOT_TOKEN: 'xoxb-serve', SLACK_APP_TOKEN: 'xapp-serve', ACCESS_ACTIVATE: 'S0OPS' });
    expect(await serve([], run)).toBe(2);
    expect(run.err()).toBe(
      'Invalid configuration:\n  - ALLOWED_USERGROUP_ID or ALLOWED_USER_IDS is required: who may use SubOps (a user group S…, or user ids U…); ALLOWED_EVERYONE=true opens it to every member of the workspace\n',
    );
    expect(run.out()).toBe('');
  });

  it('refuses to serve agents without a real UISP unless --simulator is given', async () => {
    const run = io({ SLACK_BOT_TOKEN: 'xoxb-serve', SLACK_SIGNING_SECRET: 'serve-secret' });
    expect(await serve([], run)).toBe(2);
    expect(run.err()).toMatch(/UISP_URL is required for the Slack app .*subops serve --simulator/);
    expect(run.out()).toBe('');
  });

  it('serves signed requests on PORT until stopped', async () => {
    const sim = await startSimulator();
    const fake = await startFakeSlack();
    const port = await freePort();
    const opsPort = await freePort();
    let stop!: () => void;
    const stopped = new Promise<void>((resolve) => (stop = resolve));
    const run = io(
      { UISP_URL: sim.url, UISP_TOKEN: sim.token, ALLOWED_EVERYONE: 'true', SLACK_BOT_TOKEN: 'xoxb-serve', SLACK_SIGNING_SECRET: 'serve-secret', SLACK_API_URL: fake.apiUrl, PORT: String(port), OPS_PORT: String(opsPort), LOG_LEVEL: 'info', ...store() },
      () => stopped,
    );
    const exit = serve([], run);
    try {
      const sender = new SlackSender({ url: `http://127.0.0.1:${port}/slack/events`, signingSecret: 'serve-secret' });
      await run.printed(`listening on port ${port}`);
      const reply = await sender.slashCommand({ command: '/subops', text: 'help', userId: 'U1', channelId: 'C1' });
      expect(reply.body.text).toBe('SubOps commands');
      expect(run.out()).toContain(`listening on port ${port}`);
      expect(run.out()).toContain(`/metrics, /healthz and /livez on 127.0.0.1:${opsPort}`);
      // Which SubOps this is: in the start-up line (text and fields), and in /metrics.
      const started = JSON.parse(run.out().split('\n').find((line) => line.includes(`listening on port ${port}`))!) as Record<string, unknown>;
      expect(started).toMatchObject({ version: VERSION, node: process.version, msg: expect.stringContaining(`(SubOps ${VERSION}, Node.js ${process.version})`) });
      expect(await (await fetch(`http://127.0.0.1:${opsPort}/metrics`)).text()).toContain(`subops_build_info{version="${VERSION}",node="${process.version}"} 1`);
      expect((await fetch(`http://127.0.0.1:${opsPort}/livez`)).status).toBe(200);
      expect((await fetch(`http://127.0.0.1:${port}/livez`)).status).toBe(404);
      expect(run.out()).toContain('ALLOWED_EVERYONE=true: every member of the workspace may use SubOps');
      // Without WEBHOOK_TOKEN the webhook endpoint is off, and start-up says so in one line.
      expect(run.out().split('\n').filter((line) => line.includes('WEBHOOK_TOKEN is not set'))).toEqual([expect.stringContaining('the UISP webhook endpoint (/uisp/webhook) is off')]);
      const webhook = await fetch(`http://127.0.0.1:${port}/uisp/webhook`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"uuid":"2c6984d7-03ae-4e48-a212-7b99378837a2"}' });
      expect(webhook.status).toBe(404);
      // /metrics and /healthz: not on the Slack port; on the ops listener (loopback by default).
      expect((await fetch(`http://127.0.0.1:${port}/metrics`)).status).toBe(404);
      expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(404);
      expect((await fetch(`http://127.0.0.1:${opsPort}/metrics`)).status).toBe(200);
      expect(await (await fetch(`http://127.0.0.1:${opsPort}/healthz`)).json()).toMatchObject({ status: 'ok', uisp: { ok: true }, slack: { ok: true } });
      expect(sim.requests.filter((r) => r.path.includes('webhook-events'))).toEqual([]);
    } finally {
      stop();
      expect(await exit).toBe(0);
      await fake.close();
      await sim.close();
    }
  });

  it('uses Socket Mode when SLACK_APP_TOKEN is set, through SLACK_API_URL, and exits 1 when Slack refuses', async () => {
    const sim = await startSimulator();
    const fake = await startFakeSlack();
    try {
      // The fake accepts only xox… tokens, so it refuses the app token the way Slack refuses a revoked one.
      const run = io({ UISP_URL: sim.url, UISP_TOKEN: sim.token, ALLOWED_EVERYONE: 'true', SLACK_BOT_TOKEN: 'xoxb-serve', SLACK_APP_TOKEN: 'xapp-1-revoked', SLACK_API_URL: fake.apiUrl });
      expect(await serve([], run)).toBe(1);
      expect(run.err()).toBe('Slack refused SLACK_APP_TOKEN (invalid_auth); generate an app-level token with connections:write under Basic Information → App-Level Tokens.\n');
      expect(fake.callsTo('apps.connections.open').map((c) => c.token)).toEqual(['xapp-1-revoked']);
    } finally {
      await fake.close();
      await sim.close();
    }
  });

  it('a PORT another process holds is named, with what to do, and serve exits 1', async () => {
    const sim = await startSimulator();
    const fake = await startFakeSlack();
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as { port: number }).port;
    try {
      const run = io({ UISP_URL: sim.url, UISP_TOKEN: sim.token, ALLOWED_EVERYONE: 'true', SLACK_BOT_TOKEN: 'xoxb-serve', SLACK_SIGNING_SECRET: 'serve-secret', SLACK_API_URL: fake.apiUrl, PORT: String(port), OPS_PORT: '0', ...store() });
      expect(await serve([], run)).toBe(1);
      expect(run.err()).toBe(`Could not listen on PORT ${port}: another process is using it; set PORT to a free port.\n`);
    } finally {
      await new Promise((resolve) => taken.close(resolve));
      await fake.close();
      await sim.close();
    }
  });

  it('LOG_FORMAT=pretty writes readable lines instead of JSON objects', async () => {
    const sim = await startSimulator();
    const fake = await startFakeSlack();
    const port = await freePort();
    let stop!: () => void;
    const stopped = new Promise<void>((resolve) => (stop = resolve));
    const run = io({ UISP_URL: sim.url, UISP_TOKEN: sim.token, ALLOWED_EVERYONE: 'true', SLACK_BOT_TOKEN: 'xoxb-serve', SLACK_SIGNING_SECRET: 'serve-secret', SLACK_API_URL: fake.apiUrl, PORT: String(port), OPS_PORT: '0', LOG_FORMAT: 'pretty', ...store() }, () => stopped);
    const exit = serve([], run);
    try {
      await run.printed('SubOps is listening');
      const listening = run.out().split('\n').find((line) => line.includes('SubOps is listening'));
      expect(listening).toMatch(/INFO.*SubOps is listening on port/);
      expect(listening).not.toMatch(/^\{/);
    } finally {
      stop();
      expect(await exit).toBe(0);
      await fake.close();
      await sim.close();
    }
  });

  it('a DATABASE_URL it cannot reach is one line naming it (no password), exit 1, and nothing listens', async () => {
    const sim = await startSimulator();
    const fake = await startFakeSlack();
    const port = await freePort();
    try {
      const run = io({ UISP_URL: sim.url, UISP_TOKEN: sim.token, ALLOWED_EVERYONE: 'true', SLACK_BOT_TOKEN: 'xoxb-serve', SLACK_SIGNING_SECRET: 'serve-secret', SLACK_API_URL: fake.apiUrl, PORT: String(port), OPS_PORT: '0', DATABASE_URL: 'postgres://subops:pw-9f2c@127.0.0.1:1/subops' });
      expect(await serve([], run)).toBe(1);
      expect(run.err()).toMatch(/^Could not connect to the store at DATABASE_URL \(127\.0\.0\.1:1\/subops\): [^\n]*\n$/);
      expect(run.err()).not.toContain('pw-9f2c');
      expect(run.out()).not.toContain('SubOps is listening');
    } finally {
      await fake.close();
      await sim.close();
    }
  });

  it('an embedded store another bot holds (an OS lock: a container sharing the volume too) stops this one with one line saying so, exit 1, and nothing listens', async () => {
    const sim = await startSimulator();
    const fake = await startFakeSlack();
    const dir = mkdtempSync(join(tmpdir(), 'subops-held-'));
    const other = await holdingBot(dir);
    const port = await freePort();
    try {
      const run = io({ UISP_URL: sim.url, UISP_TOKEN: sim.token, ALLOWED_EVERYONE: 'true', SLACK_BOT_TOKEN: 'xoxb-serve', SLACK_SIGNING_SECRET: 'serve-secret', SLACK_API_URL: fake.apiUrl, PORT: String(port), OPS_PORT: '0', STORE_DIR: dir });
      expect(await serve([], run)).toBe(1);
      expect(run.err()).toBe(`The embedded store in ${dir} (STORE_DIR) is in use by another SubOps bot (process ${other.pid} on ${hostname()}): one bot per state folder. Stop that bot first; several replicas share a PostgreSQL store (DATABASE_URL).\n`);
      expect(run.out()).not.toContain('SubOps is listening');
    } finally {
      await fake.close();
      await sim.close();
    }
  });
});
