/**
 * Reads the audit trail back from the audit channel: every SubOps process (bot replicas, CLI runs with
 * SLACK_BOT_TOKEN and AUDIT_CHANNEL_ID) posts its audit records there with message metadata, so a
 * webhook about a change another process made is recognised as SubOps' own and not posted again.
 * One conversations.history read serves every event that asks within `reuseMs` (a burst of webhooks
 * costs Slack a few calls, not one each).
 */
import type { webApi } from '@slack/bolt';
import { auditRecordMakes, type RecordedElsewhere } from '../services/events/own-changes.js';
import { AUDIT_EVENT_TYPE } from '../views/audit.js';

export interface AuditTrailOptions {
  client: webApi.WebClient;
  channelId: string;
  /** How many of the channel's newest messages are searched (the CRM sends its webhooks within seconds). Default 200. */
  depth?: number;
  /** How long one read of the channel answers later questions. Default 2 s. */
  reuseMs?: number;
  now?: () => number;
}

type AuditPayload = Record<string, unknown>;

export function auditTrail({ client, channelId, depth = 200, reuseMs = 2_000, now = Date.now }: AuditTrailOptions): RecordedElsewhere {
  let last: { at: number; records: Promise<AuditPayload[]> } | undefined;
  const read = async (): Promise<AuditPayload[]> => {
    const answer = await client.conversations.history({ channel: channelId, limit: depth, include_all_metadata: true });
    return (answer.messages ?? []).flatMap((message) => (message.metadata?.event_type === AUDIT_EVENT_TYPE ? [message.metadata.event_payload as AuditPayload] : []));
  };
  return async (change) => {
    if (!last || now() - last.at > reuseMs) {
      last = { at: now(), records: read() };
      // A failed read is not kept: the next question reads again.
      last.records.catch(() => (last = undefined));
    }
    return (await last.records).some((record) => auditRecordMakes(record, change));
  };
}
