/**
 * `subops config check`: the configuration, then UISP and Slack asked once each, never retried: one CRM
 * read and one NMS read (small lists), auth.test for SLACK_BOT_TOKEN, apps.connections.open for
 * SLACK_APP_TOKEN (Socket Mode; no socket is opened) and conversations.info for AUDIT_CHANNEL_ID. Nothing
 * is written. Every result names the variable to fix; no token or secret ever appears in one.
 */
import { z } from 'zod';
import { approvalsWithoutApprovers, ConfigError, loadAppConfig, loadAuditChannelConfig, loadUispConfig, type Env, type UispConfig } from './config.js';
import { createLogger } from './logging.js';
import { secretGiven } from './secret-files.js';
import type { EnvFileInfo } from './process/io.js';
import { describeNumbering, settingVerdict, StatusNumbering, type NumberingSetting } from './services/activation/numbering.js';
import { CrmClient } from './services/uisp/crm-client.js';
import { UISP_TOKEN_VARIABLES, UispError, type UispSystem } from './services/uisp/errors.js';
import { createUispDispatcher, UispHttp } from './services/uisp/http.js';
import { shownUrl } from './services/uisp/shown-url.js';
import { errorSummary } from './slack/errors.js';
import { checkAppToken, checkChannelOnce, checkSlack, StartupError, type BotIdentity, type PostingChannel } from './slack/startup.js';
import type { StoreSettings } from './store/index.js';

export type CheckName = 'configuration' | 'UISP CRM' | 'UISP NMS' | 'status numbers' | 'Slack auth' | 'Slack app token' | 'audit channel' | 'approvals' | 'digest' | 'store';
/** `warning`: works, with something to look at; `skipped`: not asked (the reason is the message). */
export type CheckStatus = 'ok' | 'warning' | 'failed' | 'skipped';

export interface CheckResult {
  check: CheckName;
  status: CheckStatus;
  message: string;
  /** How long the request took; null for checks that ask nothing. */
  ms: number | null;
}

export interface ConfigCheck {
  /** What is wrong with the configuration, by variable. When any, nothing was asked: `checks` is the configuration's result alone. */
  problems: string[];
  /** Every check in the order to report them (configuration first); they run at once, each resolving when done. */
  checks: Promise<CheckResult>[];
}

export interface ConfigCheckOptions {
  /** `app`: what `subops serve` reads (the default); `cli`: what the CLI reads. */
  scope?: 'app' | 'cli';
  /** The `.env` the process read at start, if any. */
  envFile?: EnvFileInfo | undefined;
  /** Where the process entry looks for a `.env` (none read: said so); undefined when SUBOPS_ENV_FILE is empty. */
  envFileSought?: string | undefined;
}

/** Why there is no UISP_URL to check once the configuration loaded: the simulator was asked for. */
const SIMULATED = 'SUBOPS_SIMULATOR=1 (or --simulator)';

const UISP_PATHS: Record<UispSystem, string> = { crm: '/crm/api/v1.0', nms: '/nms/api/v2.1' };
/**
 * One small list per system that SubOps reads anyway, as /healthz does (src/slack/health.ts): a 200
 * proves the system is there and takes its token. The CRM's suspension reasons (a handful), the NMS's
 * discovered devices (only those waiting to be authorized).
 */
const READS: Record<UispSystem, string> = { crm: 'service-suspension-reasons', nms: 'devices/discovered' };

export function checkConfiguration(env: Env, { scope = 'app', envFile, envFileSought }: ConfigCheckOptions = {}): ConfigCheck {
  const fromFile = envFileSentence(envFile, envFileSought);
  let loaded: ScopeSettings;
  try {
    loaded = loadScope(env, scope);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    const count = error.problems.length;
    const result: CheckResult = { check: 'configuration', status: 'failed', message: `${count} problem${count === 1 ? '' : 's'}; UISP and Slack were not asked${fromFile}`, ms: null };
    return { problems: error.problems, checks: [Promise.resolve(result)] };
  }
  const { uisp, slack, mode } = loaded;
  const shadowed = envFile?.shadowed ?? [];
  const ignored = envFile?.ignored ?? [];
  const warnings = [
    ...(shadowed.length ? [`${shadowed.join(', ')} ${shadowed.length === 1 ? 'is' : 'are'} set in the environment too, whose value is used`] : []),
    ...(ignored.length ? [`${ignored.join(', ')} ${ignored.length === 1 ? 'is not a SubOps setting' : 'are not SubOps settings'}: ignored`] : []),
    ...loaded.warnings,
  ];
  const configuration: CheckResult = {
    check: 'configuration',
    status: warnings.length ? 'warning' : 'ok',
    message: [`${mode}; ${uisp.url ? `UISP at ${shownUrl(uisp.url)}` : `${SIMULATED}: the embedded UISP simulator stands in for UISP`}${fromFile}`, ...warnings].join('; '),
    ms: null,
  };
  const checks: Promise<CheckResult>[] = [Promise.resolve(configuration)];
  for (const system of ['crm', 'nms'] as const) {
    checks.push(uisp.url ? checkUisp(system, uisp, env) : Promise.resolve({ check: uispName(system), status: 'skipped', message: `${SIMULATED}: no real UISP is asked`, ms: null }));
  }
  if (slack) {
    const auth = ask('Slack auth', () => checkSlack({ slack: { ...slack, auditChannelId: undefined }, logger: quietLogger([]), attempts: 1 }), botSentence);
    checks.push(auth.then(({ result }) => result));
    const { appToken, auditChannelId } = slack;
    if (appToken) checks.push(ask('Slack app token', () => checkAppToken(slack, appToken), () => 'SLACK_APP_TOKEN accepted (Socket Mode)').then(({ result }) => result));
    if (auditChannelId) checks.push(auth.then((asked) => checkChannel(slack, auditChannelId, asked, AUDIT)));
    // The bot process's other channels: approval requests (when they go elsewhere than the audit channel) and the digest.
    for (const [channel, purpose] of [[slack.approvalsChannelId, APPROVALS], [slack.digestChannelId, DIGEST]] as const) {
      if (channel && channel !== auditChannelId) checks.push(auth.then((asked) => checkChannel(slack, channel, asked, purpose)));
    }
  }
  checks.push(checkNumbering(uisp, loaded.numbering));
  if (loaded.store) checks.push(checkStoreTimed(loaded.store));
  return { problems: [], checks };
}

/** What to ask Slack about. */
interface SlackSettings {
  botToken: string;
  apiUrl: string | undefined;
  appToken: string | undefined;
  auditChannelId: string | undefined;
  /** The bot process only: APPROVALS_CHANNEL_ID with approvals on, DIGEST_CHANNEL_ID. */
  approvalsChannelId?: string | undefined;
  digestChannelId?: string | undefined;
}

interface ScopeSettings {
  uisp: UispConfig;
  numbering: NumberingSetting;
  /** None when Slack is not used (the CLI without an audit channel). */
  slack: SlackSettings | undefined;
  /** How SubOps would run, in a few words. */
  mode: string;
  /** The bot's state (app scope): DATABASE_URL, else the embedded store. */
  store?: StoreSettings | undefined;
  /** Settings that work but leave something open (approvals without approvers). */
  warnings: string[];
}

function loadScope(env: Env, scope: 'app' | 'cli'): ScopeSettings {
  if (scope === 'app') {
    const { core, slack, digest, store } = loadAppConfig(env);
    const mode = slack.appToken ? 'Socket Mode (SLACK_APP_TOKEN)' : `HTTP mode on PORT ${slack.port} (Slack checks SLACK_SIGNING_SECRET on its first request)`;
    const approvalsChannelId = slack.approvals.settings.required.size ? slack.approvals.channelId : undefined;
    const warnings = [openAccess(slack), approvalsWithoutApprovers(slack)].filter((warning) => warning !== undefined);
    return { uisp: core.uisp, numbering: core.activation.numbering, slack: { ...slack, approvalsChannelId, digestChannelId: digest?.channelId }, mode, store, warnings };
  }
  // Both read, so every problem is reported at once.
  let core: ReturnType<typeof loadUispConfig> | undefined;
  const problems: string[] = [];
  try {
    core = loadUispConfig(env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    problems.push(...error.problems);
  }
  let audit: ReturnType<typeof loadAuditChannelConfig>;
  try {
    audit = loadAuditChannelConfig(env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    problems.push(...error.problems);
  }
  if (problems.length || !core) throw new ConfigError(problems);
  return {
    uisp: core.uisp,
    numbering: core.activation.numbering,
    slack: audit && { botToken: audit.botToken, apiUrl: audit.apiUrl, appToken: undefined, auditChannelId: audit.channelId },
    mode: audit ? 'CLI, audit records also to AUDIT_CHANNEL_ID' : 'CLI, audit records to stderr only (SLACK_BOT_TOKEN and AUDIT_CHANNEL_ID are not both set)',
    warnings: [],
  };
}

/** Which `.env` the settings came from, or that none was read (a missing file is not a problem, but worth knowing). */
function envFileSentence(envFile: EnvFileInfo | undefined, sought: string | undefined): string {
  if (envFile) return `; ${envFile.applied.length} setting${envFile.applied.length === 1 ? '' : 's'} from ${envFile.path}`;
  return sought === undefined ? '; no .env read (SUBOPS_ENV_FILE is empty)' : `; no .env read (none at ${sought}): the environment alone`;
}

/** ALLOWED_EVERYONE=true (the configuration refuses no ALLOWED_* at all): who may use SubOps is not limited. */
const openAccess = ({ access }: { access: { everyone?: unknown } }) =>
  access.everyone === undefined ? 'ALLOWED_EVERYONE=true: access is open to the whole workspace (anyone in it may use SubOps, within ACCESS_* limits)' : undefined;

const uispName = (system: UispSystem): CheckName => (system === 'crm' ? 'UISP CRM' : 'UISP NMS');

/** The variable the system's token came from: its own, else UISP_TOKEN. */
function tokenVariable(env: Env, system: UispSystem): string {
  const own = UISP_TOKEN_VARIABLES[system];
  return secretGiven(env, own) ? own : 'UISP_TOKEN';
}

/** A connection of its own to one system, never retried, within the configured timeouts; `base` is its address as shown. */
function oneShotHttp(system: UispSystem, uisp: UispConfig): { http: UispHttp; base: string; close: () => Promise<void> } {
  const url = `${uisp.url}${UISP_PATHS[system]}`;
  const timeouts = { connectMs: uisp.connectTimeoutMs, requestMs: uisp.requestTimeoutMs, deadlineMs: uisp.deadlineMs };
  const dispatcher = createUispDispatcher(timeouts, 1);
  const token = (system === 'crm' ? uisp.crmToken : uisp.nmsToken) ?? '';
  // Stock UISP CRM reads X-Auth-App-Key, the spec X-Auth-Token: both, as the services layer sends them.
  const headers: Record<string, string> = system === 'crm' ? { 'X-Auth-Token': token, 'X-Auth-App-Key': token } : { 'X-Auth-Token': token };
  const http = new UispHttp({ system, baseUrl: url, headers, dispatcher, timeouts, retry: { retries: 0, backoffMs: 0 } });
  return { http, base: shownUrl(url), close: () => dispatcher.destroy() };
}

/** The store, looked at without changing it (src/store/check.ts); loaded only when asked. */
async function checkStoreTimed(settings: StoreSettings): Promise<CheckResult> {
  const started = performance.now();
  const { checkStore } = await import('./store/check.js');
  const verdict = await checkStore(settings);
  return { check: 'store', ...verdict, ms: Math.round(performance.now() - started) };
}

/** Which service status numbering activations replace services by: the setting, or asked of the CRM once. */
async function checkNumbering(uisp: UispConfig, setting: NumberingSetting): Promise<CheckResult> {
  const check = 'status numbers';
  if (setting !== 'auto') return { check, status: 'ok', message: describeNumbering(settingVerdict(setting)), ms: null };
  if (!uisp.url) return { check, status: 'skipped', message: `${SIMULATED}: the embedded simulator is asked when it runs`, ms: null };
  const crm = oneShotHttp('crm', uisp);
  const started = performance.now();
  try {
    const verdict = await new StatusNumbering(setting, new CrmClient(crm.http)).resolve();
    const ms = Math.round(performance.now() - started);
    if (!verdict.numbering) return { check, status: 'warning', message: `${describeNumbering(verdict)}; until then an activation that would replace a service stops and says why`, ms };
    return { check, status: 'ok', message: describeNumbering(verdict), ms };
  } finally {
    await crm.close();
  }
}

async function checkUisp(system: UispSystem, uisp: UispConfig, env: Env): Promise<CheckResult> {
  const check = uispName(system);
  const variable = tokenVariable(env, system);
  const { http, base, close } = oneShotHttp(system, uisp);
  const started = performance.now();
  const ms = () => Math.round(performance.now() - started);
  try {
    await http.get(READS[system], z.array(z.unknown()));
    return { check, status: 'ok', message: `${base} answered in ${ms()} ms and took ${variable}`, ms: ms() };
  } catch (error) {
    return { check, status: 'failed', message: uispProblem(error, system, variable, base), ms: ms() };
  } finally {
    await close();
  }
}

function uispProblem(error: unknown, system: UispSystem, variable: string, base: string): string {
  const name = system.toUpperCase();
  if (!(error instanceof UispError)) return `${errorSummary(error).message}; check UISP_URL`;
  if (error.kind === 'auth') {
    const own = UISP_TOKEN_VARIABLES[system];
    return `UISP refused ${variable} (HTTP ${error.status}): ${variable === own ? `set ${own} to a valid ${name} token` : `set UISP_TOKEN to a valid token, or ${own} to the ${name}'s own`}`;
  }
  if (error.kind === 'not_found') return `no ${name} API at ${base} (HTTP 404): UISP_URL must be the address holding ${UISP_PATHS.crm} and ${UISP_PATHS.nms}, e.g. https://uisp.example.net`;
  if (error.kind === 'bad_response') return `${base} answered, but not as the UISP ${name} API does (${error.message}): check UISP_URL`;
  if (error.kind === 'unavailable') {
    const slow = /time|within/i.test(error.message) ? ', or UISP_CONNECT_TIMEOUT_MS, UISP_TIMEOUT_MS and UISP_DEADLINE_MS for a slow UISP' : '';
    return `UISP unreachable (${error.message}): check UISP_URL (${base}), DNS and the network${slow}`;
  }
  return error.message;
}

/** What asking Slack once gave: the result line, the answer when it came, and whether Slack was not reached at all (rather than refusing). */
interface Asked<T> {
  result: CheckResult;
  value?: T;
  unreachable?: boolean;
}

/**
 * Asks Slack once, timed; a StartupError's message (which names the variable) is the failure. Slack not
 * reached (network, DNS, timeout, 5xx: src/slack/startup.ts words it "not reachable") is told apart from
 * Slack refusing (invalid_auth…): the first says nothing about the token.
 */
async function ask<T>(check: CheckName, run: () => Promise<T>, describe: (value: T) => string): Promise<Asked<T>> {
  const started = performance.now();
  const ms = () => Math.round(performance.now() - started);
  try {
    const value = await run();
    return { result: { check, status: 'ok', message: describe(value), ms: ms() }, value };
  } catch (error) {
    if (!(error instanceof StartupError)) return { result: { check, status: 'failed', message: `Slack unreachable (${errorSummary(error).message}); check the network, any proxy, and SLACK_API_URL`, ms: ms() }, unreachable: true };
    return { result: { check, status: 'failed', message: error.message, ms: ms() }, unreachable: /not reachable/.test(error.message) };
  }
}

const botSentence = (identity: BotIdentity) =>
  `SLACK_BOT_TOKEN accepted: bot user ${identity.botUserId} (bot ${identity.botId})${identity.workspaceUrl ? ` in ${identity.workspaceUrl}` : ''}`;

const AUDIT = { check: 'audit channel', variable: 'AUDIT_CHANNEL_ID', posts: 'the audit trail' } as const;
const APPROVALS = { check: 'approvals', variable: 'APPROVALS_CHANNEL_ID', posts: 'approval requests' } as const;
const DIGEST = { check: 'digest', variable: 'DIGEST_CHANNEL_ID', posts: 'the daily digest' } as const;

async function checkChannel(slack: SlackSettings, channel: string, auth: Asked<BotIdentity>, purpose: PostingChannel & { check: CheckName }): Promise<CheckResult> {
  const { check, variable, posts } = purpose;
  const identity = auth.value;
  if (!identity) return { check, status: 'skipped', message: `${variable} ${channel} not asked: ${auth.unreachable ? 'Slack was unreachable' : 'Slack did not accept SLACK_BOT_TOKEN'}`, ms: null };
  const warnings: string[] = [];
  const { result } = await ask(check, () => checkChannelOnce(slack, channel, quietLogger(warnings), purpose), () => `${variable} ${channel}: the bot is in it and can post ${posts} there`);
  return result.status === 'ok' && warnings.length ? { ...result, status: 'warning', message: warnings.join(' ') } : result;
}

/** A logger for the start-up checks that keeps their warnings (the message alone) instead of printing them. */
function quietLogger(warnings: string[]) {
  return createLogger('warn', { write: (line: string) => void warnings.push((JSON.parse(line) as { msg: string }).msg) });
}
