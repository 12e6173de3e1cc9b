/**
 * Checks before the bot takes requests: Slack answers, it accepts SLACK_BOT_TOKEN, and the bot can post
 * in AUDIT_CHANNEL_ID. An unreachable Slack is retried with backoff (logged each time); anything that
 * will not fix itself becomes a StartupError whose message is the one line `serve` prints. Messages
 * name the setting, never its value when it is a secret.
 */
import { webApi } from '@slack/bolt';
import type { Logger } from 'pino';
import type { SlackConfig } from '../config.js';
import { errorSummary } from './errors.js';
import { boltLogger } from './logging.js';

export class StartupError extends Error {
  override readonly name = 'StartupError';
}

/** Slack's answers meaning "this token will not work", whatever the network does. */
const TOKEN_REFUSED = new Set(['invalid_auth', 'not_authed', 'account_inactive', 'token_revoked', 'token_expired', 'not_allowed_token_type', 'no_permission', 'team_access_not_granted', 'ekm_access_denied']);

export interface BotIdentity {
  botUserId: string;
  botId: string;
}

export interface StartupCheckOptions {
  slack: Pick<SlackConfig, 'botToken' | 'apiUrl' | 'auditChannelId'>;
  logger: Logger;
  /** Attempts while Slack is unreachable, and the first backoff (doubling); default 5 and 1 s. */
  attempts?: number;
  backoffMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

const isPlatformError = (error: unknown): error is Error & { data: { error: string } } => (error as { code?: string } | undefined)?.code === 'slack_webapi_platform_error';

/**
 * Resolves to the bot's ids, which the app is then built with (so Bolt never calls auth.test on its own,
 * where a refusal would be an unhandled rejection), or rejects with a StartupError.
 */
export async function checkSlack(options: StartupCheckOptions): Promise<BotIdentity> {
  const { slack, logger, attempts = 5, backoffMs = 1_000, sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms)) } = options;
  // No retries of its own: the check retries, and logs each attempt.
  const client = new webApi.WebClient(slack.botToken, {
    ...(slack.apiUrl && { slackApiUrl: `${slack.apiUrl}/` }),
    retryConfig: { retries: 0 },
    timeout: 10_000,
    rejectRateLimitedCalls: true,
    logger: boltLogger(logger),
  });
  const auditChannelId = slack.auditChannelId;

  /** Calls Slack, retrying only what may pass (no answer, 5xx, rate limit). */
  async function reach<T>(what: string, call: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await call();
      } catch (error) {
        if (isPlatformError(error)) throw error;
        const reason = errorSummary(error).message;
        if (attempt >= attempts) throw new StartupError(`Slack is not reachable (${what}: ${reason}) after ${attempts} attempts; check the network, any proxy, and SLACK_API_URL.`);
        const delay = backoffMs * 2 ** (attempt - 1);
        logger.warn({ attempt, of: attempts, retryInMs: delay, reason }, `Slack is not reachable yet (${what}); retrying in ${Math.round(delay / 100) / 10} s`);
        await sleep(delay);
      }
    }
  }

  let identity: BotIdentity;
  try {
    const auth = await reach('auth.test', () => client.auth.test());
    if (!auth.user_id || !auth.bot_id) throw new StartupError('SLACK_BOT_TOKEN is not a bot token (auth.test names no bot); use the Bot User OAuth Token, xoxb-…');
    identity = { botUserId: auth.user_id, botId: auth.bot_id };
  } catch (error) {
    if (!isPlatformError(error)) throw error;
    const code = error.data.error;
    if (TOKEN_REFUSED.has(code)) throw new StartupError(`Slack refused SLACK_BOT_TOKEN (${code}); copy the Bot User OAuth Token (xoxb-…) from the app's OAuth & Permissions page.`);
    throw new StartupError(`Slack refused auth.test (${code}); check SLACK_BOT_TOKEN.`);
  }

  if (auditChannelId) await checkAuditChannel(auditChannelId, (call) => reach('conversations.info', call), client, logger);
  return identity;
}

async function checkAuditChannel(channel: string, reach: <T>(call: () => Promise<T>) => Promise<T>, client: webApi.WebClient, logger: Logger): Promise<void> {
  let info: webApi.ConversationsInfoResponse;
  try {
    info = await reach(() => client.conversations.info({ channel }));
  } catch (error) {
    if (!isPlatformError(error)) throw error;
    const code = error.data.error;
    if (code === 'missing_scope') {
      // Installs from before the channels:read/groups:read scopes: the first audit post will tell.
      logger.warn(`Could not verify AUDIT_CHANNEL_ID ${channel}: the app lacks the channels:read and groups:read scopes (see manifest.yml); reinstall the app to add them.`);
      return;
    }
    if (code === 'channel_not_found') throw new StartupError(`AUDIT_CHANNEL_ID ${channel}: no such channel, or a private channel the bot is not in. Set it to the audit channel's id and /invite @SubOps there.`);
    throw new StartupError(`AUDIT_CHANNEL_ID ${channel}: Slack answered ${code} when SubOps looked it up.`);
  }
  const name = info.channel?.name ? ` (#${info.channel.name})` : '';
  if (info.channel?.is_archived) throw new StartupError(`AUDIT_CHANNEL_ID ${channel}${name} is archived; the bot cannot post there. Set it to a live channel.`);
  // Direct messages have no membership to check; channels the bot is not in refuse its posts.
  if (info.channel?.is_member === false) throw new StartupError(`AUDIT_CHANNEL_ID ${channel}${name}: the bot is not a member, so it cannot post the audit trail there. Run /invite @SubOps in that channel.`);
}
