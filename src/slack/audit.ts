/**
 * The audit trail: every write (activation, suspend, unsuspend, payment) posts one message to
 * AUDIT_CHANNEL_ID and logs one structured line with the same fields. Failing to post is logged, never
 * thrown: the write has already happened and its own thread reports it.
 */
import type { webApi } from '@slack/bolt';
import type { Logger } from 'pino';
import { auditMessage, type AuditRecord } from '../views/audit.js';
import { errorSummary } from './errors.js';

export interface AuditEntry extends Omit<AuditRecord, 'permalink'> {
  /** The message that shows the operation (a thread parent), linked from the audit message. */
  thread?: { channel: string; ts: string } | undefined;
}

export interface Auditor {
  record(entry: AuditEntry): Promise<void>;
}

export function createAuditor({ client, channelId, logger }: { client: webApi.WebClient; channelId: string | undefined; logger: Logger }): Auditor {
  return {
    async record({ thread, ...entry }) {
      const permalink = thread ? await permalinkOf(client, thread, logger) : undefined;
      const record: AuditRecord = { ...entry, ...(permalink && { permalink }) };
      logger.info({ audit: true, actor: record.actorId, action: record.action, targets: record.targets, result: record.result, ok: record.ok, permalink: record.permalink }, record.summary);
      if (!channelId) return;
      try {
        await client.chat.postMessage({ channel: channelId, ...auditMessage(record), unfurl_links: false });
      } catch (error) {
        logger.error({ err: errorSummary(error), auditChannel: channelId, action: record.action }, 'could not post to the audit channel (is the bot a member?)');
      }
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
