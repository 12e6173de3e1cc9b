/** `subops serve` / `npm start`: a good configuration serves (its exit codes: serve-exit-codes.test.ts). */
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { describe, expect, inject, it } from 'vitest';
import { serve } from '../../src/serve.js';
import type { ProcessIo } from '../../src/process/io.js';
import type { Env } from '../../src/config.js';
import { startFakeSlack } from '../../src/playground/fake-slack.js';
import { SlackSender } from '../../src/playground/slack-sender.js';
import { startSimulator } from '../../src/simulator/index.js';
import { fatalLines, logLines } from '../support/log-lines.js';

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
  it('refuses to start, naming the settings, when nobody is given access (no ALLOWED_*) unless ALLOWED_EVERYONE=true opens it', async () => {
    const run = io({ SUBOPS_SIMULATOR: '1', SLACK_BOT_TOKEN: 'xoxb-serve', SLACK_APP_TOKEN: 'xapp-serve', ACCESS_ACTIVATE: 'S0OPS' });
    expect(await serve([], run)).toBe(78);
    expect(fatalLines(run.out()).map((line) => line.msg).join('\n')).toContain(
      'ALLOWED_USERGROUP_ID or ALLOWED_USER_IDS is required: who may use SubOps (a user group S…, or user ids U…); ALLOWED_EVERYONE=true opens it to every member of the workspace',
    );
    expect(run.err()).toBe('');
  });

  it('refuses to serve agents without a real UISP unless --simulator is given', async () => {
    const run = io({ SLACK_BOT_TOKEN: 'xoxb-serve', SLACK_SIGNING_SECRET: 'serve-secret' });
    expect(await serve([], run)).toBe(78);
    expect(fatalLines(run.out()).map((line) => line.msg)).toEqual([expect.stringMatching(/UISP_URL is required for the Slack app .*subops serve --simulator/)]);
    expect(run.err()).toBe('');
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

  it('uses Socket Mode when SLACK_APP_TOKEN is set, through SLACK_API_URL, and exits 78 when Slack refuses', async () => {
    const sim = await startSimulator();
    const fake = await startFakeSlack();
    try {
      // The fake accepts only xox… tokens, so it refuses the app token the way Slack refuses a revoked one.
      const run = io({ UISP_URL: sim.url, UISP_TOKEN: sim.token, ALLOWED_EVERYONE: 'true', SLACK_BOT_TOKEN: 'xoxb-serve', SLACK_APP_TOKEN: 'xapp-1-revoked', SLACK_API_URL: fake.apiUrl });
      expect(await serve([], run)).toBe(78);
      expect(fatalLines(run.out()).map((line) => line.msg)).toEqual(['Slack refused SLACK_APP_TOKEN (invalid_auth); generate an app-level token with connections:write under Basic Information → App-Level Tokens.']);
      expect(run.err()).toBe('');
      expect(fake.callsTo('apps.connections.open').map((c) => c.token)).toEqual(['xapp-1-revoked']);
    } finally {
      await fake.close();
      await sim.close();
    }
  });

  it('stops quietly: nothing at warn or above between "stopping" and "SubOps stopped", with the embedded store and the audit channel', async () => {
    const sim = await startSimulator();
    const fake = await startFakeSlack();
    let stop!: () => void;
    const stopped = new Promise<void>((resolve) => (stop = resolve));
    const env = { UISP_URL: sim.url, UISP_TOKEN: sim.token, ALLOWED_EVERYONE: 'true', SLACK_BOT_TOKEN: 'xoxb-serve', SLACK_SIGNING_SECRET: 'serve-secret', SLACK_API_URL: fake.apiUrl, PORT: String(await freePort()), OPS_PORT: '0', AUDIT_CHANNEL_ID: 'C0AUDIT', STORE_DIR: mkdtempSync(join(tmpdir(), 'subops-quiet-')) };
    const run = io(env, () => stopped);
    const exit = serve([], run);
    try {
      await run.printed('SubOps state:');
    } finally {
      stop();
      expect(await exit).toBe(0);
      await fake.close();
      await sim.close();
    }
    const lines = logLines(run.out());
    const stopping = lines.findIndex((line) => line.msg.startsWith('stopping:'));
    expect(stopping).toBeGreaterThan(-1);
    expect(lines.at(-1)!.msg).toBe('SubOps stopped');
    expect(lines.slice(stopping).filter((line) => line.level >= 40)).toEqual([]);
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

});
