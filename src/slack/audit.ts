/**
 * Slack's side of the audit trail. `slackAuditSink` posts one message per audit record to the audit
 * channel (used by the Slack app and by the CLI). `createAuditor` builds what the app's listeners call:
 * it names the Slack user, links the operation's thread and hands the record to the services' Auditor
 * (the log line always, the audit channel when AUDIT_CHANNEL_ID is set). Failing to post is logged,
 * never thrown: the write has already happened and its own thread reports it.
 */
import type { webApi } from '@slack/bolt';
import type { Logger } from 'pino';
import { Auditor, logAuditSink, type AuditEntry, type AuditSink } from '../services/audit.js';
import { auditMessage, auditMetadata } from '../views/audit.js';
import { errorSummary } from './errors.js';

/** Posts each record to the audit channel; throws when Slack refuses (the Auditor reports it). */
export function slackAuditSink(client: webApi.WebClient, channelId: string): AuditSink {
  return {
    name: 'slack',
    async write(record) {
      // The metadata lets SubOps find the record again after a restart (the pending CRM–NMS links).
      await client.chat.postMessage({ channel: channelId, ...auditMessage(record), metadata: auditMetadata(record), unfurl_links: false });
    },
  };
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
}

export function createAuditor({ client, channelId, logger, sinks: extra = [] }: { client: webApi.WebClient; channelId: string | undefined; logger: Logger; sinks?: AuditSink[] }): SlackAuditor {
  const sinks = [logAuditSink(logger), ...(channelId ? [slackAuditSink(client, channelId)] : []), ...extra];
  const auditor = new Auditor(sinks, (sink, error, record) => {
    logger.error({ err: errorSummary(error), sink, auditChannel: channelId, action: record.action }, 'could not post to the audit channel (is the bot a member?)');
  });
  return {
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
