/**
 * `subops digest [--date YYYY-MM-DD] [--json]` (issue #21 §3): the same digest as the bot posts, in the
 * terminal. Payments and pending links from the simulator; the audit parts from the loopback fake
 * Slack's audit channel when SLACK_BOT_TOKEN and AUDIT_CHANNEL_ID are set, and said to be missing when not.
 */
import { webApi } from '@slack/bolt';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeSlack, type FakeSlack } from '../../src/playground/fake-slack.js';
import { suspensionAudit } from '../../src/services/audit-records.js';
import { daysBefore, todayIn } from '../../src/services/dates.js';
import { slackAuditSink } from '../../src/slack/audit.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { runCli } from './support.js';

const BOT_TOKEN = 'xoxb-cli-digest-SECRET-21';
const AUDIT_CHANNEL = 'C0AUDIT';
const MISSING = 'Not included: activations, suspensions, lifted suspensions, late duplicates and failed UISP events, which are read from the audit channel (SLACK_BOT_TOKEN and AUDIT_CHANNEL_ID).';

let sim: RunningSimulator;
let fake: FakeSlack | undefined;
beforeEach(async () => {
  await sim?.close();
  sim = await startSimulator();
  const [cash, check] = sim.data.paymentMethods;
  const template = sim.data.payments[0]!;
  sim.data.payments.length = 0;
  sim.data.payments.push(
    // 2025-03-04 in Guyana (UTC−4): 08:00 local, and 23:30 local, which is 03:30 UTC on the 5th.
    { ...template, id: 1, clientId: 1001, amount: 10_000, currencyCode: 'GYD', methodId: cash!.id, createdDate: '2025-03-04T12:00:00+0000' },
    { ...template, id: 2, clientId: 1006, amount: 25_000.5, currencyCode: 'GYD', methodId: check!.id, createdDate: '2025-03-05T03:30:00+0000' },
    // 23:30 local on the 3rd: the day before.
    { ...template, id: 3, clientId: 1006, amount: 7, currencyCode: 'GYD', methodId: check!.id, createdDate: '2025-03-04T03:30:00+0000' },
  );
});
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});
afterAll(async () => sim?.close());

const uispEnv = () => ({ UISP_URL: sim.url, UISP_TOKEN: sim.token });
const slackEnv = () => ({ SLACK_BOT_TOKEN: BOT_TOKEN, AUDIT_CHANNEL_ID: AUDIT_CHANNEL, SLACK_API_URL: fake!.apiUrl });
const subops = (argv: string[], env: Record<string, string> = {}) => runCli(['digest', ...argv], { ...uispEnv(), ...env }, [sim.token, BOT_TOKEN]);

describe('subops digest without Slack settings', () => {
  it('--json: one object with the Guyana day’s payments per currency and per method; the audit parts are null and stderr says why', async () => {
    const { code, out, err } = await subops(['--date', '2025-03-04', '--json']);
    expect(code).toBe(0);
    expect(JSON.parse(out)).toEqual({
      type: 'digest',
      date: '2025-03-04',
      timeZone: 'America/Guyana',
      quiet: false,
      payments: {
        count: 2,
        byCurrency: [{ currency: 'GYD', count: 2, total: 35_000.5 }],
        byMethod: [
          { method: 'Cash', currency: 'GYD', count: 1, total: 10_000 },
          { method: 'Check', currency: 'GYD', count: 1, total: 25_000.5 },
        ],
      },
      awaitingLink: [],
      // The stock NMS lists outages (none that day); the interface document's has no GET /outages.
      outages: sim.world === 'stock' ? { count: 0, downSeconds: 0, customerMinutes: 0 } : null,
      audit: null,
    });
    expect(err).toContain(MISSING);
  });

  it('prints the digest as lines', async () => {
    const { code, out } = await subops(['--date', '2025-03-04']);
    expect(code).toBe(0);
    expect(out).toBe(
      [
        'Daily digest for 2025-03-04 (America/Guyana)',
        '',
        'Payments (2)',
        '  Total: 2 payments, GYD 35,000.50',
        '  Cash: 1 payment, GYD 10,000.00',
        '  Check: 1 payment, GYD 25,000.50',
        '',
      ].join('\n'),
    );
  });

  it('a day with nothing is one line; the default date is yesterday in ISP_TIMEZONE', async () => {
    const quiet = await subops(['--date', '2025-03-06']);
    expect(quiet.out).toBe('Daily digest for 2025-03-06: a quiet day. No activations, suspensions, lifted suspensions or payments, no site awaiting its CRM link, nothing for a person to look at.\n');
    const yesterday = await subops(['--json']);
    expect(JSON.parse(yesterday.out)).toMatchObject({ date: daysBefore(todayIn('America/Guyana'), 1) });
  });

  it.each(['2025-3-4', '2025-02-30', 'yesterday'])('--date %s is bad input naming the flag: exit 2, UISP not asked', async (date) => {
    const { code, out, err } = await subops(['--date', date, '--json']);
    expect(code).toBe(2);
    expect(err).toContain('Error: --date must be YYYY-MM-DD');
    expect(JSON.parse(out)).toMatchObject({ type: 'error', field: '--date' });
    expect(sim.requests).toEqual([]);
  });

  it('UISP failing is exit 1 with one line saying what failed, no stack', async () => {
    sim.setFaults([{ path: '/crm/api/v1.0/payments', kind: 'status', status: 503 }]);
    const { code, err } = await subops(['--date', '2025-03-04'], { UISP_RETRIES: '0' });
    expect(code).toBe(1);
    expect(err).toMatch(/^Failed: .*503/m);
    expect(err).not.toMatch(/\n\s+at /);
  });
});

describe('subops digest with the audit channel', () => {
  it('adds what the audit trail tells of the day: suspensions and lifts by whoever did them', async () => {
    fake = await startFakeSlack();
    const client = new webApi.WebClient(BOT_TOKEN, { slackApiUrl: fake.apiUrl });
    const service = (id: number, clientId: number, status: number) => ({ id, clientId, status, name: 'Standard Monthly' }) as never;
    await slackAuditSink(client, AUDIT_CHANNEL).write({
      ...suspensionAudit({ kind: 'done', action: 'suspend', service: service(101, 1001, 1), after: service(101, 1001, 3) } as never, () => 'Suspended'),
      actor: { via: 'cli', username: 'alice' },
    });
    // Audit messages carry Slack's real ts: the day is today in Guyana.
    const today = todayIn('America/Guyana');
    const text = await subops(['--date', today], slackEnv());
    expect(text.code).toBe(0);
    expect(text.out).toContain(`Daily digest for ${today} (America/Guyana)\n\nSuspensions (1)\n  Service #101 of client #1001 — by alice (CLI)\n`);
    expect(text.err).not.toContain('Not included');

    const json = await subops(['--date', today, '--json'], slackEnv());
    expect(JSON.parse(json.out).audit).toEqual({
      activations: { done: [], failed: [] },
      suspensions: [{ serviceId: 101, clientId: 1001, actor: 'alice', actorVia: 'cli', summary: 'suspend service #101: CRM status now Suspended', permalink: null }],
      lifts: [],
      lateDuplicates: [],
      failedWebhooks: [],
    });
  });

  it('an audit channel that cannot be read is exit 1, naming it and what Slack said', async () => {
    fake = await startFakeSlack();
    fake.failNext('conversations.history', { error: 'not_in_channel' });
    const { code, out, err } = await subops(['--date', '2025-03-04', '--json'], slackEnv());
    expect(code).toBe(1);
    expect(err).toContain('Could not read the audit channel C0AUDIT (not_in_channel): check SLACK_BOT_TOKEN and that the bot is a member of AUDIT_CHANNEL_ID.');
    expect(JSON.parse(out)).toMatchObject({ type: 'error', field: 'AUDIT_CHANNEL_ID' });
  });
});
