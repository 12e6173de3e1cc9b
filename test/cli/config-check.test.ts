/**
 * `subops config check`: the configuration, then UISP (the simulator) and Slack (the loopback fake, or a
 * small stub where the fake cannot answer) asked once each; one line per check, or one JSON object.
 * Exit 0 all passed, 1 a check failed, 2 bad configuration. Every failure names the variable to fix, and
 * no token appears in the output.
 */
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { runCli } from './support.js';
import { main } from '../../src/cli/main.js';
import type { EnvFileInfo } from '../../src/process/io.js';
import { startFakeSlack, type FakeSlack } from '../../src/playground/fake-slack.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';

const BOT_TOKEN = 'xoxb-config-check-secret';
const SIGNING_SECRET = 'signing-secret-never-shown';

let sim: RunningSimulator;
let slack: FakeSlack;
const servers: { close(done: () => void): unknown }[] = [];
beforeAll(async () => {
  sim = await startSimulator();
  slack = await startFakeSlack({ channels: { C0AUDIT: { name: 'subops-audit' }, C0OUTSIDE: { name: 'elsewhere', is_member: false } } });
});
afterAll(async () => {
  await slack.close();
  await sim.close();
});
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
});

interface Report {
  type: 'config-check';
  ok: boolean;
  exitCode: number;
  envFile: EnvFileInfo | null;
  problems: string[];
  checks: { check: string; status: string; message: string; ms: number | null }[];
}

async function check(env: Record<string, string>, args: string[] = [], envFile?: EnvFileInfo, moreSecrets: string[] = []) {
  const secrets = [BOT_TOKEN, SIGNING_SECRET, sim.token, ...moreSecrets, ...Object.entries(env).filter(([name]) => /TOKEN|SECRET/.test(name)).map(([, value]) => value)];
  // Exactly `env`: the simulator only when it says so.
  const { code, out, err } = await runCli(['config', 'check', ...args], { SUBOPS_SIMULATOR: '0', ...env }, secrets, envFile && { envFile });
  return { code, out, err, lines: out.trimEnd().split('\n'), json: () => JSON.parse(out) as Report };
}

// The bot's store: an embedded one in a folder not made yet (a fresh install), looked at, never created.
const STORE_DIR = join(tmpdir(), `subops-config-check-${process.pid}`, 'store');
const STORE_LINE = `✓ store            embedded store in ${STORE_DIR} (STORE_DIR): not created yet; the bot creates it at start`;
// Run in-process, no .env was read: the configuration line says so, and where the process entry looks.
const NO_ENV = `; no .env read (none at ${join(process.cwd(), '.env')}): the environment alone`;
const bot = () => ({ UISP_URL: sim.url, UISP_TOKEN: sim.token, SLACK_BOT_TOKEN: BOT_TOKEN, SLACK_SIGNING_SECRET: SIGNING_SECRET, SLACK_API_URL: slack.apiUrl.replace(/\/$/, ''), ISP_TIMEZONE: 'America/Guyana', STORE_DIR, ALLOWED_USER_IDS: 'U0AGENT' });

/** A loopback HTTP server answering every request with `answer`. */
async function stub(answer: (path: string, authorization: string) => { status: number; body: string; type?: string }): Promise<string> {
  const server: Server = createHttpServer((req, res) => {
    req.resume();
    const { status, body, type = 'application/json' } = answer(req.url ?? '', req.headers.authorization ?? '');
    res.writeHead(status, { 'content-type': type }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('subops config check', () => {
  it('all good: one ✓ line per check, exit 0; UISP asked once per system (and its version, for the status numbering) and Slack once per check', async () => {
    const before = sim.requests.length;
    const calls = slack.calls.length;
    const run = await check({ ...bot(), AUDIT_CHANNEL_ID: 'C0AUDIT' });
    expect(run.err).toBe('');
    expect(run.lines.map((line) => line.slice(0, 19))).toEqual(['✓ configuration    ', '✓ UISP CRM         ', '✓ UISP NMS         ', '✓ Slack auth       ', '✓ audit channel    ', '✓ status numbers   ', '✓ store            ']);
    expect(run.lines.at(-1)).toBe(STORE_LINE);
    expect(run.lines[0]).toBe(`✓ configuration    HTTP mode on PORT 3000 (Slack checks SLACK_SIGNING_SECRET on its first request); UISP at ${sim.url}${NO_ENV}`);
    expect(run.lines[1]).toMatch(new RegExp(`^✓ UISP CRM {9}${sim.url}/crm/api/v1\\.0 answered in \\d+ ms and took UISP_TOKEN$`));
    expect(run.lines[3]).toBe('✓ Slack auth       SLACK_BOT_TOKEN accepted: bot user UBOT (bot B0001) in https://subops-playground.slack.com/');
    expect(run.lines[4]).toBe('✓ audit channel    AUDIT_CHANNEL_ID C0AUDIT: the bot is in it and can post the audit trail there');
    expect(run.code).toBe(0);
    expect(sim.requests.slice(before).map((r) => `${r.method} ${r.path}`)).toEqual(
      expect.arrayContaining(['GET /crm/api/v1.0/service-suspension-reasons', 'GET /nms/api/v2.1/devices/discovered', 'GET /crm/api/v1.0/version']),
    );
    expect(sim.requests.length - before).toBe(3);
    expect(slack.calls.slice(calls).map((c) => c.method)).toEqual(['auth.test', 'conversations.info']);
  });

  it('--json prints one object with every check, and the .env the process read', async () => {
    const envFile = { path: '/srv/subops/.env', applied: ['UISP_URL'], shadowed: [], ignored: [] };
    const run = await check(bot(), ['--json'], envFile);
    expect(run.lines).toHaveLength(1);
    const report = run.json();
    expect(report).toMatchObject({ ok: true, exitCode: 0, envFile, problems: [] });
    expect(report.checks.map((c) => [c.check, c.status])).toEqual([
      ['configuration', 'ok'],
      ['UISP CRM', 'ok'],
      ['UISP NMS', 'ok'],
      ['Slack auth', 'ok'],
      ['status numbers', 'ok'],
      ['store', 'ok'],
    ]);
    expect(report.checks[0]).toEqual({ check: 'configuration', status: 'ok', message: expect.stringContaining('; 1 setting from /srv/subops/.env'), ms: null });
    for (const c of report.checks.slice(1)) expect(c.ms).toEqual(expect.any(Number));
  });

  it('a variable set in both the environment and .env is a warning naming it (the environment wins), still exit 0', async () => {
    const run = await check(bot(), [], { path: '/srv/subops/.env', applied: ['UISP_TOKEN', 'UISP_URL'], shadowed: ['LOG_LEVEL'], ignored: [] });
    expect(run.lines[0]).toBe(
      `! configuration    HTTP mode on PORT 3000 (Slack checks SLACK_SIGNING_SECRET on its first request); UISP at ${sim.url}; 2 settings from /srv/subops/.env; LOG_LEVEL is set in the environment too, whose value is used`,
    );
    expect(run.code).toBe(0);
  });

  it('a variable in .env that is not a SubOps setting is a warning naming it (it was ignored), still exit 0', async () => {
    const run = await check(bot(), [], { path: '/srv/subops/.env', applied: ['UISP_URL'], shadowed: [], ignored: ['EDITOR', 'NODE_OPTIONS'] });
    expect(run.lines[0]).toMatch(/^! configuration .*; 1 setting from \/srv\/subops\/\.env; EDITOR, NODE_OPTIONS are not SubOps settings: ignored$/);
    expect(run.code).toBe(0);
  });

  it('Slack ids that are not ids (a name, a typo) are problems naming each variable: exit 2, nothing asked', async () => {
    const before = sim.requests.length;
    const calls = slack.calls.length;
    const run = await check({
      ...bot(),
      ALLOWED_USER_IDS: 'bob,U0ANNA,S0LEADS',
      ALLOWED_USERGROUP_ID: 'leads',
      AUDIT_CHANNEL_ID: '#subops-audit',
      APPROVAL_REQUIRED_FOR: 'suspension',
      APPROVALS_CHANNEL_ID: 'approvals',
      DIGEST_CHANNEL_ID: 'U0ANNA',
      ACCESS_APPROVE: 'leads',
    });
    expect(run.code).toBe(2);
    expect(run.out).toContain('ALLOWED_USER_IDS must list Slack user ids (U…, W…), comma-separated; a user group goes in ALLOWED_USERGROUP_ID (not: bob, S0LEADS)');
    expect(run.out).toContain('ALLOWED_USERGROUP_ID must be a Slack user group id (S…), as the group\'s profile shows it (not: leads)');
    expect(run.out).toContain('AUDIT_CHANNEL_ID must be a Slack channel id (C…, G…), as the channel\'s details show it, not its name (not: #subops-audit)');
    expect(run.out).toContain('APPROVALS_CHANNEL_ID must be a Slack channel id (C…, G…), as the channel\'s details show it, not its name (not: approvals)');
    expect(run.out).toContain('DIGEST_CHANNEL_ID must be a Slack channel id (C…, G…), as the channel\'s details show it, not its name (not: U0ANNA)');
    expect(run.out).toContain('ACCESS_APPROVE must list Slack user ids (U…, W…) and user group ids (S…), comma-separated (not: leads)');
    expect(sim.requests.length).toBe(before);
    expect(slack.calls.length).toBe(calls);

    // The CLI's audit channel is checked the same way.
    const cli = await check({ UISP_URL: sim.url, UISP_TOKEN: sim.token, SLACK_BOT_TOKEN: BOT_TOKEN, AUDIT_CHANNEL_ID: 'subops-audit' }, ['--cli']);
    expect(cli.code).toBe(2);
    expect(cli.out).toContain('AUDIT_CHANNEL_ID must be a Slack channel id (C…, G…)');
  });

  it('a short WEBHOOK_TOKEN is a problem naming it and how to make one, without showing it: exit 2', async () => {
    const run = await check({ ...bot(), WEBHOOK_TOKEN: 'zQj' });
    expect(run.code).toBe(2);
    expect(run.out).toContain('WEBHOOK_TOKEN must be at least 24 characters (it has 3): anyone who guesses it can post events to the bot; make one with `openssl rand -hex 32`');
    const long = await check({ ...bot(), WEBHOOK_TOKEN: 'a'.repeat(24) });
    expect(long.code).toBe(0);
  });

  it('shows UISP_URL without the user name and password it holds', async () => {
    const run = await check({ ...bot(), UISP_URL: sim.url.replace('http://', 'http://admin:hunter2@') }, [], undefined, ['hunter2']);
    expect(run.code).toBe(0);
    expect(run.lines[0]).toContain(`UISP at ${sim.url}`);
    expect(run.lines[1]).toMatch(new RegExp(`^✓ UISP CRM {9}${sim.url}/crm/api/v1\\.0 answered`));
    expect(run.out).not.toContain('admin');
  });

  it('approvals on without ACCESS_APPROVE is a warning saying anyone may approve: exit 0', async () => {
    const run = await check({ ...bot(), APPROVAL_REQUIRED_FOR: 'suspension', AUDIT_CHANNEL_ID: 'C0AUDIT' });
    expect(run.lines[0]).toMatch(/^! configuration .*APPROVAL_REQUIRED_FOR is set but ACCESS_APPROVE is not: anyone who may use SubOps may approve another person's request/);
    expect(run.code).toBe(0);
    const approvers = await check({ ...bot(), APPROVAL_REQUIRED_FOR: 'suspension', AUDIT_CHANNEL_ID: 'C0AUDIT', ACCESS_APPROVE: 'S0LEADS' });
    expect(approvers.lines[0]).toMatch(/^✓ configuration /);
  });

  it('UISP refusing a token names the variable it came from: the system’s own, else UISP_TOKEN; exit 1', async () => {
    const crmOnly = await check({ ...bot(), UISP_CRM_TOKEN: 'wrong-crm-token' });
    expect(crmOnly.lines[1]).toBe('✗ UISP CRM         UISP refused UISP_CRM_TOKEN (HTTP 401): set UISP_CRM_TOKEN to a valid CRM token');
    expect(crmOnly.lines[2]).toMatch(/^✓ UISP NMS .* and took UISP_TOKEN$/);
    expect(crmOnly.code).toBe(1);

    const shared = await check({ ...bot(), UISP_TOKEN: 'wrong-shared-token' });
    expect(shared.lines.slice(1, 3)).toEqual([
      "✗ UISP CRM         UISP refused UISP_TOKEN (HTTP 401): set UISP_TOKEN to a valid token, or UISP_CRM_TOKEN to the CRM's own",
      "✗ UISP NMS         UISP refused UISP_TOKEN (HTTP 401): set UISP_TOKEN to a valid token, or UISP_NMS_TOKEN to the NMS's own",
    ]);
    expect(shared.code).toBe(1);
  });

  it('UISP_URL pointing at something that is not UISP, or at nothing, is named', async () => {
    const notUisp = await stub(() => ({ status: 404, body: '<html>Not Found</html>', type: 'text/html' }));
    const wrong = await check({ ...bot(), UISP_URL: notUisp });
    expect(wrong.lines.slice(1, 3)).toEqual([
      `✗ UISP CRM         no CRM API at ${notUisp}/crm/api/v1.0 (HTTP 404): UISP_URL must be the address holding /crm/api/v1.0 and /nms/api/v2.1, e.g. https://uisp.example.net`,
      `✗ UISP NMS         no NMS API at ${notUisp}/nms/api/v2.1 (HTTP 404): UISP_URL must be the address holding /crm/api/v1.0 and /nms/api/v2.1, e.g. https://uisp.example.net`,
    ]);
    expect(wrong.code).toBe(1);

    // A listener that hangs up on every connection: UISP does not answer at all.
    const hangUp = createNetServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => hangUp.listen(0, '127.0.0.1', resolve));
    servers.push(hangUp);
    const dead = `http://127.0.0.1:${(hangUp.address() as AddressInfo).port}`;
    const down = await check({ ...bot(), UISP_URL: dead });
    expect(down.lines[1]).toMatch(new RegExp(`^✗ UISP CRM {9}UISP unreachable \\(CRM GET /crm/api/v1\\.0/service-suspension-reasons: .*\\): check UISP_URL \\(${dead}/crm/api/v1\\.0\\), DNS and the network`));
    expect(down.lines[2]).toMatch(/^✗ UISP NMS {9}UISP unreachable \(.*: check UISP_URL/);
    expect(down.code).toBe(1);
  });

  it('the store: a PostgreSQL one at DATABASE_URL is asked its schema; one it cannot reach fails naming DATABASE_URL, never its password', async () => {
    const shared = await check({ ...bot(), DATABASE_URL: inject('postgresUrl') });
    expect(shared.lines.at(-1)).toMatch(/^✓ store {12}PostgreSQL at 127\.0\.0\.1:\d+\/postgres \(DATABASE_URL\) answered; (schema version \d+|not set up yet: the bot creates SubOps' tables at start)$/);
    expect(shared.code).toBe(0);
    const down = await check({ ...bot(), DATABASE_URL: 'postgres://subops:pw-7c1d@127.0.0.1:1/subops' });
    expect(down.lines.at(-1)).toMatch(/^✗ store {12}Could not connect to the store at DATABASE_URL \(127\.0\.0\.1:1\/subops\): /);
    expect(down.lines.join('\n')).not.toContain('pw-7c1d');
    expect(down.code).toBe(1);
    // A `/` left unencoded in the password (issue #37 §8): read as a URL, the rest of it would be the database, and printed.
    const slash = await check({ ...bot(), DATABASE_URL: 'postgres://subops:2024/Secret@127.0.0.1:1/subops' }, ['--json']);
    expect(slash.out).not.toContain('Secret');
    expect(slash.json().problems).toEqual(['DATABASE_URL must be a PostgreSQL URL, e.g. postgres://subops:password@db.example:5432/subops; a `/`, `?`, `#` or `@` in its user name or password must be percent-encoded (%2F, %3F, %23, %40)']);
    expect(slash.code).toBe(2);
  });

  it('the approvals and digest channels are checked too, each named by its variable, when their settings are on', async () => {
    const run = await check({ ...bot(), AUDIT_CHANNEL_ID: 'C0AUDIT', APPROVAL_REQUIRED_FOR: 'suspension', APPROVALS_CHANNEL_ID: 'C0OUTSIDE', DIGEST_CHANNEL_ID: 'C0AUDIT' });
    expect(run.lines.slice(4)).toEqual([
      '✓ audit channel    AUDIT_CHANNEL_ID C0AUDIT: the bot is in it and can post the audit trail there',
      '✗ approvals        APPROVALS_CHANNEL_ID C0OUTSIDE (#elsewhere): the bot is not a member, so it cannot post approval requests there. Run /invite @SubOps in that channel.',
      "✓ status numbers   interface (6 Quoted, 7 Obsolete; detected: the CRM does not serve GET /version (404), as the interface document's UISP)",
      STORE_LINE,
    ]);
    expect(run.code).toBe(1);
    const digest = await check({ ...bot(), DIGEST_CHANNEL_ID: 'C0AUDIT' });
    expect(digest.lines[4]).toBe('✓ digest           DIGEST_CHANNEL_ID C0AUDIT: the bot is in it and can post the daily digest there');
  });

  it('Slack refusing SLACK_BOT_TOKEN names it, and the audit channel is then not asked', async () => {
    slack.failNext('auth.test', { error: 'invalid_auth' });
    const run = await check({ ...bot(), AUDIT_CHANNEL_ID: 'C0AUDIT' });
    expect(run.lines.slice(3)).toEqual([
      "✗ Slack auth       Slack refused SLACK_BOT_TOKEN (invalid_auth); copy the Bot User OAuth Token (xoxb-…) from the app's OAuth & Permissions page.",
      '↷ audit channel    AUDIT_CHANNEL_ID C0AUDIT not asked: Slack did not accept SLACK_BOT_TOKEN',
      "✓ status numbers   interface (6 Quoted, 7 Obsolete; detected: the CRM does not serve GET /version (404), as the interface document's UISP)",
      STORE_LINE,
    ]);
    expect(run.code).toBe(1);
  });

  it('an audit channel the bot is not in fails naming AUDIT_CHANNEL_ID; one it cannot verify (missing scope) is a warning', async () => {
    const outside = await check({ ...bot(), AUDIT_CHANNEL_ID: 'C0OUTSIDE' });
    expect(outside.lines[4]).toBe('✗ audit channel    AUDIT_CHANNEL_ID C0OUTSIDE (#elsewhere): the bot is not a member, so it cannot post the audit trail there. Run /invite @SubOps in that channel.');
    expect(outside.code).toBe(1);

    slack.failNext('conversations.info', { error: 'missing_scope' });
    const unverified = await check({ ...bot(), AUDIT_CHANNEL_ID: 'C0AUDIT' });
    expect(unverified.lines[4]).toMatch(/^! audit channel {4}Could not verify AUDIT_CHANNEL_ID C0AUDIT: the app lacks the channels:read and groups:read scopes/);
    expect(unverified.code).toBe(0);
  });

  it('Slack not answering names SLACK_API_URL, after one attempt', async () => {
    const down = await stub(() => ({ status: 503, body: 'down' }));
    const run = await check({ ...bot(), SLACK_API_URL: down });
    expect(run.lines[3]).toBe('✗ Slack auth       Slack is not reachable (auth.test: HTTP 503) after 1 attempt; check the network, any proxy, and SLACK_API_URL.');
    expect(run.code).toBe(1);
  });

  it('Slack unreachable (nothing listening) is told apart from Slack refusing: the channels are "not asked: Slack was unreachable"', async () => {
    const closed = createNetServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const run = await check({ ...bot(), SLACK_API_URL: `http://127.0.0.1:${port}`, AUDIT_CHANNEL_ID: 'C0AUDIT' });
    expect(run.lines[3]).toMatch(/^✗ Slack auth {7}Slack is not reachable \(auth\.test: .*\) after 1 attempt; check the network, any proxy, and SLACK_API_URL\.$/);
    expect(run.lines[4]).toBe('↷ audit channel    AUDIT_CHANNEL_ID C0AUDIT not asked: Slack was unreachable');
    expect(run.out).not.toContain('did not accept');
    expect(run.code).toBe(1);
  });

  it('no .env read is said, and where one would be read from; SUBOPS_ENV_FILE set to nothing is named', async () => {
    expect((await check(bot())).lines[0]).toMatch(new RegExp(`; no \\.env read \\(none at ${join(process.cwd(), '.env').replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}\\): the environment alone$`));
    expect((await check({ ...bot(), SUBOPS_ENV_FILE: '' })).lines[0]).toMatch(/; no \.env read \(SUBOPS_ENV_FILE is empty\)$/);
  });

  it('access opened to everyone (ALLOWED_EVERYONE=true) is a warning that access is open to the whole workspace; exit 0', async () => {
    const { ALLOWED_USER_IDS: _, ...open } = bot();
    const run = await check({ ...open, ALLOWED_EVERYONE: 'true' });
    expect(run.lines[0]).toMatch(/^! configuration .*; ALLOWED_EVERYONE=true: access is open to the whole workspace \(anyone in it may use SubOps, within ACCESS_\* limits\)$/);
    expect(run.code).toBe(0);
    const group = await check({ ...open, ALLOWED_USERGROUP_ID: 'S0OPS' });
    expect(group.lines[0]).toMatch(/^✓ configuration /);
  });

  it('Socket Mode: SLACK_APP_TOKEN is asked too (apps.connections.open), and a refusal names it', async () => {
    // The fake Slack refuses every app-level token; this stub takes xapp-good-… and refuses the rest.
    const api = await stub((path, authorization) => {
      if (path.endsWith('/auth.test')) return { status: 200, body: JSON.stringify({ ok: true, user_id: 'U1', bot_id: 'B1' }) };
      if (path.endsWith('/apps.connections.open')) {
        return { status: 200, body: JSON.stringify(authorization.startsWith('Bearer xapp-good-') ? { ok: true, url: 'wss://example.invalid/link' } : { ok: false, error: 'invalid_auth' }) };
      }
      return { status: 200, body: JSON.stringify({ ok: false, error: 'unknown_method' }) };
    });
    const { SLACK_SIGNING_SECRET: _, ...socket } = { ...bot(), SLACK_API_URL: api };
    const good = await check({ ...socket, SLACK_APP_TOKEN: 'xapp-good-app-token' });
    expect(good.lines[0]).toBe(`✓ configuration    Socket Mode (SLACK_APP_TOKEN); UISP at ${sim.url}${NO_ENV}`);
    expect(good.lines.slice(3)).toEqual(['✓ Slack auth       SLACK_BOT_TOKEN accepted: bot user U1 (bot B1)', '✓ Slack app token  SLACK_APP_TOKEN accepted (Socket Mode)', "✓ status numbers   interface (6 Quoted, 7 Obsolete; detected: the CRM does not serve GET /version (404), as the interface document's UISP)", STORE_LINE]);
    expect(good.code).toBe(0);

    const revoked = await check({ ...socket, SLACK_APP_TOKEN: 'xapp-revoked-app-token' });
    expect(revoked.lines[4]).toBe('✗ Slack app token  Slack refused SLACK_APP_TOKEN (invalid_auth); generate an app-level token with connections:write under Basic Information → App-Level Tokens.');
    expect(revoked.code).toBe(1);
  });

  it('a bad configuration lists every problem by variable, asks nothing, and exits 2', async () => {
    const before = sim.requests.length;
    const calls = slack.calls.length;
    const run = await check({ ...bot(), UISP_TIMEOUT_MS: '0', SLACK_BOT_TOKEN: 'xoxp-user-token-secret', PORT: '70000' });
    expect(run.lines).toEqual([
      `✗ configuration    3 problems; UISP and Slack were not asked${NO_ENV}`,
      '    - UISP_TIMEOUT_MS must be a whole number of at least 1 (got "0")',
      '    - PORT must be a whole number from 1 to 65535 (got "70000")',
      '    - SLACK_BOT_TOKEN must start with "xoxb-"',
    ]);
    expect(run.code).toBe(2);
    expect(sim.requests.length).toBe(before);
    expect(slack.calls.length).toBe(calls);

    const json = (await check({ UISP_TOKEN: 'uisp-token-secret' }, ['--json'])).json();
    expect(json).toEqual({
      type: 'config-check',
      ok: false,
      exitCode: 2,
      envFile: null,
      problems: [
        'UISP_URL is required for the Slack app (to try it on sample data instead: `subops serve --simulator`, or `npm run demo`)',
        'SLACK_BOT_TOKEN is required (the bot token, xoxb-…, from OAuth & Permissions)',
        'SLACK_SIGNING_SECRET is required (needed to verify requests in HTTP mode; or set SLACK_APP_TOKEN for Socket Mode)',
        'ALLOWED_USERGROUP_ID or ALLOWED_USER_IDS is required: who may use SubOps (a user group S…, or user ids U…); ALLOWED_EVERYONE=true opens it to every member of the workspace',
      ],
      checks: [{ check: 'configuration', status: 'failed', message: `4 problems; UISP and Slack were not asked${NO_ENV}`, ms: null }],
    });
  });

  it('--cli checks what the CLI reads: UISP_URL unless the simulator is asked for, and Slack only with an audit channel', async () => {
    const bare = await check({}, ['--cli']);
    expect(bare.lines).toEqual([
      `✗ configuration    1 problem; UISP and Slack were not asked${NO_ENV}`,
      '    - UISP_URL is required: set it to your UISP (e.g. https://uisp.example.net, with UISP_TOKEN), or add --simulator to try SubOps against the bundled UISP simulator (SUBOPS_SIMULATOR=1 for every command)',
    ]);
    expect(bare.code).toBe(2);

    const simulated = await check({ SUBOPS_SIMULATOR: '1' }, ['--cli']);
    expect(simulated.lines).toEqual([
      `✓ configuration    CLI, audit records to stderr only (SLACK_BOT_TOKEN and AUDIT_CHANNEL_ID are not both set); SUBOPS_SIMULATOR=1 (or --simulator): the embedded UISP simulator stands in for UISP${NO_ENV}`,
      '↷ UISP CRM         SUBOPS_SIMULATOR=1 (or --simulator): no real UISP is asked',
      '↷ UISP NMS         SUBOPS_SIMULATOR=1 (or --simulator): no real UISP is asked',
      '↷ status numbers   SUBOPS_SIMULATOR=1 (or --simulator): the embedded simulator is asked when it runs',
    ]);
    expect(simulated.code).toBe(0);

    const audited = await check({ UISP_URL: sim.url, UISP_TOKEN: sim.token, SLACK_BOT_TOKEN: BOT_TOKEN, SLACK_API_URL: slack.apiUrl.replace(/\/$/, ''), AUDIT_CHANNEL_ID: 'C0AUDIT' }, ['--cli']);
    expect(audited.lines.map((line) => line.slice(0, 1) + line.slice(1, 18).trim())).toEqual(['✓configuration', '✓UISP CRM', '✓UISP NMS', '✓Slack auth', '✓audit channel', '✓status numbers']);

    // Set, it is named as set and nothing is asked; against a stock UISP it is detected as stock.
    const set = await check({ UISP_URL: sim.url, UISP_TOKEN: sim.token, SERVICE_STATUS_NUMBERING: 'stock' }, ['--cli']);
    expect(set.lines.at(-1)).toBe('✓ status numbers   stock (7 Quoted, 5 Obsolete; set by SERVICE_STATUS_NUMBERING=stock)');
    const stock = await startSimulator({ world: 'stock' });
    try {
      const detected = await check({ UISP_URL: stock.url, UISP_TOKEN: stock.token }, ['--cli']);
      expect(detected.lines.at(-1)).toBe('✓ status numbers   stock (7 Quoted, 5 Obsolete; detected: the CRM answers GET /version (2.4.205), as every stock UISP does)');
    } finally {
      await stock.close();
    }
    expect(audited.code).toBe(0);
  });

  it('a missing or unknown subcommand is a usage error; --help explains the checks and exit codes', async () => {
    const stdout = new PassThrough();
    let out = '';
    stdout.on('data', (chunk) => (out += chunk));
    const io = { env: {}, stdout, stderr: new PassThrough(), stdin: new PassThrough() };
    expect(await main(['config'], io)).toBe(2);
    expect(await main(['config', 'show'], io)).toBe(2);
    expect(await main(['config', 'check', '--help'], io)).toBe(0);
    expect(out).toContain('Usage: subops config check [--cli] [--json]');
    expect(out).toContain('Exit codes: 0 every check passed');
  });
});

describe('a refused UISP token in any command names the variable, never the token', () => {
  it('subops reasons with a wrong CRM token', async () => {
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    let err = '';
    stderr.on('data', (chunk) => (err += chunk));
    const code = await main(['reasons'], { env: { UISP_URL: sim.url, UISP_TOKEN: sim.token, UISP_CRM_TOKEN: 'wrong-crm-token-value' }, stdout, stderr, stdin: new PassThrough() });
    expect(code).toBe(1);
    expect(err).toContain('UISP refused the CRM token (HTTP 401); check UISP_CRM_TOKEN, or UISP_TOKEN when UISP_CRM_TOKEN is not set');
    expect(err).not.toContain('wrong-crm-token-value');
  });
});
