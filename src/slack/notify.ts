/**
 * Telling the agent something privately, by whatever route works: an ephemeral message in the channel,
 * the command's response_url (which works even where the bot is not a member), or a DM from the bot.
 * Used when Slack refused to show progress, so a failure never leaves the agent guessing.
 */
import type { webApi } from '@slack/bolt';
import type { Logger } from 'pino';
import type { SlackMessage } from '../views/kit.js';
import { errorSummary } from './errors.js';
import type { Origin } from './metadata.js';

export async function tellAgent(client: webApi.WebClient, origin: Origin, msg: SlackMessage, logger: Logger): Promise<boolean> {
  const routes: [string, () => Promise<unknown>][] = [
    ['chat.postEphemeral', () => client.chat.postEphemeral({ channel: origin.channelId, user: origin.userId, ...msg })],
    ...(origin.responseUrl ? ([['response_url', () => postToResponseUrl(origin.responseUrl!, msg)]] as [string, () => Promise<unknown>][]) : []),
    ['direct message', () => client.chat.postMessage({ channel: origin.userId, ...msg })],
  ];
  for (const [route, send] of routes) {
    try {
      await send();
      return true;
    } catch (error) {
      logger.warn({ err: errorSummary(error), route, userId: origin.userId }, 'could not reach the agent this way; trying the next');
    }
  }
  logger.error({ userId: origin.userId, text: msg.text }, 'could not tell the agent by any route');
  return false;
}

/** Answers through a response_url (ephemeral); `replaceOriginal` replaces the message it came from. */
export async function postToResponseUrl(url: string, msg: SlackMessage, replaceOriginal = false): Promise<void> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ response_type: 'ephemeral', replace_original: replaceOriginal, ...msg }),
    signal: AbortSignal.timeout(5_000),
  });
  if (!response.ok) throw new Error(`response_url answered HTTP ${response.status}`);
}
