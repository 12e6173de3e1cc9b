/**
 * Approval requests kept in Slack (their shape: ApprovalRequestSchema in ./metadata.ts), not in a database of SubOps' own: each request is a message SubOps
 * posts in the approvals channel, carrying the whole request (who asked, what exactly, until when) in
 * its metadata; each decision is a reply in its thread, claimed with claimFirst so that one decision
 * stands even when two approvers, or two replicas, act at the same moment. After a restart, on any
 * replica, the requests and their decisions are read back from the channel; only messages SubOps' own
 * bot wrote count.
 */
import type { webApi } from '@slack/bolt';
import type { Logger } from 'pino';
import { z } from 'zod';
import type { Decision } from '../services/approvals.js';
import { writtenBySubOps } from './audit-trail.js';
import { claimFirst, readClaims, type ClaimMessage, type ClaimOutcome } from './first-claim.js';
import { ApprovalRequestSchema, type ApprovalRequest, type StoredRequest } from './metadata.js';
import type { BotIdentity } from './startup.js';

const APPROVAL_REQUEST_EVENT = 'subops_approval_request';
export const APPROVAL_DECISION_EVENT = 'subops_approval_decision';

/** The request message's metadata: the request as one JSON string (Slack keeps metadata values flat). */
export function requestMetadata(request: ApprovalRequest): { event_type: string; event_payload: Record<string, string> } {
  return { event_type: APPROVAL_REQUEST_EVENT, event_payload: { request: JSON.stringify(ApprovalRequestSchema.parse(request)) } };
}

interface SlackMessageLike {
  ts?: string | undefined;
  bot_id?: string | undefined;
  app_id?: string | undefined;
  metadata?: { event_type?: string; event_payload?: unknown } | undefined;
}

/** The request a SubOps message carries, or undefined for any other message (another app's, a person's, malformed). */
function requestOf(message: SlackMessageLike, identity: BotIdentity): ApprovalRequest | undefined {
  if (message.metadata?.event_type !== APPROVAL_REQUEST_EVENT || !writtenBySubOps(message, identity)) return undefined;
  const raw = (message.metadata.event_payload as { request?: unknown } | undefined)?.request;
  if (typeof raw !== 'string') return undefined;
  try {
    const parsed = ApprovalRequestSchema.safeParse(JSON.parse(raw));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

const DecisionPayloadSchema = z.object({ decision: z.enum(['approved', 'rejected', 'expired']), by: z.string() });

interface StoreDeps {
  client: webApi.WebClient;
  identity: BotIdentity;
}

/** The decision standing in the request's thread (the earliest SubOps decision claim), if any. */
export async function readDecision({ client, identity }: StoreDeps, stored: StoredRequest): Promise<{ decision: Decision; by: string } | undefined> {
  const claims = await readClaims({ client, identity }, { channel: stored.channel, threadTs: stored.ts }, APPROVAL_DECISION_EVENT, stored.request.id);
  for (const claim of claims) {
    const parsed = DecisionPayloadSchema.safeParse(claim.payload);
    if (parsed.success) return parsed.data;
  }
  return undefined;
}

/** The request message at channel/ts as Slack has it now; undefined when it is not a SubOps request. */
export async function readRequest(deps: StoreDeps, channel: string, ts: string): Promise<StoredRequest | undefined> {
  const history = await deps.client.conversations.history({ channel, latest: ts, inclusive: true, limit: 1, include_all_metadata: true });
  const message = history.messages?.find((m) => m.ts === ts);
  const request = message && requestOf(message, deps.identity);
  return request ? { channel, ts, request } : undefined;
}

/** Pages of 200 messages read when listing requests. */
const REQUEST_PAGES = 5;

/**
 * The requests posted in the channel since `sinceMs` that have no decision yet (expired ones included:
 * the sweep decides those). Each request's thread is read for its decision.
 */
export async function readUndecided(deps: StoreDeps, channel: string, sinceMs: number): Promise<StoredRequest[]> {
  const found: StoredRequest[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < REQUEST_PAGES; page++) {
    const history = await deps.client.conversations.history({ channel, oldest: (sinceMs / 1000).toFixed(6), include_all_metadata: true, limit: 200, ...(cursor && { cursor }) });
    for (const message of history.messages ?? []) {
      const request = requestOf(message, deps.identity);
      if (!request || !message.ts) continue;
      const stored = { channel, ts: message.ts, request };
      if (!(await readDecision(deps, stored))) found.push(stored);
    }
    cursor = history.response_metadata?.next_cursor || undefined;
    if (!history.has_more || !cursor) break;
  }
  return found;
}

/** Claims the request's one decision: the first SubOps decision reply in its thread stands; a later one is deleted again. */
export function claimDecision(deps: StoreDeps & { logger: Logger }, stored: StoredRequest, decision: Decision, by: string, reply: Omit<ClaimMessage, 'payload'>): Promise<ClaimOutcome> {
  return claimFirst(deps, { channel: stored.channel, threadTs: stored.ts }, APPROVAL_DECISION_EVENT, stored.request.id, { ...reply, payload: { decision, by } });
}
