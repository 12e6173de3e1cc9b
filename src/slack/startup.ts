/**
 * Checks before the bot takes requests: Slack answers, it accepts SLACK_BOT_TOKEN, and the bot can post
 * in AUDIT_CHANNEL_ID. An unreachable Slack is retried with backoff (logged each time); anything that
 * will not fix itself becomes a StartupError whose message is the one line `serve` prints. Messages
 * name the setting, never its value when it is a secret.
 *
 * The two calls go over Node's own fetch: not Bolt's WebClient (its first call loads its HTTP stack,
 * which costs more start-up time than both calls together, for two requests with nothing to retry or
 * paginate that the client would add), nor undici, which loads with the first UISP request.
 */
import type { Logger } from 'pino';
import type { SlackConfig } from '../config.js';
import { errorSummary } from './errors.js';
import { sealOf, type RecordSeal } from './record-seal.js';

export class StartupError extends Error {
  override readonly name = 'StartupError';
  /** True when Slack did not answer (a restart may help); false when it answered no (one does not). */
  constructor(
    message: string,
    readonly transient = false,
  ) {
    super(message);
  }
}

/** Slack answered `ok: false`: asking again will not change its mind. */
class SlackRefusal extends Error {
  override readonly name = 'SlackRefusal';
  constructor(readonly code: string) {
    super(`Slack answered ${code}`);
  }
}

/** Slack's answers meaning "this token will not work", whatever the network does. */
const TOKEN_REFUSED = new Set(['invalid_auth', 'not_authed', 'account_inactive', 'token_revoked', 'token_expired', 'not_allowed_token_type', 'no_permission', 'team_access_not_granted', 'ekm_access_denied']);

const SLACK_API_URL = 'https://slack.com/api';
const CALL_TIMEOUT_MS = 10_000;

/**
 * Who SubOps is in Slack, from auth.test at start. Every SubOps process posts with the same bot token
 * (bot replicas and CLI runs alike), so Slack stamps this bot_id (and app_id) on everything SubOps
 * writes: what is read back from Slack counts only when it carries them (src/slack/audit-trail.ts).
 * What tells the bot's records from the CLI's is the seal only the bot's processes can make.
 */
export interface BotIdentity {
  botUserId: string;
  botId: string;
  /** The bot's app (auth.test's app_id), when Slack names it. */
  appId?: string | undefined;
  /** The workspace's address, `https://<team>.slack.com/` (auth.test's url): its own permalinks start with it. */
  workspaceUrl?: string | undefined;
  /** The bot processes' seal on their records (./record-seal.ts); the CLI, which has no key, has none. */
  seal?: RecordSeal | undefined;
}

export interface StartupCheckOptions {
  slack: Pick<SlackConfig, 'botToken' | 'apiUrl' | 'auditChannelId'> & Partial<Pick<SlackConfig, 'signingSecret' | 'appToken'>>;
  logger: Logger;
  /** Attempts while Slack is unreachable, and the first backoff (doubling); default 5 and 1 s. */
  attempts?: number;
  backoffMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

interface AuthTestAnswer {
  user_id?: string;
  bot_id?: string;
  app_id?: string;
  url?: string;
}

interface ConversationsInfoAnswer {
  channel?: { name?: string; is_archived?: boolean; is_member?: boolean };
}

/**
 * Resolves to the bot's identity, which the app is then built with (so Bolt never calls auth.test on its
 * own, where a refusal would be an unhandled rejection, and what SubOps reads back from Slack is checked
 * against it), or rejects with a StartupError.
 */
export async function checkSlack(options: StartupCheckOptions): Promise<BotIdentity> {
  const { slack, logger, attempts = 5, backoffMs = 1_000, sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms)) } = options;
  const auditChannelId = slack.auditChannelId;
  const call = (method: string, params: Record<string, string> = {}) => callSlack(slack.apiUrl ?? SLACK_API_URL, slack.botToken, method, params);

  /** Calls Slack, retrying only what may pass (no answer, 5xx, rate limit). */
  async function reach<T>(method: string, params?: Record<string, string>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return (await call(method, params)) as T;
      } catch (error) {
        if (error instanceof SlackRefusal) throw error;
        const reason = errorSummary(error).message;
        if (attempt >= attempts) throw new StartupError(`Slack is not reachable (${method}: ${reason}) after ${attempts} attempt${attempts === 1 ? '' : 's'}; check the network, any proxy, and SLACK_API_URL.`, true);
        const delay = backoffMs * 2 ** (attempt - 1);
        logger.warn({ attempt, of: attempts, retryInMs: delay, reason }, `Slack is not reachable yet (${method}); retrying in ${Math.round(delay / 100) / 10} s`);
        await sleep(delay);
      }
    }
  }

  let identity: BotIdentity;
  try {
    const auth = await reach<AuthTestAnswer>('auth.test');
    if (!auth.user_id || !auth.bot_id) throw new StartupError('SLACK_BOT_TOKEN is not a bot token (auth.test names no bot); use the Bot User OAuth Token, xoxb-…');
    const seal = sealOf(slack);
    identity = { botUserId: auth.user_id, botId: auth.bot_id, ...(auth.app_id && { appId: auth.app_id }), ...(auth.url && { workspaceUrl: auth.url }), ...(seal && { seal }) };
  } catch (error) {
    if (!(error instanceof SlackRefusal)) throw error;
    if (TOKEN_REFUSED.has(error.code)) throw new StartupError(`Slack refused SLACK_BOT_TOKEN (${error.code}); copy the Bot User OAuth Token (xoxb-…) from the app's OAuth & Permissions page.`);
    throw new StartupError(`Slack refused auth.test (${error.code}); check SLACK_BOT_TOKEN.`);
  }

  if (auditChannelId) await checkAuditChannel(auditChannelId, () => reach<ConversationsInfoAnswer>('conversations.info', { channel: auditChannelId }), logger);
  return identity;
}

/** A channel SubOps posts to, as its setting names it: the variable, and what the bot posts there. */
export interface PostingChannel {
  variable: string;
  posts: string;
}

const AUDIT_CHANNEL: PostingChannel = { variable: 'AUDIT_CHANNEL_ID', posts: 'the audit trail' };

async function checkAuditChannel(channel: string, lookUp: () => Promise<ConversationsInfoAnswer>, logger: Logger, { variable, posts }: PostingChannel = AUDIT_CHANNEL): Promise<void> {
  let info: ConversationsInfoAnswer;
  try {
    info = await lookUp();
  } catch (error) {
    if (!(error instanceof SlackRefusal)) throw error;
    const code = error.code;
    if (code === 'missing_scope') {
      // Installs from before the channels:read/groups:read scopes: the first audit post will tell.
      logger.warn(`Could not verify ${variable} ${channel}: the app lacks the channels:read and groups:read scopes (see manifest.yml); reinstall the app to add them.`);
      return;
    }
    if (code === 'channel_not_found') throw new StartupError(`${variable} ${channel}: no such channel, or a private channel the bot is not in. Set it to the channel's id and /invite @SubOps there.`);
    throw new StartupError(`${variable} ${channel}: Slack answered ${code} when SubOps looked it up.`);
  }
  const name = info.channel?.name ? ` (#${info.channel.name})` : '';
  if (info.channel?.is_archived) throw new StartupError(`${variable} ${channel}${name} is archived; the bot cannot post there. Set it to a live channel.`);
  // Direct messages have no membership to check; channels the bot is not in refuse its posts.
  if (info.channel?.is_member === false) throw new StartupError(`${variable} ${channel}${name}: the bot is not a member, so it cannot post ${posts} there. Run /invite @SubOps in that channel.`);
}

/**
 * POSTs one Web API method the way Slack documents it (form fields, the token as a Bearer header).
 * Resolves Slack's answer when it is `ok`; rejects with a SlackRefusal when Slack says no, and with a
 * plain Error when no usable answer came (no connection, timeout, rate limit, 5xx, not JSON).
 */
async function callSlack(apiUrl: string, token: string, method: string, params: Record<string, string>): Promise<Record<string, unknown>> {
  let status: number;
  let text: string;
  try {
    const answered = await fetch(`${apiUrl}/${method}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(params).toString(),
      signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
    });
    status = answered.status;
    text = await answered.text();
  } catch (error) {
    // fetch says "fetch failed"; what went wrong (ECONNREFUSED, a timeout…) is its cause.
    const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
    const { code, message } = errorSummary(cause);
    throw new Error(code ?? message, { cause: error });
  }
  if (status === 429) throw new Error('rate limited (HTTP 429)');
  if (status !== 200) throw new Error(`HTTP ${status}`);
  let answer: unknown;
  try {
    answer = JSON.parse(text);
  } catch {
    throw new Error('the answer was not JSON');
  }
  const { ok, error } = (answer ?? {}) as { ok?: unknown; error?: unknown };
  if (ok === true) return answer as Record<string, unknown>;
  throw new SlackRefusal(typeof error === 'string' ? error : 'an unreadable error');
}

/**
 * The checks of `subops config check` that start-up does not make, each asked once: AUDIT_CHANNEL_ID
 * (after checkSlack without it, so the bot token's answer and the channel's are reported apart) and, in
 * Socket Mode, SLACK_APP_TOKEN (apps.connections.open hands out a socket URL, left unused).
 */
/** One look at a channel the bot posts to (the audit channel unless `purpose` names another): `subops config check`. */
export async function checkChannelOnce(slack: Pick<SlackConfig, 'botToken' | 'apiUrl'>, channel: string, logger: Logger, purpose: PostingChannel = AUDIT_CHANNEL): Promise<void> {
  await checkAuditChannel(channel, () => once(() => callSlack(slack.apiUrl ?? SLACK_API_URL, slack.botToken, 'conversations.info', { channel }), 'conversations.info'), logger, purpose);
}

export async function checkAppToken(slack: Pick<SlackConfig, 'apiUrl'>, appToken: string): Promise<void> {
  try {
    await once(() => callSlack(slack.apiUrl ?? SLACK_API_URL, appToken, 'apps.connections.open', {}), 'apps.connections.open');
  } catch (error) {
    if (!(error instanceof SlackRefusal)) throw error;
    throw new StartupError(`Slack refused SLACK_APP_TOKEN (${error.code}); generate an app-level token with connections:write under Basic Information → App-Level Tokens.`);
  }
}

/** One call; no usable answer is a StartupError naming SLACK_API_URL, a refusal stays a SlackRefusal. */
async function once<T>(call: () => Promise<Record<string, unknown>>, method: string): Promise<T> {
  try {
    return (await call()) as T;
  } catch (error) {
    if (error instanceof SlackRefusal) throw error;
    throw new StartupError(`Slack is not reachable (${method}: ${errorSummary(error).message}); check the network, any proxy, and SLACK_API_URL.`, true);
  }
}
