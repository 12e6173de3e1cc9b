/**
 * `subops serve` under a supervisor: a problem a restart cannot fix exits 78 (EX_CONFIG, which the
 * shipped unit's RestartPreventExitStatus= names), one a restart may fix (Slack or the database not
 * answering) exits 75 (EX_TEMPFAIL). Either way the reason is one fatal JSON log line on stdout, where
 * every other line goes, and nothing on stderr.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { PassThrough, Writable } from 'node:stream';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, inject, it } from 'vitest';
import { serve } from '../../src/serve.js';
import type { ProcessIo } from '../../src/process/io.js';
import type { Env } from '../../src/config.js';
import { startFakeSlack, type FakeSlack } from '../../src/playground/fake-slack.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { holdingBot } from '../support/store.js';
import { fatalLines, logLines, type LogLine } from '../support/log-lines.js';

const BOT_TOKEN = 'xoxb-exit-codes-secret';
const noWait = () => Promise.resolve();

function io(env: Env): ProcessIo & { out: () => string; err: () => string } {
  let out = '';
  let err = '';
  const sink = (append: (text: string) => void) =>
    new Writable({
      write(chunk, _encoding, done) {
        append(String(chunk));
        done();
      },
    });
  return { env, stdout: sink((t) => (out += t)), stderr: sink((t) => (err += t)), stdin: new PassThrough(), out: () => out, err: () => err };
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

let sim: RunningSimulator;
let fake: FakeSlack;
beforeEach(async () => {
  sim = await startSimulator();
  fake = await startFakeSlack();
});
afterEach(async () => {
  await fake.close();
  await sim.close();
});

const env = (extra: Env = {}): Env => ({
  UISP_URL: sim.url,
  UISP_TOKEN: sim.token,
  ALLOWED_EVERYONE: 'true',
  SLACK_BOT_TOKEN: BOT_TOKEN,
  SLACK_SIGNING_SECRET: 'exit-codes-secret',
  SLACK_API_URL: fake.apiUrl,
  OPS_PORT: '0',
  DATABASE_URL: inject('postgresUrl'),
  ...extra,
});

/** Runs serve to its end; expects exactly one fatal line, every stdout line JSON, nothing on stderr, no secret, no stack. */
async function fatalRun(given: Env): Promise<{ code: number; fatal: LogLine }> {
  const run = io(given);
  const code = await serve([], run, { sleep: noWait });
  expect(run.err()).toBe('');
  const fatal = fatalLines(run.out());
  expect(fatal).toHaveLength(1);
  expect(logLines(run.out()).some((line) => String(line.msg).startsWith('SubOps is listening'))).toBe(false);
  expect(run.out()).not.toContain(BOT_TOKEN);
  expect(run.out()).not.toMatch(/\\n\s+at /);
  expect(fatal[0]!.exitCode).toBe(code);
  return { code, fatal: fatal[0]! };
}

describe('serve: problems a restart cannot fix exit 78 (EX_CONFIG)', () => {
  it('bad configuration: every problem by variable name', async () => {
    const { code, fatal } = await fatalRun({ SLACK_BOT_TOKEN: 'not-a-bot-token', UISP_URL: 'ftp://uisp', PORT: 'eighty' });
    expect(code).toBe(78);
    expect(fatal.msg).toMatch(/^Invalid configuration:/);
    for (const variable of ['UISP_URL', 'SLACK_BOT_TOKEN', 'SLACK_SIGNING_SECRET', 'PORT']) expect(fatal.problems).toContainEqual(expect.stringContaining(variable));
    expect(JSON.stringify(fatal)).not.toContain('not-a-bot-token');
  });

  it('a bot token Slack refuses', async () => {
    fake.failNext('auth.test', { error: 'invalid_auth' });
    const { code, fatal } = await fatalRun(env({ PORT: String(await freePort()) }));
    expect(code).toBe(78);
    expect(fatal.msg).toBe("Slack refused SLACK_BOT_TOKEN (invalid_auth); copy the Bot User OAuth Token (xoxb-…) from the app's OAuth & Permissions page.");
  });

  it('an embedded store another bot holds', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'subops-exit-held-'));
    const other = await holdingBot(dir);
    const { code, fatal } = await fatalRun(env({ PORT: String(await freePort()), DATABASE_URL: '', STORE_DIR: dir }));
    expect(code).toBe(78);
    expect(fatal.msg).toBe(`The embedded store in ${dir} (STORE_DIR) is in use by another SubOps bot (process ${other.pid} on ${hostname()}): one bot per state folder. Stop that bot first; several replicas share a PostgreSQL store (DATABASE_URL).`);
  });

  it('a state folder it cannot make (STORE_DIR below a file)', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'subops-exit-folder-')), 'not-a-folder');
    writeFileSync(file, '');
    const { code, fatal } = await fatalRun(env({ PORT: String(await freePort()), DATABASE_URL: '', STORE_DIR: join(file, 'store') }));
    expect(code).toBe(78);
    expect(fatal.msg).toMatch(new RegExp(`^Could not open the embedded store in ${join(file, 'store')} \\(STORE_DIR\\): ENOTDIR`));
  });

  it('a PORT another process holds', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as { port: number }).port;
    try {
      const { code, fatal } = await fatalRun(env({ PORT: String(port) }));
      expect(code).toBe(78);
      expect(fatal.msg).toBe(`Could not listen on PORT ${port}: another process is using it; set PORT to a free port.`);
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });
});

describe('serve: problems a restart may fix exit 75 (EX_TEMPFAIL)', () => {
  it('Slack not answering, after the start-up retries', async () => {
    const { code, fatal } = await fatalRun(env({ PORT: String(await freePort()), SLACK_API_URL: `http://127.0.0.1:${await freePort()}/api` }));
    expect(code).toBe(75);
    expect(fatal.msg).toMatch(/^Slack is not reachable \(auth\.test: .*\) after 5 attempts/);
  });

  it('a DATABASE_URL that does not answer (no password shown)', async () => {
    const { code, fatal } = await fatalRun(env({ PORT: String(await freePort()), DATABASE_URL: 'postgres://subops:pw-9f2c@127.0.0.1:1/subops' }));
    expect(code).toBe(75);
    expect(fatal.msg).toMatch(/^Could not connect to the store at DATABASE_URL \(127\.0\.0\.1:1\/subops\): /);
    expect(JSON.stringify(fatal)).not.toContain('pw-9f2c');
  });
});
