/**
 * Configuration from the environment. Every problem is collected and reported at once, by variable
 * name, before anything connects anywhere. Values of secret variables never appear in messages.
 */
import { isIP } from 'node:net';
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { z } from 'zod';
import { ACCESS_ACTIONS, grantOf, isSlackUserGroupId, isSlackUserId, type AccessAction, type AccessSettings } from './services/access.js';
import { APPROVAL_KINDS, DEFAULT_APPROVAL_EXPIRY_MS, type ApprovalKind, type ApprovalSettings } from './services/approvals.js';
import type { NumberingSetting } from './services/activation/numbering.js';
import { DEFAULT_PAYMENT_MAX_AMOUNT } from './services/input/grammar.js';
import { DEFAULT_POOL_CONNECTIONS } from './services/uisp/http.js';
import { parseDatabaseUrl, UNREADABLE_DATABASE_URL as UNREADABLE } from './store/database-url.js';
import type { StoreSettings } from './store/index.js';
import { RETIRED_SETTINGS, type ConfigVariable } from './config-variables.js';
import { secretGiven, withSecretFiles } from './secret-files.js';

export type Env = Record<string, string | undefined>;

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

export interface UispConfig {
  /**
   * Base URL holding both /crm/api/v1.0 and /nms/api/v2.1; undefined means "use the embedded simulator",
   * once `loadUispConfig` or `loadAppConfig` accepted it: only when it was asked for (`simulatorRequested`).
   */
  url: string | undefined;
  crmToken: string | undefined;
  nmsToken: string | undefined;
  connectTimeoutMs: number;
  requestTimeoutMs: number;
  retries: number;
  retryBackoffMs: number;
  /** Total time one request may take: connect, headers and the whole body. */
  deadlineMs: number;
  /** Extra attempts for a write step whose outcome is unknown or transient, each after reading UISP again. */
  writeRetries: number;
  /** First delay before a write step is tried again; doubles each attempt. */
  writeBackoffMs: number;
  /** No write attempt starts later than this after the step's first one. */
  retryWindowMs: number;
  /** Connections per UISP origin (UISP_POOL_CONNECTIONS). */
  poolConnections: number;
  /** GET /payments pages requested ahead of the reader (UISP_PAGES_IN_FLIGHT); 1 = strictly sequential. */
  pagesInFlight: number;
}

export interface ActivationConfig {
  /** IANA zone whose calendar date is "today" for activeFrom and invoicingStart. */
  timeZone: string;
  servicePlanPeriodId: number;
  servicePrice: number;
  /** Parent of newly created customer sites; undefined means the primary (root) site. */
  parentSiteId: string | undefined;
  /** SERVICE_STATUS_NUMBERING: stock UISP's, the interface document's, or `auto` (detected from the CRM). */
  numbering: NumberingSetting;
}

export interface PaymentConfig {
  /** The largest amount one payment may record; larger ones are refused as typing mistakes. */
  maxAmount: number;
}

export interface CoreConfig {
  uisp: UispConfig;
  activation: ActivationConfig;
  /** Install sheets (`subops activate --sheet`): rows run at once (SHEET_CONCURRENCY) until UISP throttles. */
  sheets: { concurrency: number };
  payments: PaymentConfig;
  logLevel: string;
  /** LOG_FORMAT: `json` (one object a line, for log collectors) or `pretty` (readable, for development). */
  logFormat: 'json' | 'pretty';
}

export interface SlackConfig {
  botToken: string;
  signingSecret: string | undefined;
  appToken: string | undefined;
  apiUrl: string | undefined;
  port: number;
  auditChannelId: string | undefined;
  /** ALLOWED_USER_IDS / ALLOWED_USERGROUP_ID, or ALLOWED_EVERYONE=true (who may use SubOps at all), and ACCESS_<ACTION> (who may do what). */
  access: AccessSettings;
  /** APPROVAL_*: which changes wait for a second person, and where the requests are posted. */
  approvals: ApprovalConfig;
  /** On SIGTERM: how long operations in flight may take to finish before the process exits anyway. */
  shutdownGraceMs: number;
}

export interface ApprovalConfig {
  settings: ApprovalSettings;
  /** APPROVALS_CHANNEL_ID, else AUDIT_CHANNEL_ID: where requests are posted and read back. */
  channelId: string | undefined;
}

/** Pages of a long payment listing read ahead: about 4× faster than one after the other, a few pages of memory. */
const DEFAULT_PAGES_IN_FLIGHT = 4;
/** UISP webhooks, the manual-link watch and metrics: settings of the bot process. */
export interface EventsConfig {
  /** Socket Mode: the port of the small listener for POST /uisp/webhook; none when undefined. HTTP mode serves it on PORT. */
  webhookPort: number | undefined;
  /** The webhook endpoint exists only when set: UISP must call it with `?token=<it>` (or the X-Webhook-Token header). */
  webhookToken: string | undefined;
  /** Webhook deliveries one remote address may make per minute; also how many of its events may wait. */
  webhookRatePerMinute: number;
  /** A payment.add is reported only when the payment is dated within this long before now. */
  paymentWindowMs: number;
  /** How often the pending manual CRM–NMS links are checked (one NMS request per 40 pending sites, asking for them by id). */
  linkWatchIntervalMs: number;
  /** How long after an activation an unlinked site gets its one reminder. */
  linkReminderMs: number;
  /** A webhook event given up on is posted to the audit channel (for the daily digest's "needs a person"): on with DIGEST_CHANNEL_ID. */
  failureNotices: boolean;
  /** OUTAGES_CHANNEL_ID: where outage threads go; the audit channel when unset. */
  outagesChannelId: string | undefined;
  /** OUTAGE_POLL_INTERVAL_S: how often the NMS is asked for outages (two requests a poll). */
  outagePollIntervalMs: number;
  /** OUTAGE_MIN_MINUTES: an outage shorter than this is not posted (flapping: counted, posted once when it repeats). */
  outageMinMs: number;
}

/** Where GET /metrics and GET /healthz are served: a listener of their own, loopback only by default. */
export interface OpsConfig {
  /** OPS_PORT; 0 picks a free port (named in the start-up line). */
  port: number;
  /** OPS_HOST: the address the ops listener binds; 127.0.0.1 by default. */
  host: string;
  /** HEALTHZ_ON_SLACK_PORT: GET /healthz is also answered on PORT (HTTP mode), for a load balancer that checks only that port. */
  healthzOnSlackPort: boolean;
}

/** The daily digest (DIGEST_CHANNEL_ID, DIGEST_TIME): none unless a channel is set. */
export interface DigestConfig {
  channelId: string;
  /** When the previous day's digest is posted, on the wall clock of ISP_TIMEZONE. */
  time: LocalTime;
}

export interface LocalTime {
  hour: number;
  minute: number;
}

/** OPS_PORT's default: the port the OpenTelemetry Prometheus exporter uses, free on most hosts. */
export const DEFAULT_OPS_PORT = 9464;

/**
 * Whether Intl knows the zone. ICU's list of canonical names answers most settings cheaply; other
 * spellings it accepts (aliases such as US/Eastern, any letter case) are tried on a formatter, whose
 * first construction costs tens of milliseconds of start-up that serving does not otherwise need.
 */
function isTimeZone(name: string): boolean {
  if (Intl.supportedValuesOf('timeZone').includes(name)) return true;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

const systemTimeZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone;

const SLACK_API_EXAMPLE = 'https://slack.com/api';

/** The words every boolean setting takes (lower case); undefined for any other. */
function booleanWord(raw: string): boolean | undefined {
  if (['true', '1', 'yes'].includes(raw)) return true;
  if (['false', '0', 'no'].includes(raw)) return false;
  return undefined;
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** Collects problems while reading variables, so one run reports all of them. */
class EnvReader {
  readonly problems: string[];
  private readonly env: Env;
  /** Secrets given by file (NAME_FILE) are read here, once for every reader: the one rule for all of them. */
  constructor(env: Env) {
    ({ env: this.env, problems: this.problems } = withSecretFiles(env));
  }

  string(name: ConfigVariable): string | undefined {
    const value = this.env[name]?.trim();
    return value ? value : undefined;
  }

  url(name: ConfigVariable, example: string): string | undefined {
    const value = this.string(name);
    if (value === undefined) return undefined;
    const parsed = z.url({ protocol: /^https?$/ }).safeParse(value);
    if (!parsed.success) {
      this.problems.push(`${name} must be an http(s) URL, e.g. ${example}`);
      return undefined;
    }
    return value.replace(/\/+$/, '');
  }

  /** Slack's Web API base: fetch refuses a URL with a user name or password, and Slack takes the bot token. */
  slackApiUrl(): string | undefined {
    const value = this.url('SLACK_API_URL', SLACK_API_EXAMPLE);
    if (value === undefined) return undefined;
    const { username, password } = new URL(value);
    if (!username && !password) return value;
    this.problems.push(`SLACK_API_URL must not hold a user name or password (Slack is asked with SLACK_BOT_TOKEN), e.g. ${SLACK_API_EXAMPLE}`);
    return undefined;
  }

  int(name: ConfigVariable, fallback: number, { min = 0, max }: { min?: number; max?: number } = {}): number {
    const raw = this.string(name);
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (!Number.isSafeInteger(value) || value < min || (max !== undefined && value > max)) {
      this.problems.push(`${name} must be a whole number ${max === undefined ? `of at least ${min}` : `from ${min} to ${max}`} (got "${raw}")`);
      return fallback;
    }
    return value;
  }

  positiveNumber(name: ConfigVariable, fallback: number): number {
    const raw = this.string(name);
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (!Number.isFinite(value) || value <= 0) {
      this.problems.push(`${name} must be a number greater than 0 (got "${raw}")`);
      return fallback;
    }
    return value;
  }

  timeZone(name: ConfigVariable): string {
    const raw = this.string(name);
    if (raw === undefined) return systemTimeZone();
    if (isTimeZone(raw)) return raw;
    this.problems.push(`${name} must be an IANA time zone name such as America/Guyana (got "${raw}")`);
    return systemTimeZone();
  }

  required(name: ConfigVariable, hint: string): string {
    const value = this.string(name);
    if (value === undefined) this.problems.push(`${name} is required (${hint})`);
    return value ?? '';
  }

  prefixed(name: ConfigVariable, prefix: string, hint: string): string | undefined {
    const value = this.string(name);
    if (value !== undefined && !value.startsWith(prefix)) this.problems.push(`${name} must start with "${prefix}" (${hint})`);
    return value;
  }

  boolean(name: ConfigVariable, fallback: boolean): boolean {
    const raw = this.string(name)?.toLowerCase();
    if (raw === undefined) return fallback;
    const value = booleanWord(raw);
    if (value !== undefined) return value;
    this.problems.push(`${name} must be true or false (got "${raw}")`);
    return fallback;
  }

  /** An IP address or a host name to listen on. */
  host(name: ConfigVariable, fallback: string): string {
    const value = this.string(name);
    if (value === undefined) return fallback;
    if (isIP(value) || /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/i.test(value)) return value;
    this.problems.push(`${name} must be an IP address or host name to listen on, e.g. 127.0.0.1 (got "${value}")`);
    return fallback;
  }

  /** A wall-clock time, HH:MM (24-hour). */
  localTime(name: ConfigVariable, fallback: LocalTime): LocalTime {
    const raw = this.string(name);
    if (raw === undefined) return fallback;
    const match = /^([01]\d|2[0-3]):([0-5]\d)$/.exec(raw);
    if (match) return { hour: Number(match[1]), minute: Number(match[2]) };
    this.problems.push(`${name} must be a time of day as HH:MM, 24-hour, e.g. 08:00 (got "${raw}")`);
    return fallback;
  }

  /** A Slack channel id: C…, or G… (a private channel of an older workspace). A name is the usual mistake. */
  channelId(name: ConfigVariable): string | undefined {
    const value = this.string(name);
    if (value !== undefined && !/^[CG][A-Z0-9]+$/.test(value)) this.problems.push(`${name} must be a Slack channel id (C…, G…), as the channel's details show it, not its name (not: ${value})`);
    return value;
  }

  list(name: ConfigVariable): string[] {
    return (this.string(name) ?? '')
      .split(',')
      .map((item) => item.trim())
      .filter(Boolean);
  }
}

function readAccess(reader: EnvReader): AccessSettings {
  // Literal names: .env.example and docs/configuration.md are checked against the variables this file reads.
  const listed: Record<AccessAction, [ConfigVariable, string[]]> = {
    lookup: ['ACCESS_LOOKUP', reader.list('ACCESS_LOOKUP')],
    activate: ['ACCESS_ACTIVATE', reader.list('ACCESS_ACTIVATE')],
    suspend: ['ACCESS_SUSPEND', reader.list('ACCESS_SUSPEND')],
    unsuspend: ['ACCESS_UNSUSPEND', reader.list('ACCESS_UNSUSPEND')],
    'record-payment': ['ACCESS_RECORD_PAYMENT', reader.list('ACCESS_RECORD_PAYMENT')],
    approve: ['ACCESS_APPROVE', reader.list('ACCESS_APPROVE')],
    'acknowledge-outage': ['ACCESS_ACKNOWLEDGE_OUTAGE', reader.list('ACCESS_ACKNOWLEDGE_OUTAGE')],
  };
  const actions: AccessSettings['actions'] = {};
  for (const action of ACCESS_ACTIONS) {
    const [name, ids] = listed[action];
    if (!ids.length) continue;
    const { grant, invalid } = grantOf(ids);
    if (invalid.length) reader.problems.push(`${name} must list Slack user ids (U…, W…) and user group ids (S…), comma-separated (not: ${invalid.join(', ')})`);
    actions[action] = grant;
  }
  // Two settings of one kind each, as before per-action grants existed: a typo there locks the team out.
  const userIds = reader.list('ALLOWED_USER_IDS');
  const notUsers = userIds.filter((id) => !isSlackUserId(id));
  if (notUsers.length) reader.problems.push(`ALLOWED_USER_IDS must list Slack user ids (U…, W…), comma-separated; a user group goes in ALLOWED_USERGROUP_ID (not: ${notUsers.join(', ')})`);
  const groupId = reader.string('ALLOWED_USERGROUP_ID');
  if (groupId !== undefined && !isSlackUserGroupId(groupId)) reader.problems.push(`ALLOWED_USERGROUP_ID must be a Slack user group id (S…), as the group's profile shows it (not: ${groupId})`);
  // The whole workspace only when asked for by name: a forgotten list must not open every command to everyone.
  const toEveryone = reader.boolean('ALLOWED_EVERYONE', false);
  const restricted = userIds.length > 0 || groupId !== undefined;
  if (toEveryone && restricted) reader.problems.push('ALLOWED_EVERYONE=true contradicts ALLOWED_USER_IDS / ALLOWED_USERGROUP_ID: set the lists, or ALLOWED_EVERYONE=true, not both');
  if (!toEveryone && !restricted) reader.problems.push('ALLOWED_USERGROUP_ID or ALLOWED_USER_IDS is required: who may use SubOps (a user group S…, or user ids U…); ALLOWED_EVERYONE=true opens it to every member of the workspace');
  return { everyone: restricted ? { userIds, groupIds: groupId ? [groupId] : [] } : undefined, actions };
}

function readApprovals(reader: EnvReader, auditChannelId: string | undefined): ApprovalConfig {
  const kinds = reader.list('APPROVAL_REQUIRED_FOR');
  const unknown = kinds.filter((kind) => !(APPROVAL_KINDS as readonly string[]).includes(kind));
  if (unknown.length) reader.problems.push(`APPROVAL_REQUIRED_FOR lists ${APPROVAL_KINDS.join(', ')} (not: ${unknown.join(', ')})`);
  const required = new Set(kinds.filter((kind): kind is ApprovalKind => !unknown.includes(kind)));
  const paymentAbove = reader.string('APPROVAL_PAYMENT_ABOVE') === undefined ? undefined : reader.positiveNumber('APPROVAL_PAYMENT_ABOVE', 1);
  if (required.has('large-payment') && paymentAbove === undefined) reader.problems.push('APPROVAL_PAYMENT_ABOVE is required when APPROVAL_REQUIRED_FOR lists large-payment (the amount above which a payment needs approval)');
  const channelId = reader.channelId('APPROVALS_CHANNEL_ID') ?? auditChannelId;
  if (required.size && !channelId) reader.problems.push('APPROVALS_CHANNEL_ID (or AUDIT_CHANNEL_ID) is required when APPROVAL_REQUIRED_FOR is set: approval requests are posted there');
  const expiresAfterMs = reader.positiveNumber('APPROVAL_EXPIRY_HOURS', DEFAULT_APPROVAL_EXPIRY_MS / 3_600_000) * 3_600_000;
  return { settings: { required, paymentAbove, expiresAfterMs }, channelId };
}

/** Approvals on while ACCESS_APPROVE is unset: the sentence config check and start-up warn with. */
export function approvalsWithoutApprovers({ access, approvals }: Pick<SlackConfig, 'access' | 'approvals'>): string | undefined {
  if (!approvals.settings.required.size || access.actions.approve) return undefined;
  return 'APPROVAL_REQUIRED_FOR is set but ACCESS_APPROVE is not: anyone who may use SubOps may approve another person\'s request; set ACCESS_APPROVE to the approvers (a user group S…, or user ids).';
}

const NUMBERING_SETTINGS: readonly string[] = ['auto', 'stock', 'interface'];

/** Core settings; on the simulator (`simulatorRequested`) UISP_URL is left aside, its tokens with it. */
function readCore(reader: EnvReader, env: Env): CoreConfig {
  const switched = simulatorSwitch(env);
  if (switched === undefined) reader.problems.push(`SUBOPS_SIMULATOR must be 1 (the embedded UISP simulator) or 0 (got "${env.SUBOPS_SIMULATOR?.trim()}")`);
  const url = switched ? undefined : reader.url('UISP_URL', 'https://uisp.example.net');
  const shared = reader.string('UISP_TOKEN');
  const crmToken = reader.string('UISP_CRM_TOKEN') ?? shared;
  const nmsToken = reader.string('UISP_NMS_TOKEN') ?? shared;
  if (url !== undefined && (crmToken === undefined || nmsToken === undefined)) {
    reader.problems.push('UISP_TOKEN is required when UISP_URL is set (or both UISP_CRM_TOKEN and UISP_NMS_TOKEN)');
  }
  const numbering = reader.string('SERVICE_STATUS_NUMBERING') ?? 'auto';
  if (!NUMBERING_SETTINGS.includes(numbering)) reader.problems.push(`SERVICE_STATUS_NUMBERING must be ${NUMBERING_SETTINGS.join(', ')}`);
  // A leftover one of the status numbers SERVICE_STATUS_NUMBERING replaced is named, not ignored.
  for (const legacy of RETIRED_SETTINGS) {
    if (reader.string(legacy) !== undefined) reader.problems.push(`${legacy} is no longer read: set SERVICE_STATUS_NUMBERING=stock (7 Quoted, 5 Obsolete) or interface (6 Quoted, 7 Obsolete), or leave it unset to detect it`);
  }
  const logLevel = reader.string('LOG_LEVEL') ?? 'info';
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) reader.problems.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);
  const logFormat = reader.string('LOG_FORMAT') ?? 'json';
  if (logFormat !== 'json' && logFormat !== 'pretty') reader.problems.push('LOG_FORMAT must be json or pretty');
  const config: CoreConfig = {
    uisp: {
      url,
      crmToken,
      nmsToken,
      connectTimeoutMs: reader.int('UISP_CONNECT_TIMEOUT_MS', 5_000, { min: 1 }),
      requestTimeoutMs: reader.int('UISP_TIMEOUT_MS', 15_000, { min: 1 }),
      retries: reader.int('UISP_RETRIES', 2, { max: 10 }),
      retryBackoffMs: reader.int('UISP_RETRY_BACKOFF_MS', 250, { max: 60_000 }),
      deadlineMs: reader.int('UISP_DEADLINE_MS', 30_000, { min: 1 }),
      writeRetries: reader.int('UISP_WRITE_RETRIES', 4, { max: 10 }),
      writeBackoffMs: reader.int('UISP_WRITE_BACKOFF_MS', 1_000, { max: 60_000 }),
      retryWindowMs: reader.int('UISP_RETRY_WINDOW_MS', 30_000, { max: 600_000 }),
      poolConnections: reader.int('UISP_POOL_CONNECTIONS', DEFAULT_POOL_CONNECTIONS, { min: 1, max: 1_024 }),
      pagesInFlight: reader.int('UISP_PAGES_IN_FLIGHT', DEFAULT_PAGES_IN_FLIGHT, { min: 1, max: 16 }),
    },
    activation: {
      timeZone: reader.timeZone('ISP_TIMEZONE'),
      servicePlanPeriodId: reader.int('SERVICE_PLAN_PERIOD_ID', 37, { min: 1 }),
      servicePrice: reader.positiveNumber('SERVICE_PRICE', 10_000),
      parentSiteId: reader.string('NMS_PARENT_SITE_ID'),
      numbering: numbering as NumberingSetting,
    },
    sheets: { concurrency: reader.int('SHEET_CONCURRENCY', 2, { min: 1, max: 8 }) },
    payments: { maxAmount: reader.positiveNumber('PAYMENT_MAX_AMOUNT', DEFAULT_PAYMENT_MAX_AMOUNT) },
    logLevel,
    logFormat: logFormat === 'pretty' ? 'pretty' : 'json',
  };
  return config;
}

/** UISP and workflow settings: all the CLI needs. UISP_URL may be missing here; `loadUispConfig` requires it. */
export function loadCoreConfig(env: Env): CoreConfig {
  return loadCore(env, false);
}

/**
 * The core settings of a run that reaches UISP (src/connect.ts): UISP_URL is required unless the embedded
 * simulator was asked for. A command run from cron, or from a folder without the `.env`, must not report
 * success against sample data.
 */
export function loadUispConfig(env: Env): CoreConfig {
  return loadCore(env, true);
}

function loadCore(env: Env, uispRequired: boolean): CoreConfig {
  const reader = new EnvReader(env);
  const config = readCore(reader, env);
  if (uispRequired) {
    requireUisp(reader, config, env, 'UISP_URL is required: set it to your UISP (e.g. https://uisp.example.net, with UISP_TOKEN), or add --simulator to try SubOps against the bundled UISP simulator (SUBOPS_SIMULATOR=1 for every command)');
  }
  if (reader.problems.length) throw new ConfigError(reader.problems);
  return config;
}

/** SUBOPS_SIMULATOR: unset or empty is false; otherwise a boolean word, or undefined (a problem naming it). */
const simulatorSwitch = (env: Env) => {
  const raw = env.SUBOPS_SIMULATOR?.trim().toLowerCase() ?? '';
  return raw === '' ? false : booleanWord(raw);
};

/** A real UISP, unless the simulator was asked for: `problem` when neither is there and nothing was said of either yet. */
function requireUisp(reader: EnvReader, core: CoreConfig, env: Env, problem: string): void {
  if (core.uisp.url || simulatorRequested(env) || reader.problems.some((p) => /^(UISP_URL|SUBOPS_SIMULATOR)\b/.test(p))) return;
  reader.problems.push(problem);
}

/**
 * Whether the embedded UISP simulator stands in for UISP, whatever UISP_URL says: SUBOPS_SIMULATOR=1, which
 * `--simulator` sets for one run (src/cli/main.ts). Never the default. Like SUBOPS_ENV_FILE it switches how
 * the process runs rather than configuring UISP or Slack, so it is read here, outside the EnvReader.
 */
export const simulatorRequested = (env: Env): boolean => simulatorSwitch(env) === true;

/**
 * Everything the Slack app needs, core included; all problems reported together. A real UISP is
 * required unless the bundled simulator was asked for (`serve --simulator`, SUBOPS_SIMULATOR=1): a bot
 * serving agents must never fall back to sample data because UISP_URL was forgotten.
 */
export function loadAppConfig(env: Env): { core: CoreConfig; slack: SlackConfig; events: EventsConfig; ops: OpsConfig; digest: DigestConfig | undefined; store: StoreSettings } {
  const reader = new EnvReader(env);
  const core = readCore(reader, env);
  const simulator = simulatorRequested(env);
  requireUisp(reader, core, env, 'UISP_URL is required for the Slack app (to try it on sample data instead: `subops serve --simulator`, or `npm run demo`)');
  const appToken = reader.prefixed('SLACK_APP_TOKEN', 'xapp-', 'an app-level token with connections:write, for Socket Mode');
  const auditChannelId = reader.channelId('AUDIT_CHANNEL_ID');
  const digestChannelId = reader.channelId('DIGEST_CHANNEL_ID');
  const slack: SlackConfig = {
    botToken: reader.required('SLACK_BOT_TOKEN', 'the bot token, xoxb-…, from OAuth & Permissions'),
    signingSecret: appToken ? reader.string('SLACK_SIGNING_SECRET') : reader.required('SLACK_SIGNING_SECRET', 'needed to verify requests in HTTP mode; or set SLACK_APP_TOKEN for Socket Mode'),
    appToken,
    apiUrl: reader.slackApiUrl(),
    port: reader.int('PORT', 3000, { min: 1, max: 65_535 }),
    auditChannelId,
    access: readAccess(reader),
    approvals: readApprovals(reader, auditChannelId),
    shutdownGraceMs: reader.int('SHUTDOWN_GRACE_MS', 25_000, { max: 600_000 }),
  };
  if (slack.botToken && !slack.botToken.startsWith('xoxb-')) reader.problems.push('SLACK_BOT_TOKEN must start with "xoxb-"');
  const events: EventsConfig = {
    webhookPort: reader.string('WEBHOOK_PORT') === undefined ? undefined : reader.int('WEBHOOK_PORT', 0, { min: 1, max: 65_535 }),
    webhookToken: readWebhookToken(reader),
    webhookRatePerMinute: reader.int('WEBHOOK_RATE_PER_MINUTE', 600, { min: 1, max: 100_000 }),
    paymentWindowMs: reader.positiveNumber('WEBHOOK_PAYMENT_WINDOW_HOURS', 24) * 3_600_000,
    linkWatchIntervalMs: reader.positiveNumber('LINK_WATCH_INTERVAL_S', 60) * 1000,
    linkReminderMs: reader.positiveNumber('LINK_REMINDER_HOURS', 24) * 3_600_000,
    failureNotices: digestChannelId !== undefined,
    outagesChannelId: reader.channelId('OUTAGES_CHANNEL_ID'),
    outagePollIntervalMs: reader.positiveNumber('OUTAGE_POLL_INTERVAL_S', 60) * 1000,
    outageMinMs: reader.positiveNumber('OUTAGE_MIN_MINUTES', 2) * 60_000,
  };
  const ops: OpsConfig = {
    port: reader.int('OPS_PORT', DEFAULT_OPS_PORT, { max: 65_535 }),
    host: reader.host('OPS_HOST', '127.0.0.1'),
    healthzOnSlackPort: reader.boolean('HEALTHZ_ON_SLACK_PORT', false),
  };
  if (ops.port !== 0 && (ops.port === events.webhookPort || (!appToken && ops.port === slack.port))) {
    reader.problems.push(`OPS_PORT must differ from ${ops.port === events.webhookPort ? 'WEBHOOK_PORT' : 'PORT'} (${ops.port}): /metrics and /healthz have a listener of their own`);
  }
  // DIGEST_TIME is checked even without a channel: a typo is reported before the channel is added.
  const digestTime = reader.localTime('DIGEST_TIME', { hour: 8, minute: 0 });
  const digest = digestChannelId ? { channelId: digestChannelId, time: digestTime } : undefined;
  const store = readStore(reader, env, simulator);
  if (reader.problems.length) throw new ConfigError(reader.problems);
  return { core, slack, events, ops, digest, store };
}

/** Guessable in a few tries below this; `openssl rand -hex 32` gives 64 characters. */
const MIN_WEBHOOK_TOKEN_LENGTH = 24;

/** The secret UISP's webhook calls carry: long enough not to be guessed, never shown. */
function readWebhookToken(reader: EnvReader): string | undefined {
  const token = reader.string('WEBHOOK_TOKEN');
  if (token !== undefined && token.length < MIN_WEBHOOK_TOKEN_LENGTH) {
    reader.problems.push(`WEBHOOK_TOKEN must be at least ${MIN_WEBHOOK_TOKEN_LENGTH} characters (it has ${token.length}): anyone who guesses it can post events to the bot; make one with \`openssl rand -hex 32\``);
  }
  return token;
}

/**
 * SubOps' own state (src/store): PostgreSQL at DATABASE_URL, shared by replicas; else the embedded store
 * in STORE_DIR (default `subops/store` in the state directory). A trial on the bundled simulator
 * (`--simulator`) keeps it in this process's memory, as it keeps the simulator's UISP: neither outlives
 * the process.
 */
function readStore(reader: EnvReader, env: Env, simulator: boolean): StoreSettings {
  const url = reader.string('DATABASE_URL');
  if (url !== undefined) {
    if (!isDatabaseUrl(url)) reader.problems.push(`DATABASE_URL must be a PostgreSQL URL, e.g. postgres://subops:password@db.example:5432/subops; ${UNREADABLE}`);
    return { engine: 'postgres', url };
  }
  const dir = reader.string('STORE_DIR');
  if (dir !== undefined && !isAbsolute(dir)) reader.problems.push(`STORE_DIR must be an absolute path (got "${dir}")`);
  if (simulator && dir === undefined) return { engine: 'memory' };
  return { engine: 'embedded', dir: dir ?? defaultStoreDir(env) };
}

/** A store that outlives the process: what CLI runs can share with the bot. */
export type SharedStoreSettings = Exclude<StoreSettings, { engine: 'memory' }>;

/**
 * The store CLI processes share with the bot: PostgreSQL at DATABASE_URL when it names one, else the
 * embedded store in STORE_DIR (default `subops/store` in the state directory), which the bot and every
 * CLI run on the machine open together (DATABASE_URL_FILE as the configuration reads it). A malformed
 * value is the bot's config check's to report: a STORE_DIR that is not absolute shares nothing.
 */
export function sharedStoreSettings(env: Env): SharedStoreSettings | undefined {
  const url = withSecretFiles(env).env.DATABASE_URL?.trim();
  // DATABASE_URL_FILE that could not be read names no store: not the embedded one either.
  if (!url && secretGiven(env, 'DATABASE_URL')) return undefined;
  if (url) return isDatabaseUrl(url) ? { engine: 'postgres', url } : undefined;
  const dir = env.STORE_DIR?.trim();
  if (dir) return isAbsolute(dir) ? { engine: 'embedded', dir } : undefined;
  return { engine: 'embedded', dir: defaultStoreDir(env) };
}

/** A URL the PostgreSQL driver reads as SubOps does: a host, and a user name and password that parse as such. */
const isDatabaseUrl = (url: string) => /^postgres(ql)?:\/\/./.test(url) && parseDatabaseUrl(url) !== undefined;

const defaultStoreDir = (env: Env) => join(stateHome(env), 'subops', 'store');

/** The user's state directory: XDG_STATE_HOME (when absolute), else ~/.local/state (HOME, else the account's home). */
export function stateHome(env: Env): string {
  const xdg = env.XDG_STATE_HOME?.trim();
  return xdg && isAbsolute(xdg) ? xdg : join(env.HOME?.trim() || homedir(), '.local', 'state');
}

/** Where the CLI posts its audit records in Slack: the bot's token, the audit channel and the API base. */
export interface AuditChannelConfig {
  botToken: string;
  channelId: string;
  apiUrl: string | undefined;
}

/**
 * The CLI's audit channel, when both SLACK_BOT_TOKEN and AUDIT_CHANNEL_ID are set (the same variables,
 * and SLACK_API_URL, as the bot's); undefined otherwise, and the audit record goes to the log only.
 */
export function loadAuditChannelConfig(env: Env): AuditChannelConfig | undefined {
  const reader = new EnvReader(env);
  const botToken = reader.prefixed('SLACK_BOT_TOKEN', 'xoxb-', 'the bot token, used by the CLI to post audit records');
  const channelId = reader.channelId('AUDIT_CHANNEL_ID');
  const apiUrl = reader.slackApiUrl();
  if (reader.problems.length) throw new ConfigError(reader.problems);
  return botToken && channelId ? { botToken, channelId, apiUrl } : undefined;
}
