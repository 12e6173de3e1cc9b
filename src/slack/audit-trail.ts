/**
 * The audit trail read back from the audit channel: every SubOps process (bot replicas, CLI runs with
 * SLACK_BOT_TOKEN and AUDIT_CHANNEL_ID) posts its audit records there with message metadata
 * (src/views/audit.ts), so SubOps can list recent operations (the Home tab) and recognise a webhook about
 * a change another process made as SubOps' own, without a database.
 *
 * Anyone with an app in the channel can post a message with the same metadata, and so can a person:
 * what is read back counts only when SubOps wrote it (`writtenBySubOps`: the bot_id, and the app_id when
 * both are known, that auth.test named at start). Every SubOps process posts with the same bot token,
 * the CLI included, and so may anyone the token was given to: a record decides something (a UISP change
 * is SubOps' own and not reported; an audit record names a Slack user as the actor) only with the bot's
 * seal (./record-seal.ts). The CLI's own records are listed, as the CLI's.
 */
import type { webApi } from '@slack/bolt';
import { auditRecordMakes, OWN_CHANGE_WINDOW_MS, type RecordedElsewhere } from '../services/events/own-changes.js';
import { AUDIT_EVENT_TYPE, RECORD_ID_FIELD } from '../views/audit.js';
import type { BotIdentity } from './startup.js';

/** Who wrote a message, as Slack stamps it on what conversations.history and .replies answer. */
export interface MessageAuthor {
  bot_id?: string | undefined;
  app_id?: string | undefined;
}

/**
 * True when SubOps posted this message: Slack stamped SubOps' bot_id on it (and its app_id, when the
 * message and auth.test both name one). A person's message has no bot_id; another app's has its own.
 */
export function writtenBySubOps(message: MessageAuthor, self: Pick<BotIdentity, 'botId' | 'appId'>): boolean {
  if (!message.bot_id || message.bot_id !== self.botId) return false;
  return !self.appId || !message.app_id || message.app_id === self.appId;
}

/**
 * The permalink when it is one of this workspace's own message links (`https://<team>.slack.com/archives/…`,
 * the address auth.test gave at start); undefined for anything else, and when the workspace is unknown.
 */
export function ownPermalink(permalink: unknown, self: Pick<BotIdentity, 'workspaceUrl'>): string | undefined {
  if (typeof permalink !== 'string' || !self.workspaceUrl) return undefined;
  let workspace: URL;
  let link: URL;
  try {
    workspace = new URL(self.workspaceUrl);
    link = new URL(permalink);
  } catch {
    return undefined;
  }
  const own = workspace.protocol === 'https:' && link.protocol === 'https:' && link.host === workspace.host && !link.username && !link.password && !link.hash;
  // Slack's message permalinks: /archives/<conversation>/p<ts without its dot>, a reply's with ?thread_ts=…&cid=….
  const shaped = /^\/archives\/[A-Z0-9]+\/p\d+$/.test(link.pathname) && /^(\?thread_ts=\d+\.\d+&cid=[A-Z0-9]+)?$/.test(link.search);
  return own && shaped && !/[<>|\s]/.test(permalink) ? permalink : undefined;
}

export interface AuditMessage {
  ts: string;
  /** The record's facts as its metadata carries them: action, result, ok, target ids, actor… */
  payload: Record<string, unknown>;
  /** When the bot's seal on it verifies: the time it was sealed (ms); undefined for any other record (the CLI's). */
  sealedAt: number | undefined;
}

/**
 * Whether an audit record may be shown for what it says: the bot's (sealed), or one naming a CLI user
 * (the CLI posts those, unsealed); an unsealed record naming a Slack user was not written by the bot. A
 * reader without the seal (the CLI's digest) takes what SubOps' bot_id is on.
 */
export function believable(record: Pick<AuditMessage, 'payload' | 'sealedAt'>, self: Pick<BotIdentity, 'seal'>): boolean {
  return !self.seal || record.sealedAt !== undefined || record.payload.actor_via === 'cli';
}

export interface AuditReadOptions {
  /** Pages of 200 messages read at most. */
  pages: number;
  /** Only messages posted after this Slack ts (seconds since the epoch). */
  oldest?: string | undefined;
}

/** The audit records SubOps wrote to the channel, newest first, a page of 200 messages at a time (each with whether the bot sealed it). */
export async function* auditRecords(client: webApi.WebClient, channelId: string, self: BotIdentity, options: AuditReadOptions): AsyncGenerator<AuditMessage> {
  for await (const { ts, payload, sealedAt } of ownMessages(client, channelId, self, [AUDIT_EVENT_TYPE], options)) yield { ts, payload, sealedAt };
}

/**
 * SubOps' own messages in the channel whose metadata is one of `eventTypes`, newest first. A sealed
 * record is one message: a copy of it posted again (anyone holding the bot token can) carries the same
 * sealed record id and is left out, so a record counts once wherever records are counted.
 */
export async function* ownMessages(
  client: webApi.WebClient,
  channelId: string,
  self: BotIdentity,
  eventTypes: readonly string[],
  { pages, oldest, latest }: AuditReadOptions & { latest?: string | undefined },
): AsyncGenerator<AuditMessage & { eventType: string }> {
  let cursor: string | undefined;
  const records = new Set<unknown>();
  for (let page = 0; page < pages; page++) {
    const history = await client.conversations.history({ channel: channelId, include_all_metadata: true, limit: 200, ...(oldest && { oldest }), ...(latest && { latest }), ...(cursor && { cursor }) });
    for (const message of history.messages ?? []) {
      const eventType = message.metadata?.event_type;
      if (!message.ts || !eventType || !eventTypes.includes(eventType) || !writtenBySubOps(message, self)) continue;
      const payload = message.metadata!.event_payload as Record<string, unknown>;
      const sealedAt = self.seal?.verify(eventType, payload);
      const record = sealedAt === undefined ? undefined : payload[RECORD_ID_FIELD];
      if (record !== undefined) {
        if (records.has(record)) continue;
        records.add(record);
      }
      yield { ts: message.ts, eventType, payload, sealedAt };
    }
    cursor = history.response_metadata?.next_cursor || undefined;
    if (!history.has_more || !cursor) return;
  }
}

export interface AuditTrailOptions {
  client: webApi.WebClient;
  channelId: string;
  /** SubOps in Slack (auth.test at start): only its own records count. */
  identity: BotIdentity;
  /** How long one read of the channel answers later questions (a burst of webhooks costs Slack a few calls). Default 2 s. */
  reuseMs?: number;
  now?: () => number;
}

/** Pages of 200 messages read for the last OWN_CHANGE_WINDOW_MS: records beyond them are not looked for (the change is reported). */
const RECENT_PAGES = 5;

/**
 * SubOps' own changes made in other bot processes, as the audit records they sealed in the last
 * OWN_CHANGE_WINDOW_MS show: a record explains a change only when its write changed something and it was
 * sealed within that window of the change (auditRecordMakes). A record without the bot's seal (the CLI's,
 * or one posted by anyone holding the bot token) explains nothing: the change is reported.
 *
 * The change's time: UISP's record of a webhook event (GET /webhook-events/{uuid}, the CRM API
 * blueprint's WebhookEvent: uuid, changeType, entity, entityId) carries none, and UISP sends the webhook
 * as it makes the change, so the best time available is when the webhook processor asks, seconds after
 * the delivery (longer only while UISP reads are retried); it is compared with the record's message ts.
 */
export function auditTrail({ client, channelId, identity, reuseMs = 2_000, now = Date.now }: AuditTrailOptions): RecordedElsewhere {
  let last: { at: number; records: Promise<AuditMessage[]> } | undefined;
  const read = async (at: number) => {
    const records: AuditMessage[] = [];
    // The window before the oldest question this read answers (reused for up to reuseMs).
    const oldest = ((at - OWN_CHANGE_WINDOW_MS) / 1000).toFixed(6);
    for await (const record of auditRecords(client, channelId, identity, { pages: RECENT_PAGES, oldest })) records.push(record);
    return records;
  };
  return async (change) => {
    const changedAt = now();
    if (!last || changedAt - last.at > reuseMs) {
      const reading = { at: changedAt, records: read(changedAt) };
      last = reading;
      // A failed read is not kept: the next question reads again.
      reading.records.catch(() => {
        if (last === reading) last = undefined;
      });
    }
    return (await last.records).some(({ payload, sealedAt }) => sealedAt !== undefined && auditRecordMakes(payload, change, { recordedAt: sealedAt, changedAt }));
  };
}
