/**
 * Slack's side of the audit trail. `slackAuditSink` posts one message per audit record to the audit
 * channel (used by the Slack app and by the CLI). `createAuditor` builds what the app's listeners call:
 * it names the Slack user, links the operation's thread and hands the record to the services' Auditor
 * (the log line always, the audit channel when AUDIT_CHANNEL_ID is set). A record Slack does not take
 * is kept in the store and posted later, in order (./audit-outbox.ts); one the store cannot keep either
 * is logged, never thrown: the write has already happened and its own thread reports it.
 */
import { randomUUID } from 'node:crypto';
import type { webApi } from '@slack/bolt';
import type { Logger } from 'pino';
import { Auditor, logAuditSink, type AuditEntry, type AuditRecord, type AuditSink } from '../services/audit.js';
import type { TrailMessage } from '../services/digest/build.js';
import type { AuditSource } from '../services/digest/read.js';
import { AUDIT_EVENT_TYPE, auditMessage, auditMetadata, RECORD_ID_FIELD } from '../views/audit.js';
import { LATE_DUPLICATE_EVENT_TYPE } from '../views/duplicates.js';
import { UISP_CHANGE_EVENT_TYPE, WEBHOOK_FAILED_EVENT_TYPE } from '../views/uisp-changes.js';
import { believable, ownMessages, ownPermalink } from './audit-trail.js';
import type { RecordSeal } from './record-seal.js';
import { errorSummary } from './errors.js';
import type { BotIdentity } from './startup.js';
import { outboxSink, type MadeHere, type OutboxSink } from './audit-outbox.js';
import type { Store } from '../store/index.js';

/**
 * Posts each record, as this process makes it, to the audit channel; throws when Slack refuses (the
 * Auditor reports it). With the bot's `seal`, a record of a Slack user's operation is sealed; a CLI
 * record never is: only the bot's own records decide anything (./record-seal.ts).
 */
export function slackAuditSink(client: webApi.WebClient, channelId: string, seal?: RecordSeal, now: () => number = Date.now): AuditSink {
  const post = auditPoster(client, channelId, { seal });
  return { name: 'slack', write: (record) => post(record, { at: now(), id: randomUUID() }) };
}

/**
 * Posts one record: `made` when this process made it (sealed with the bot's seal, at the time it was
 * made, with its id: a copy of the message is the same record); undefined for a record read back from
 * the store, posted as data: never sealed, a thread link only when it is one of the workspace's own
 * permalinks, and a note that the bot does not vouch for it.
 */
function auditPoster(client: webApi.WebClient, channelId: string, self: Pick<BotIdentity, 'seal' | 'workspaceUrl'>) {
  return async (record: AuditRecord, made: MadeHere | undefined): Promise<void> => {
    const shown = made ? record : asData(record, self);
    // The metadata lets SubOps find the record again after a restart (the pending CRM–NMS links).
    const metadata = auditMetadata(shown);
    const sealed = made && self.seal && record.actor.via === 'slack' ? { ...metadata, event_payload: self.seal.seal(metadata.event_type, { ...metadata.event_payload, [RECORD_ID_FIELD]: made.id }, made.at) } : metadata;
    await client.chat.postMessage({ channel: channelId, ...auditMessage(shown, { readBack: !made }), metadata: sealed, unfurl_links: false });
  };
}

/** A record read back from the store, with its thread link only when it is one of the workspace's own permalinks. */
function asData({ permalink, ...facts }: AuditRecord, self: Pick<BotIdentity, 'workspaceUrl'>): AuditRecord {
  const own = ownPermalink(permalink, self);
  return { ...facts, ...(own && { permalink: own }) };
}

export interface SlackAuditEntry extends AuditEntry {
  actorId: string;
  /** Who approved the change, when it needed approval. */
  approvedBy?: string | undefined;
  /** The message that shows the operation (a thread parent), linked from the audit message. */
  thread?: { channel: string; ts: string } | undefined;
}

export interface SlackAuditor {
  record(entry: SlackAuditEntry): Promise<void>;
  /** With AUDIT_CHANNEL_ID: the records waiting in the store for Slack. */
  outbox: OutboxSink | undefined;
}

export interface AuditorOptions {
  client: webApi.WebClient;
  channelId: string | undefined;
  /** The bot's seal for its records (BotIdentity.seal). */
  seal?: RecordSeal | undefined;
  /** The workspace's address (BotIdentity.workspaceUrl): a record read back from the store links only its permalinks. */
  workspaceUrl?: string | undefined;
  logger: Logger;
  store: Pick<Store, 'outbox' | 'claims'>;
  sinks?: AuditSink[];
  /** Told of each outbox row set aside, not being an audit record (the metric). */
  onSetAside?: () => void;
}

export function createAuditor({ client, channelId, seal, workspaceUrl, logger, store, sinks: extra = [], onSetAside }: AuditorOptions): SlackAuditor {
  const outbox = channelId ? outboxSink({ post: auditPoster(client, channelId, { seal, workspaceUrl }), outbox: store.outbox, claims: store.claims, logger, seal, ...(onSetAside && { onSetAside }) }) : undefined;
  const sinks = [logAuditSink(logger), ...(outbox ? [outbox] : []), ...extra];
  const auditor = new Auditor(sinks, (sink, error, record) => {
    logger.error({ err: errorSummary(error), sink, auditChannel: channelId, action: record.action }, 'could not post to the audit channel (is the bot a member?)');
  });
  return {
    outbox,
    async record({ actorId, thread, approvedBy, ...entry }) {
      const permalink = thread ? await permalinkOf(client, thread, logger) : undefined;
      await auditor.record({ ...entry, actor: { via: 'slack', userId: actorId }, ...(approvedBy && { approvedBy }), ...(permalink && { permalink }), ...(thread && { thread }) });
    },
  };
}

async function permalinkOf(client: webApi.WebClient, thread: { channel: string; ts: string }, logger: Logger): Promise<string | undefined> {
  try {
    return (await client.chat.getPermalink({ channel: thread.channel, message_ts: thread.ts })).permalink;
  } catch (error) {
    logger.warn({ err: errorSummary(error) }, 'could not get a permalink for the audit message');
    return undefined;
  }
}

/** The kinds of SubOps' audit-channel messages the digest reads, by their metadata event type. */
const TRAIL_KINDS: Record<string, TrailMessage['kind']> = {
  [AUDIT_EVENT_TYPE]: 'audit',
  [LATE_DUPLICATE_EVENT_TYPE]: 'late-duplicate',
  [UISP_CHANGE_EVENT_TYPE]: 'uisp-change',
  [WEBHOOK_FAILED_EVENT_TYPE]: 'webhook-failed',
};

/** Pages of 200 messages read for one digest: a day's audit trail and what came after it. */
const DIGEST_PAGES = 50;

/**
 * The audit channel as the digest reads it (the bot's and the CLI's): only messages SubOps wrote (an
 * audit record naming a Slack user only with the bot's seal, once however often it was posted, at the
 * time it was made), and a thread link only when it is one of this workspace's own permalinks.
 */
export function auditTrailSource(client: webApi.WebClient, channelId: string, identity: BotIdentity): AuditSource {
  return async function* (from, to) {
    const bounds = { pages: DIGEST_PAGES, oldest: (from.getTime() / 1000).toFixed(6), latest: (to.getTime() / 1000).toFixed(6) };
    for await (const message of ownMessages(client, channelId, identity, Object.keys(TRAIL_KINDS), bounds)) {
      const { eventType, payload, sealedAt } = message;
      if (eventType === AUDIT_EVENT_TYPE && !believable(message, identity)) continue;
      const { permalink, seal: _seal, sealed_at: _sealedAt, [RECORD_ID_FIELD]: _record, ...facts } = payload;
      const own = ownPermalink(permalink, identity);
      // A sealed record is of the day it was made: a copy posted on a later day is not that day's.
      const ts = sealedAt === undefined ? message.ts : (sealedAt / 1000).toFixed(6);
      yield { ts, kind: TRAIL_KINDS[eventType]!, payload: own ? { ...facts, permalink: own } : facts };
    }
  };
}
