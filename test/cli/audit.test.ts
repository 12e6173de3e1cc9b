/**
 * Every CLI write is audited like a Slack one (issue 8 §7): a structured line on stderr always (stdout
 * stays the command's output), and a message in the audit channel of the loopback fake Slack when
 * SLACK_BOT_TOKEN and AUDIT_CHANNEL_ID are set, naming the operating-system user and "CLI". A Slack
 * failure never fails the write, never prints a stack trace, never shows the token.
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeSlack, type FakeSlack } from '../../src/playground/fake-slack.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { openStore } from '../../src/store/index.js';
import { auditLines, runCli } from './support.js';

const BOT_TOKEN = 'xoxb-cli-audit-SECRET-77';
const AUDIT_CHANNEL = 'C0AUDIT';
const USER = userInfo().username;

let sim: RunningSimulator;
let fake: FakeSlack | undefined;
beforeEach(async () => {
  await sim?.close();
  sim = await startSimulator();
});
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});
afterAll(async () => sim?.close());

const uispEnv = () => ({ UISP_URL: sim.url, UISP_TOKEN: sim.token });
const slackEnv = () => ({ SLACK_BOT_TOKEN: BOT_TOKEN, AUDIT_CHANNEL_ID: AUDIT_CHANNEL, SLACK_API_URL: fake!.apiUrl });
const subops = (argv: string[], env: Record<string, string> = {}) => runCli(argv, { ...uispEnv(), ...env }, [sim.token, BOT_TOKEN]);
const writes = () => sim.requests.filter((r) => r.method !== 'GET').map((r) => `${r.method} ${r.path}`);

describe('the log line', () => {
  it('goes to stderr with who, what, targets and result; --json stdout stays one parseable object', async () => {
    const { code, out, err } = await subops(['suspend', '--service-id', '101', '--reason', '2', '--json', '--yes']);
    expect(code).toBe(0);
    expect(out.trim().split('\n')).toHaveLength(1);
    expect(JSON.parse(out)).toMatchObject({ action: 'suspend', outcome: 'done' });
    expect(auditLines(err)).toEqual([
      expect.objectContaining({ via: 'cli', actor: USER, action: 'suspend', targets: { serviceId: 101, clientId: 1001, reasonId: 2 }, result: 'suspended', ok: true, msg: 'suspend service #101: CRM status now Suspended' }),
    ]);
  });

  it('a write UISP failed is audited as failed; bad input and dry runs, which write nothing, are not audited', async () => {
    sim.setFaults([{ method: 'PATCH', path: /\/cancel-suspend$/, kind: 'status', status: 503 }]);
    const failed = await subops(['unsuspend', '--service-id', '104', '--yes']);
    expect(failed.code).toBe(1);
    expect(auditLines(failed.err)).toEqual([expect.objectContaining({ action: 'unsuspend', result: 'failed', ok: false, targets: { serviceId: 104 } })]);

    const badReason = await subops(['suspend', '--service-id', '101', '--reason', 'vacation']);
    expect(badReason.code).toBe(2);
    const dryRun = await subops(['activate', '--device', '10.20.1.88', '--first-name', 'ada', '--last-name', 'lovelace', '--dry-run']);
    expect(dryRun.code).toBe(0);
    expect(auditLines(badReason.err + dryRun.err)).toEqual([]);
  });
});

describe('the audit channel', () => {
  it.each([
    ['activate', ['activate', '--device', '10.20.1.88', '--first-name', 'ada', '--last-name', 'lovelace'], 'activated'],
    ['suspend', ['suspend', '--service-id', '105', '--reason', 'relocation', '--yes'], 'suspended'],
    ['unsuspend', ['unsuspend', '--service-id', '104', '--yes'], 'unsuspended'],
    ['payment', ['payments', 'add', '--client-id', '1001', '--amount', '1500', '--method', 'cash'], 'recorded'],
  ])('%s posts one message naming the OS user and "CLI", with the bot token, to the same API base as the bot', async (action, argv, result) => {
    fake = await startFakeSlack();
    const { code, err } = await subops(argv, slackEnv());
    expect(code).toBe(0);
    const posts = fake.callsTo('chat.postMessage');
    expect(posts).toHaveLength(1);
    expect(posts[0]).toMatchObject({ token: BOT_TOKEN, args: { channel: AUDIT_CHANNEL } });
    const [message] = fake.messages(AUDIT_CHANNEL);
    expect(message!.text).toBe(`${action} by ${USER} (CLI): ${result}`);
    expect(JSON.stringify(message!.blocks)).toContain(`:white_check_mark: *${action}* by ${USER} (CLI): *${result}*`);
    expect(auditLines(err)).toEqual([expect.objectContaining({ via: 'cli', actor: USER, action, result })]);
  });

  it('on the embedded simulator (--simulator) nothing is posted: the record stays on stderr, marked simulated', async () => {
    fake = await startFakeSlack();
    const { code, err } = await runCli(['suspend', '--service-id', '101', '--reason', '1', '--yes', '--simulator'], slackEnv(), [BOT_TOKEN]);
    expect(code).toBe(0);
    expect(fake.callsTo('chat.postMessage')).toEqual([]);
    expect(auditLines(err)).toEqual([expect.objectContaining({ action: 'suspend', result: 'suspended', simulated: true })]);
    expect(err).toContain(`Simulated: the audit record is not posted to Slack channel ${AUDIT_CHANNEL}`);
  });

  it('nothing to do is audited too, as such', async () => {
    fake = await startFakeSlack();
    const { code } = await subops(['suspend', '--service-id', '104', '--reason', '1'], slackEnv());
    expect(code).toBe(0);
    expect(fake.messages(AUDIT_CHANNEL)[0]!.text).toBe(`suspend by ${USER} (CLI): already-suspended`);
    expect(writes()).toEqual([]);
  });

  it('Slack refusing the post: the write stands, exit 0, the record waits in the store shared with the bot, no stack trace', async () => {
    fake = await startFakeSlack();
    fake.failNext('chat.postMessage', { error: 'not_in_channel' });
    const dir = await mkdtemp(join(tmpdir(), 'subops-cli-store-'));
    const { code, out, err } = await subops(['suspend', '--service-id', '101', '--reason', '1', '--yes'], { ...slackEnv(), STORE_DIR: dir });
    expect(code).toBe(0);
    expect(out).toMatch(/^Suspended service #101/);
    expect(writes()).toEqual(['PATCH /crm/api/v1.0/clients/services/101/suspend']);
    expect(err).toContain(`Note: Slack did not take the audit record (not_in_channel); it is kept in SubOps' store (${dir}) and the SubOps bot using that store posts it to channel ${AUDIT_CHANNEL} when Slack takes it.`);
    expect(err).not.toMatch(/^\s+at /m);
    expect(auditLines(err)).toHaveLength(1);
    // The bot, on this machine, finds it waiting in the embedded store.
    const store = openStore({ engine: 'embedded', dir });
    try {
      expect((await store.outbox.oldest(5)).map((waiting) => waiting.record)).toEqual([expect.objectContaining({ action: 'suspend', result: 'suspended', actor: { via: 'cli', username: USER } })]);
    } finally {
      await store.close();
    }
  });

  it('Slack refusing the post and no store to keep it in: one warning on stderr, the change stands', async () => {
    fake = await startFakeSlack();
    fake.failNext('chat.postMessage', { error: 'not_in_channel' });
    const file = join(await mkdtemp(join(tmpdir(), 'subops-cli-store-')), 'a-file');
    await writeFile(file, '');
    const { code, err } = await subops(['suspend', '--service-id', '101', '--reason', '1', '--yes'], { ...slackEnv(), STORE_DIR: join(file, 'store') });
    expect(code).toBe(0);
    expect(err).toContain(`Warning: the audit record was not posted to Slack channel ${AUDIT_CHANNEL} (not_in_channel). The change itself stands`);
    expect(err).not.toMatch(/^\s+at /m);
  });

  it('Slack unreachable: the same, quickly (a few retries, not Slack’s default half hour)', async () => {
    fake = await startFakeSlack();
    const env = slackEnv();
    await fake.close();
    fake = undefined;
    const { code, err } = await subops(['unsuspend', '--service-id', '104', '--yes'], env);
    expect(code).toBe(0);
    expect(err).toMatch(/Note: Slack did not take the audit record \(.+\); it is kept in SubOps' store/);
    expect(err).not.toMatch(/^\s+at /m);
  });

  it('a malformed SLACK_BOT_TOKEN is a configuration error naming it (exit 2), before any write', async () => {
    const { code, err } = await subops(['suspend', '--service-id', '101', '--reason', '1'], { SLACK_BOT_TOKEN: 'not-a-bot-token', AUDIT_CHANNEL_ID: AUDIT_CHANNEL });
    expect(code).toBe(2);
    expect(err).toContain('SLACK_BOT_TOKEN must start with "xoxb-"');
    expect(err).not.toContain('not-a-bot-token');
    expect(writes()).toEqual([]);
  });
});
