/**
 * Slack as the arbiter between SubOps processes, without a database of SubOps' own: what must happen
 * once (an approval acted on, a day's digest posted) is claimed by posting a message that carries the
 * claim in its metadata, then reading the conversation back. Among SubOps' own messages with the same
 * claim, the earliest ts wins; a process whose message is not the earliest deletes it again and does
 * nothing, so the conversation shows one claim.
 *
 * Why this holds: Slack gives every message of a conversation a unique, increasing ts. Each process
 * posts before it reads, so of two concurrent claims the later-posted one's read already shows the
 * earlier one (Slack answers reads from what it has stored), and only the earliest ever sees itself first.
 * Messages written by anyone but SubOps' bot never count (writtenBySubOps).
 */
import type { webApi } from '@slack/bolt';
import type { Logger } from 'pino';
import { writtenBySubOps } from './audit-trail.js';
import { errorSummary } from './errors.js';
import type { BotIdentity } from './startup.js';

export interface ClaimPlace {
  channel: string;
  /** A thread: its replies are read (conversations.replies). Otherwise the channel's history. */
  threadTs?: string | undefined;
  /** Channel history only: claims posted after this ts (seconds since the epoch) are read. */
  oldest?: string | undefined;
}

export interface ClaimMessage {
  text: string;
  blocks?: unknown[];
  /** The claim's facts; `claim` is added. */
  payload: Record<string, string | number | boolean>;
}

/** One SubOps message carrying a claim, as read back. */
export interface SeenClaim {
  ts: string;
  payload: Record<string, unknown>;
}

/** Orders Slack timestamps ("seconds.micros") exactly, without floating point. */
export function compareTs(a: string, b: string): number {
  const [aSeconds = '0', aMicros = '0'] = a.split('.');
  const [bSeconds = '0', bMicros = '0'] = b.split('.');
  return Number(aSeconds) - Number(bSeconds) || Number(aMicros.padEnd(6, '0')) - Number(bMicros.padEnd(6, '0'));
}

interface ClaimDeps {
  client: webApi.WebClient;
  identity: BotIdentity;
  logger: Logger;
}

/** Pages of conversation read when looking for claims. */
const CLAIM_PAGES = 5;

/** SubOps' own messages in the place whose metadata is `eventType` with this claim key, earliest first. */
export async function readClaims({ client, identity }: Omit<ClaimDeps, 'logger'>, place: ClaimPlace, eventType: string, key: string): Promise<SeenClaim[]> {
  const found: SeenClaim[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < CLAIM_PAGES; page++) {
    const answer = place.threadTs
      ? await client.conversations.replies({ channel: place.channel, ts: place.threadTs, include_all_metadata: true, limit: 200, ...(cursor && { cursor }) })
      : await client.conversations.history({ channel: place.channel, include_all_metadata: true, limit: 200, ...(place.oldest && { oldest: place.oldest }), ...(cursor && { cursor }) });
    for (const message of answer.messages ?? []) {
      const payload = message.metadata?.event_payload as Record<string, unknown> | undefined;
      if (!message.ts || message.metadata?.event_type !== eventType || payload?.claim !== key || !writtenBySubOps(message, identity)) continue;
      found.push({ ts: message.ts, payload });
    }
    cursor = answer.response_metadata?.next_cursor || undefined;
    if (!answer.has_more || !cursor) break;
  }
  return found.sort((a, b) => compareTs(a.ts, b.ts));
}

export type ClaimOutcome = { won: true; ts: string } | { won: false; winner: SeenClaim };

/**
 * Posts the claim, reads the place back and keeps the message only when it is the earliest claim.
 * Slack failures are thrown (nothing was claimed, or the claim stands unconfirmed: the caller says so).
 */
export async function claimFirst(deps: ClaimDeps, place: ClaimPlace, eventType: string, key: string, message: ClaimMessage): Promise<ClaimOutcome> {
  const { client, logger } = deps;
  const posted = await client.chat.postMessage({
    channel: place.channel,
    ...(place.threadTs && { thread_ts: place.threadTs }),
    text: message.text,
    ...(message.blocks && { blocks: message.blocks as never }),
    metadata: { event_type: eventType, event_payload: { ...message.payload, claim: key } },
    unfurl_links: false,
  });
  const ts = posted.ts!;
  const claims = await readClaims(deps, place, eventType, key);
  const winner = claims[0];
  if (!winner || compareTs(winner.ts, ts) >= 0) return { won: true, ts };
  try {
    await client.chat.delete({ channel: place.channel, ts });
  } catch (error) {
    logger.warn({ err: errorSummary(error), claim: key }, 'could not delete a claim that came second; the earlier one stands');
  }
  return { won: false, winner };
}
