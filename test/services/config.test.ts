import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadAppConfig, loadAuditChannelConfig, loadCoreConfig, loadUispConfig, sharedStoreSettings, type Env } from '../../src/config.js';
import { SECRET_SETTINGS } from '../../src/config-variables.js';

/** The app's settings as serve reads them, opened to the whole workspace by name unless a test lists who may use SubOps. */
const loadApp = (env: Env) => loadAppConfig(env.ALLOWED_USER_IDS || env.ALLOWED_USERGROUP_ID ? env : { ALLOWED_EVERYONE: 'true', ...env });

const problemsOf = (fn: () => unknown): string[] => {
  try {
    fn();
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
};

describe('core configuration', () => {
  it('defaults to the spec plan and price, a status numbering detected from the CRM, and no UISP URL (embedded simulator)', () => {
    const config = loadCoreConfig({});
    expect(config.uisp.url).toBeUndefined();
    expect(config.activation).toMatchObject({ servicePlanPeriodId: 37, servicePrice: 10_000, numbering: 'auto' });
  });

  it('SERVICE_STATUS_NUMBERING is stock, interface or auto; the four status numbers of earlier versions are named, not ignored', () => {
    expect(loadCoreConfig({ SERVICE_STATUS_NUMBERING: 'stock' }).activation.numbering).toBe('stock');
    expect(loadCoreConfig({ SERVICE_STATUS_NUMBERING: 'interface' }).activation.numbering).toBe('interface');
    expect(problemsOf(() => loadCoreConfig({ SERVICE_STATUS_NUMBERING: 'ucrm' }))).toEqual(['SERVICE_STATUS_NUMBERING must be auto, stock, interface']);
    expect(problemsOf(() => loadCoreConfig({ SERVICE_STATUS_QUOTED: '7', SERVICE_STATUS_OBSOLETE: '5' }))).toEqual([
      'SERVICE_STATUS_QUOTED is no longer read: set SERVICE_STATUS_NUMBERING=stock (7 Quoted, 5 Obsolete) or interface (6 Quoted, 7 Obsolete), or leave it unset to detect it',
      'SERVICE_STATUS_OBSOLETE is no longer read: set SERVICE_STATUS_NUMBERING=stock (7 Quoted, 5 Obsolete) or interface (6 Quoted, 7 Obsolete), or leave it unset to detect it',
    ]);
  });

  it('uses UISP_TOKEN for both systems unless a per-system token is given', () => {
    const config = loadCoreConfig({ UISP_URL: 'https://uisp.example.net/', UISP_TOKEN: 'shared', UISP_NMS_TOKEN: 'nms-only' });
    expect(config.uisp).toMatchObject({ url: 'https://uisp.example.net', crmToken: 'shared', nmsToken: 'nms-only' });
  });

  it('reports every problem at once, by variable name, without echoing secrets', () => {
    const problems = problemsOf(() =>
      loadCoreConfig({ UISP_URL: 'ftp://x', ISP_TIMEZONE: 'Mars/Olympus', SERVICE_PRICE: '-1', SERVICE_PLAN_PERIOD_ID: 'abc', SERVICE_STATUS_NUMBERING: 'ucrm', LOG_LEVEL: 'loud' }),
    );
    expect(problems.map((p) => p.split(' ')[0])).toEqual(
      expect.arrayContaining(['UISP_URL', 'ISP_TIMEZONE', 'SERVICE_PRICE', 'SERVICE_PLAN_PERIOD_ID', 'SERVICE_STATUS_NUMBERING', 'LOG_LEVEL']),
    );
  });

  it('ISP_TIMEZONE takes canonical IANA names and the aliases Intl accepts, and refuses the rest', () => {
    for (const zone of ['America/Guyana', 'Asia/Kolkata', 'US/Eastern', 'UTC', 'Etc/GMT+4']) expect(loadCoreConfig({ ISP_TIMEZONE: zone }).activation.timeZone).toBe(zone);
    expect(problemsOf(() => loadCoreConfig({ ISP_TIMEZONE: 'America/Atlantis' }))).toEqual(['ISP_TIMEZONE must be an IANA time zone name such as America/Guyana (got "America/Atlantis")']);
    expect(loadCoreConfig({}).activation.timeZone).toBe(Intl.DateTimeFormat().resolvedOptions().timeZone);
  });

  it('UISP_POOL_CONNECTIONS defaults to 64 and UISP_PAGES_IN_FLIGHT to 4; each is a bounded whole number', () => {
    expect(loadCoreConfig({}).uisp).toMatchObject({ poolConnections: 64, pagesInFlight: 4 });
    expect(loadCoreConfig({ UISP_POOL_CONNECTIONS: '200', UISP_PAGES_IN_FLIGHT: '1' }).uisp).toMatchObject({ poolConnections: 200, pagesInFlight: 1 });
    expect(problemsOf(() => loadCoreConfig({ UISP_POOL_CONNECTIONS: '0', UISP_PAGES_IN_FLIGHT: '17' }))).toEqual([
      'UISP_POOL_CONNECTIONS must be a whole number from 1 to 1024 (got "0")',
      'UISP_PAGES_IN_FLIGHT must be a whole number from 1 to 16 (got "17")',
    ]);
  });

  it('a bound without a maximum reads "of at least N", never the largest safe integer', () => {
    expect(problemsOf(() => loadCoreConfig({ UISP_TIMEOUT_MS: '0', SERVICE_PLAN_PERIOD_ID: '-3', UISP_DEADLINE_MS: '99999999999999999999' }))).toEqual([
      'UISP_TIMEOUT_MS must be a whole number of at least 1 (got "0")',
      'UISP_DEADLINE_MS must be a whole number of at least 1 (got "99999999999999999999")',
      'SERVICE_PLAN_PERIOD_ID must be a whole number of at least 1 (got "-3")',
    ]);
    expect(problemsOf(() => loadApp({ UISP_URL: 'https://uisp.example.net', UISP_TOKEN: 't', SLACK_BOT_TOKEN: 'xoxb-1', SLACK_APP_TOKEN: 'xapp-1', SHUTDOWN_GRACE_MS: '2.5' }))).toEqual([
      'SHUTDOWN_GRACE_MS must be a whole number from 0 to 600000 (got "2.5")',
    ]);
  });

  it('PAYMENT_MAX_AMOUNT defaults to 1,000,000 and must be a positive number', () => {
    expect(loadCoreConfig({}).payments).toEqual({ maxAmount: 1_000_000 });
    expect(loadCoreConfig({ PAYMENT_MAX_AMOUNT: '250000.50' }).payments).toEqual({ maxAmount: 250_000.5 });
    for (const value of ['0', '-1', 'lots']) expect(problemsOf(() => loadCoreConfig({ PAYMENT_MAX_AMOUNT: value }))).toEqual([`PAYMENT_MAX_AMOUNT must be a number greater than 0 (got "${value}")`]);
  });

  it('SHEET_CONCURRENCY: rows of an install sheet at once, 2 by default, from 1 to 8', () => {
    expect(loadCoreConfig({}).sheets).toEqual({ concurrency: 2 });
    expect(loadCoreConfig({ SHEET_CONCURRENCY: '1' }).sheets).toEqual({ concurrency: 1 });
    for (const value of ['0', '9']) expect(problemsOf(() => loadCoreConfig({ SHEET_CONCURRENCY: value }))).toEqual([expect.stringMatching(/^SHEET_CONCURRENCY /)]);
  });

  it('requires a token when a real UISP URL is set', () => {
    expect(problemsOf(() => loadCoreConfig({ UISP_URL: 'https://uisp.example.net' }))).toEqual([expect.stringContaining('UISP_TOKEN is required')]);
  });
});

describe('every problem names the variable to fix', () => {
  it('each setting given a bad value yields a problem that starts with its name, and shows no secret', () => {
    const bad = 'bad value?!';
    const env = Object.fromEntries(
      ['UISP_URL', 'UISP_CONNECT_TIMEOUT_MS', 'UISP_TIMEOUT_MS', 'UISP_DEADLINE_MS', 'UISP_RETRIES', 'UISP_RETRY_BACKOFF_MS', 'UISP_WRITE_RETRIES', 'UISP_WRITE_BACKOFF_MS', 'UISP_RETRY_WINDOW_MS', 'UISP_POOL_CONNECTIONS', 'UISP_PAGES_IN_FLIGHT', 'ISP_TIMEZONE', 'SERVICE_PLAN_PERIOD_ID', 'SERVICE_PRICE', 'SHEET_CONCURRENCY', 'PAYMENT_MAX_AMOUNT', 'LOG_LEVEL', 'SLACK_API_URL', 'PORT', 'SHUTDOWN_GRACE_MS', 'WEBHOOK_PORT', 'WEBHOOK_RATE_PER_MINUTE', 'WEBHOOK_PAYMENT_WINDOW_HOURS', 'LINK_WATCH_INTERVAL_S', 'LINK_REMINDER_HOURS', 'OPS_PORT', 'OPS_HOST', 'HEALTHZ_ON_SLACK_PORT'].map((name) => [name, bad]),
    );
    const secrets = { SLACK_BOT_TOKEN: 'xoxp-secret-1', SLACK_APP_TOKEN: 'secret-2', SERVICE_STATUS_ACTIVE: '6' };
    const problems = problemsOf(() => loadApp({ ...env, ...secrets }));
    expect(problems.map((p) => p.split(/[ ,]/)[0]).sort()).toEqual([...Object.keys(env), 'SERVICE_STATUS_ACTIVE', 'SLACK_APP_TOKEN', 'SLACK_BOT_TOKEN'].sort());
    expect(problems.join('\n')).not.toMatch(/secret|9007199254740991/);
  });
});

describe('Slack app configuration', () => {
  it('needs a bot token, and a signing secret unless Socket Mode is used', () => {
    const problems = problemsOf(() => loadApp({ UISP_URL: 'https://uisp.example.net', UISP_TOKEN: 't' }));
    expect(problems).toHaveLength(2);
    expect(problems).toEqual(expect.arrayContaining([expect.stringMatching(/^SLACK_SIGNING_SECRET is required/), expect.stringMatching(/^SLACK_BOT_TOKEN is required/)]));
    expect(problemsOf(() => loadApp({ SUBOPS_SIMULATOR: '1', SLACK_BOT_TOKEN: 'xoxb-1', SLACK_APP_TOKEN: 'xapp-1' }))).toEqual([]);
  });

  it('requires a real UISP unless the bundled simulator is asked for explicitly', () => {
    expect(problemsOf(() => loadApp({ SLACK_BOT_TOKEN: 'xoxb-1', SLACK_APP_TOKEN: 'xapp-1' }))).toEqual([expect.stringMatching(/^UISP_URL is required for the Slack app .*subops serve --simulator/)]);
  });

  it('SUBOPS_SIMULATOR=1 (serve --simulator) leaves UISP_URL and its token aside: the embedded simulator, a store in memory', () => {
    const slack = { SLACK_BOT_TOKEN: 'xoxb-1', SLACK_APP_TOKEN: 'xapp-1' };
    const config = loadApp({ ...slack, SUBOPS_SIMULATOR: '1', UISP_URL: 'https://uisp.example.net' });
    expect(config.core.uisp.url).toBeUndefined();
    expect(config.store).toEqual({ engine: 'memory' });
    expect(problemsOf(() => loadApp({ ...slack, SUBOPS_SIMULATOR: 'on' }))).toEqual(['SUBOPS_SIMULATOR must be 1 (the embedded UISP simulator) or 0 (got "on")']);
    expect(loadApp({ ...slack, SUBOPS_SIMULATOR: '0', UISP_URL: 'https://uisp.example.net', UISP_TOKEN: 't' }).core.uisp.url).toBe('https://uisp.example.net');
  });

  it('the CLI needs UISP_URL to reach UISP unless the simulator is asked for (loadUispConfig)', () => {
    expect(problemsOf(() => loadUispConfig({}))).toEqual([expect.stringMatching(/^UISP_URL is required: .*add --simulator .*SUBOPS_SIMULATOR=1/)]);
    expect(loadUispConfig({ SUBOPS_SIMULATOR: 'true' }).uisp.url).toBeUndefined();
    expect(loadUispConfig({ UISP_URL: 'https://uisp.example.net', UISP_TOKEN: 't' }).uisp.url).toBe('https://uisp.example.net');
  });

  it('rejects tokens of the wrong kind without printing them', () => {
    const problems = problemsOf(() => loadApp({ SUBOPS_SIMULATOR: '1', SLACK_BOT_TOKEN: 'xoxp-secret-user-token', SLACK_APP_TOKEN: 'secret-app', PORT: '99999' }));
    expect(problems.join('\n')).not.toContain('secret');
    expect(problems.map((p) => p.split(' ')[0]).sort()).toEqual(['PORT', 'SLACK_APP_TOKEN', 'SLACK_BOT_TOKEN']);
  });

  it('refuses SLACK_API_URL with a user name or password (Slack takes the bot token; fetch refuses such URLs), without showing it', () => {
    const apiUrl = 'https://proxy-user:proxy-pass@slack-proxy.example/api';
    const expected = ['SLACK_API_URL must not hold a user name or password (Slack is asked with SLACK_BOT_TOKEN), e.g. https://slack.com/api'];
    expect(problemsOf(() => loadApp({ SUBOPS_SIMULATOR: '1', SLACK_BOT_TOKEN: 'xoxb-1', SLACK_APP_TOKEN: 'xapp-1', SLACK_API_URL: apiUrl }))).toEqual(expected);
    expect(problemsOf(() => loadAuditChannelConfig({ SLACK_BOT_TOKEN: 'xoxb-1', AUDIT_CHANNEL_ID: 'C0AUDIT', SLACK_API_URL: apiUrl }))).toEqual(expected);
  });

  it('reads the access lists', () => {
    const { slack } = loadApp({ SUBOPS_SIMULATOR: '1', SLACK_BOT_TOKEN: 'xoxb-1', SLACK_SIGNING_SECRET: 's', ALLOWED_USER_IDS: ' U1, U2 ,', ALLOWED_USERGROUP_ID: 'S9' });
    expect(slack).toMatchObject({ access: { everyone: { userIds: ['U1', 'U2'], groupIds: ['S9'] }, actions: {} }, port: 3000 });
  });

  it('reads the approval settings: none by default; each problem named by its variable', () => {
    const base = { SLACK_BOT_TOKEN: 'xoxb-1', SLACK_SIGNING_SECRET: 's' };
    expect(loadApp({ SUBOPS_SIMULATOR: '1', ...base }).slack.approvals).toEqual({ settings: { required: new Set(), paymentAbove: undefined, expiresAfterMs: 4 * 3_600_000 }, channelId: undefined });
    const on = loadApp({ SUBOPS_SIMULATOR: '1', ...base, AUDIT_CHANNEL_ID: 'C0AUDIT', APPROVAL_REQUIRED_FOR: 'delete-service, large-payment', APPROVAL_PAYMENT_ABOVE: '250000', APPROVAL_EXPIRY_HOURS: '1.5' });
    expect(on.slack.approvals).toEqual({ settings: { required: new Set(['delete-service', 'large-payment']), paymentAbove: 250_000, expiresAfterMs: 1.5 * 3_600_000 }, channelId: 'C0AUDIT' });
    expect(problemsOf(() => loadApp({ SUBOPS_SIMULATOR: '1', ...base, APPROVAL_REQUIRED_FOR: 'deletes,large-payment' }))).toEqual([
      'APPROVAL_REQUIRED_FOR lists delete-service, move-device, large-payment, suspension (not: deletes)',
      'APPROVAL_PAYMENT_ABOVE is required when APPROVAL_REQUIRED_FOR lists large-payment (the amount above which a payment needs approval)',
      'APPROVALS_CHANNEL_ID (or AUDIT_CHANNEL_ID) is required when APPROVAL_REQUIRED_FOR is set: approval requests are posted there',
    ]);
  });

  it('nobody is let in by default: ALLOWED_USERGROUP_ID or ALLOWED_USER_IDS, or the whole workspace by name (ALLOWED_EVERYONE=true)', () => {
    const base = { SUBOPS_SIMULATOR: '1', SLACK_BOT_TOKEN: 'xoxb-1', SLACK_SIGNING_SECRET: 's' };
    const required = 'ALLOWED_USERGROUP_ID or ALLOWED_USER_IDS is required: who may use SubOps (a user group S…, or user ids U…); ALLOWED_EVERYONE=true opens it to every member of the workspace';
    expect(problemsOf(() => loadAppConfig(base))).toEqual([required]);
    // Per-action grants alone still let the whole workspace look customers up.
    expect(problemsOf(() => loadAppConfig({ ...base, ACCESS_ACTIVATE: 'S0OPS', ALLOWED_EVERYONE: 'no' }))).toEqual([required]);
    expect(loadAppConfig({ ...base, ALLOWED_EVERYONE: 'true' }).slack.access).toEqual({ everyone: undefined, actions: {} });
    expect(loadAppConfig({ ...base, ALLOWED_USERGROUP_ID: 'S0OPS' }).slack.access.everyone).toEqual({ userIds: [], groupIds: ['S0OPS'] });
    expect(problemsOf(() => loadAppConfig({ ...base, ALLOWED_EVERYONE: 'true', ALLOWED_USER_IDS: 'U1' }))).toEqual(['ALLOWED_EVERYONE=true contradicts ALLOWED_USER_IDS / ALLOWED_USERGROUP_ID: set the lists, or ALLOWED_EVERYONE=true, not both']);
    expect(problemsOf(() => loadAppConfig({ ...base, ALLOWED_EVERYONE: 'everyone' }))).toEqual(['ALLOWED_EVERYONE must be true or false (got "everyone")', required]);
  });

  it('reads a grant per action, and names the variable of an id that is not a Slack user or group', () => {
    const { slack } = loadApp({ SUBOPS_SIMULATOR: '1', SLACK_BOT_TOKEN: 'xoxb-1', SLACK_SIGNING_SECRET: 's', ACCESS_SUSPEND: 'S0BILLING, U0LEAD', ACCESS_RECORD_PAYMENT: 'S0BILLING' });
    expect(slack.access).toEqual({
      everyone: undefined,
      actions: { suspend: { userIds: ['U0LEAD'], groupIds: ['S0BILLING'] }, 'record-payment': { userIds: [], groupIds: ['S0BILLING'] } },
    });
    const problems = problemsOf(() => loadApp({ SUBOPS_SIMULATOR: '1', SLACK_BOT_TOKEN: 'xoxb-1', SLACK_SIGNING_SECRET: 's', ACCESS_APPROVE: '@leads' }));
    expect(problems).toEqual(['ACCESS_APPROVE must list Slack user ids (U…, W…) and user group ids (S…), comma-separated (not: @leads)']);
  });
});

describe('webhooks and the link watch', () => {
  const base = { UISP_URL: 'https://uisp.example.net', UISP_TOKEN: 't', SLACK_BOT_TOKEN: 'xoxb-1', SLACK_APP_TOKEN: 'xapp-1' };

  it('defaults: no webhook listener or token (the endpoint is off), 600 deliveries a minute per address, payments within 24 h, links checked every 60 s, reminded after 24 h', () => {
    expect(loadApp(base).events).toEqual({
      webhookPort: undefined,
      webhookToken: undefined,
      webhookRatePerMinute: 600,
      paymentWindowMs: 24 * 3_600_000,
      linkWatchIntervalMs: 60_000,
      linkReminderMs: 24 * 3_600_000,
      failureNotices: false,
      outagesChannelId: undefined,
      outagePollIntervalMs: 60_000,
      outageMinMs: 2 * 60_000,
    });
    // Failed webhook events are posted to the audit channel only for the daily digest.
    expect(loadApp({ ...base, DIGEST_CHANNEL_ID: 'C0DIGEST' }).events.failureNotices).toBe(true);
  });

  it('reads WEBHOOK_PORT, WEBHOOK_TOKEN, WEBHOOK_RATE_PER_MINUTE, WEBHOOK_PAYMENT_WINDOW_HOURS, LINK_WATCH_INTERVAL_S and LINK_REMINDER_HOURS', () => {
    const { events } = loadApp({ ...base, WEBHOOK_PORT: '3001', WEBHOOK_TOKEN: 'hook-token-of-24-characters', WEBHOOK_RATE_PER_MINUTE: '60', WEBHOOK_PAYMENT_WINDOW_HOURS: '1.5', LINK_WATCH_INTERVAL_S: '0.5', LINK_REMINDER_HOURS: '2' });
    expect(events).toEqual({ webhookPort: 3001, webhookToken: 'hook-token-of-24-characters', webhookRatePerMinute: 60, paymentWindowMs: 1.5 * 3_600_000, linkWatchIntervalMs: 500, linkReminderMs: 2 * 3_600_000, failureNotices: false, outagesChannelId: undefined, outagePollIntervalMs: 60_000, outageMinMs: 120_000 });
  });

  it('reads OUTAGES_CHANNEL_ID, OUTAGE_POLL_INTERVAL_S and OUTAGE_MIN_MINUTES', () => {
    const { events } = loadApp({ ...base, OUTAGES_CHANNEL_ID: 'C0OUTAGES', OUTAGE_POLL_INTERVAL_S: '30', OUTAGE_MIN_MINUTES: '5' });
    expect(events).toMatchObject({ outagesChannelId: 'C0OUTAGES', outagePollIntervalMs: 30_000, outageMinMs: 300_000 });
  });

  it('names each bad value', () => {
    const problems = problemsOf(() =>
      loadApp({ ...base, WEBHOOK_PORT: '70000', WEBHOOK_RATE_PER_MINUTE: '0', WEBHOOK_PAYMENT_WINDOW_HOURS: '-1', LINK_WATCH_INTERVAL_S: '0', LINK_REMINDER_HOURS: 'soon' }),
    );
    expect(problems.map((p) => p.split(' ')[0])).toEqual(['WEBHOOK_PORT', 'WEBHOOK_RATE_PER_MINUTE', 'WEBHOOK_PAYMENT_WINDOW_HOURS', 'LINK_WATCH_INTERVAL_S', 'LINK_REMINDER_HOURS']);
  });
});

describe('the ops listener (/metrics, /healthz)', () => {
  const base = { UISP_URL: 'https://uisp.example.net', UISP_TOKEN: 't', SLACK_BOT_TOKEN: 'xoxb-1', SLACK_SIGNING_SECRET: 's' };

  it('defaults to 127.0.0.1:9464, and /healthz not on PORT', () => {
    expect(loadApp(base).ops).toEqual({ port: 9464, host: '127.0.0.1', healthzOnSlackPort: false });
  });

  it('reads OPS_PORT (0: a free port), OPS_HOST and HEALTHZ_ON_SLACK_PORT', () => {
    expect(loadApp({ ...base, OPS_PORT: '9100', OPS_HOST: '0.0.0.0', HEALTHZ_ON_SLACK_PORT: 'true' }).ops).toEqual({ port: 9100, host: '0.0.0.0', healthzOnSlackPort: true });
    expect(loadApp({ ...base, OPS_PORT: '0', OPS_HOST: '::1', HEALTHZ_ON_SLACK_PORT: 'no' }).ops).toEqual({ port: 0, host: '::1', healthzOnSlackPort: false });
    expect(loadApp({ ...base, OPS_HOST: 'metrics.internal' }).ops.host).toBe('metrics.internal');
  });

  it('names each bad value, and a port the Slack app or the webhook listener already uses', () => {
    expect(problemsOf(() => loadApp({ ...base, OPS_PORT: '65536', OPS_HOST: 'not a host', HEALTHZ_ON_SLACK_PORT: 'maybe' })).map((p) => p.split(' ')[0])).toEqual(['OPS_PORT', 'OPS_HOST', 'HEALTHZ_ON_SLACK_PORT']);
    expect(problemsOf(() => loadApp({ ...base, PORT: '3000', OPS_PORT: '3000' }))).toEqual(['OPS_PORT must differ from PORT (3000): /metrics and /healthz have a listener of their own']);
    expect(problemsOf(() => loadApp({ ...base, SLACK_APP_TOKEN: 'xapp-1', WEBHOOK_PORT: '3001', OPS_PORT: '3001' }))).toEqual(['OPS_PORT must differ from WEBHOOK_PORT (3001): /metrics and /healthz have a listener of their own']);
    // In Socket Mode nothing listens on PORT.
    expect(problemsOf(() => loadApp({ ...base, SLACK_APP_TOKEN: 'xapp-1', PORT: '3000', OPS_PORT: '3000' }))).toEqual([]);
  });
});

describe('secrets from files (NAME_FILE, for Docker and Kubernetes secrets)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'subops-secrets-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const secretFile = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, text, { mode: 0o600 });
    return path;
  };
  const socket = { UISP_URL: 'https://uisp.example.net', SLACK_APP_TOKEN: 'xapp-1', ALLOWED_EVERYONE: 'true' };

  it('every secret setting may be read from a file: its content, the trailing newline left out', () => {
    expect([...SECRET_SETTINGS].sort()).toEqual(['DATABASE_URL', 'SLACK_APP_TOKEN', 'SLACK_BOT_TOKEN', 'SLACK_SIGNING_SECRET', 'UISP_CRM_TOKEN', 'UISP_NMS_TOKEN', 'UISP_TOKEN', 'WEBHOOK_TOKEN']);
    const config = loadAppConfig({
      UISP_URL: 'https://uisp.example.net',
      UISP_CRM_TOKEN_FILE: secretFile('crm', 'crm-from-file\n'),
      UISP_NMS_TOKEN_FILE: secretFile('nms', 'nms-from-file\r\n'),
      SLACK_BOT_TOKEN_FILE: secretFile('bot', 'xoxb-from-file\n'),
      SLACK_SIGNING_SECRET_FILE: secretFile('signing', 'signing-from-file'),
      WEBHOOK_TOKEN_FILE: secretFile('webhook', 'hook-from-file-0123456789abcdef\n'),
      DATABASE_URL_FILE: secretFile('database', 'postgres://subops:pw@db.example/subops\n'),
      ALLOWED_EVERYONE: 'true',
    });
    expect(config.core.uisp).toMatchObject({ crmToken: 'crm-from-file', nmsToken: 'nms-from-file' });
    expect(config.slack).toMatchObject({ botToken: 'xoxb-from-file', signingSecret: 'signing-from-file' });
    expect(config.events.webhookToken).toBe('hook-from-file-0123456789abcdef');
    expect(config.store).toEqual({ engine: 'postgres', url: 'postgres://subops:pw@db.example/subops' });
    expect(loadAppConfig({ ...socket, UISP_TOKEN_FILE: secretFile('uisp', 'shared\n'), SLACK_BOT_TOKEN: 'xoxb-1', SLACK_APP_TOKEN_FILE: secretFile('app', 'xapp-2\n'), SLACK_APP_TOKEN: '' }).slack.appToken).toBe('xapp-2');
    expect(loadCoreConfig({ UISP_TOKEN_FILE: secretFile('uisp', 'shared\n') }).uisp).toMatchObject({ crmToken: 'shared', nmsToken: 'shared' });
    // The CLI's audit channel and the store it shares with the bot read them by the same rule.
    expect(loadAuditChannelConfig({ SLACK_BOT_TOKEN_FILE: secretFile('bot', 'xoxb-from-file\n'), AUDIT_CHANNEL_ID: 'C1' })?.botToken).toBe('xoxb-from-file');
    expect(sharedStoreSettings({ DATABASE_URL_FILE: secretFile('database', 'postgres://subops:pw@db.example/subops\n') })).toEqual({ engine: 'postgres', url: 'postgres://subops:pw@db.example/subops' });
    expect(sharedStoreSettings({ DATABASE_URL_FILE: join(dir, 'missing') })).toBeUndefined();
  });

  it('a secret set both ways is a problem naming both; the value is never shown', () => {
    const problems = problemsOf(() => loadAppConfig({ ...socket, UISP_TOKEN: 'uisp-SECRET', SLACK_BOT_TOKEN: 'xoxb-SECRET', SLACK_BOT_TOKEN_FILE: secretFile('bot', 'xoxb-file-SECRET\n') }));
    expect(problems).toEqual(['SLACK_BOT_TOKEN and SLACK_BOT_TOKEN_FILE are both set: set only one (SLACK_BOT_TOKEN_FILE names a file holding the value)', expect.stringMatching(/^SLACK_BOT_TOKEN is required/)]);
    expect(problems.join('\n')).not.toContain('SECRET');
  });

  it('a file that cannot be read, or is empty, is a problem naming the variable and the path, never the content', () => {
    const missing = join(dir, 'no-such-secret');
    expect(problemsOf(() => loadCoreConfig({ UISP_URL: 'https://uisp.example.net', UISP_TOKEN_FILE: missing }))).toEqual([
      `UISP_TOKEN_FILE names ${missing}, which could not be read (ENOENT): set it to a file this user may read`,
      'UISP_TOKEN is required when UISP_URL is set (or both UISP_CRM_TOKEN and UISP_NMS_TOKEN)',
    ]);
    const empty = secretFile('empty', '\n');
    expect(problemsOf(() => loadCoreConfig({ UISP_TOKEN_FILE: empty }))).toEqual([`UISP_TOKEN_FILE names ${empty}, which is empty: it must hold the value`]);
    const folderPath = dir;
    const problems = problemsOf(() => loadAppConfig({ ...socket, UISP_TOKEN: 't', SLACK_BOT_TOKEN: 'xoxb-1', DATABASE_URL_FILE: folderPath }));
    expect(problems).toEqual([`DATABASE_URL_FILE names ${folderPath}, which could not be read (EISDIR): set it to a file this user may read`]);
  });
});
