/**
 * The audit trail read back from the audit channel: every SubOps process (bot replicas, CLI runs with
 * SLACK_BOT_TOKEN and AUDIT_CHANNEL_ID) posts its audit records there with message metadata
 * (src/views/audit.ts), so SubOps can list recent operations (the Home tab) and recognise a webhook about
 * a change another process made as SubOps' own, without a database.
 */
import type { webApi } from '@slack/bolt';
import { auditRecordMakes, type RecordedElsewhere } from '../services/events/own-changes.js';
import { AUDIT_EVENT_TYPE } from '../views/audit.js';

export interface AuditMessage {
  ts: string;
  /** The record's facts as its metadata carries them: action, result, ok, target ids, actor… */
  payload: Record<string, unknown>;
}

/** The channel's audit records, newest first, a page of 200 messages at a time, at most `pages` pages. */
export async function* auditRecords(client: webApi.WebClient, channelId: string, pages: number): AsyncGenerator<AuditMessage> {
  let cursor: string | undefined;
  for (let page = 0; page < pages; page++) {
    const history = await client.conversations.history({ channel: channelId, include_all_metadata: true, limit: 200, ...(cursor && { cursor }) });
    for (const message of history.messages ?? []) {
      if (message.ts && message.metadata?.event_type === AUDIT_EVENT_TYPE) yield { ts: message.ts, payload: message.metadata.event_payload as Record<string, unknown> };
    }
    cursor = history.response_metadata?.next_cursor || undefined;
    if (!history.has_more || !cursor) return;
  }
}

export interface AuditTrailOptions {
  client: webApi.WebClient;
  channelId: string;
  /** How long one read of the channel answers later questions (a burst of webhooks costs Slack a few calls). Default 2 s. */
  reuseMs?: number;
  now?: () => number;
}

/** SubOps' own changes made in other processes, as their audit records in the channel's 200 newest messages show. */
export function auditTrail({ client, channelId, reuseMs = 2_000, now = Date.now }: AuditTrailOptions): RecordedElsewhere {
  let last: { at: number; records: Promise<AuditMessage[]> } | undefined;
  const read = async () => {
    const records: AuditMessage[] = [];
    for await (const record of auditRecords(client, channelId, 1)) records.push(record);
    return records;
  };
  return async (change) => {
    if (!last || now() - last.at > reuseMs) {
      last = { at: now(), records: read() };
      // A failed read is not kept: the next question reads again.
      last.records.catch(() => (last = undefined));
    }
    return (await last.records).some(({ payload }) => auditRecordMakes(payload, change));
  };
}
