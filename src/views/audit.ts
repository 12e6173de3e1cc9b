/** The audit channel's one message per write: who, what, target ids, result and a link to the thread. */
import type { AuditActor, AuditRecord } from '../services/audit.js';
import { escapeMrkdwn } from '../slack/escape.js';
import { link, mention } from './format.js';
import { context, message, section, type Block, type SlackMessage } from './kit.js';

/** A Slack user is mentioned; a CLI user is named by their operating-system login, marked "(CLI)". */
function actorText(actor: AuditActor): string {
  return actor.via === 'slack' ? mention(actor.userId) : `${escapeMrkdwn(actor.username)} (CLI)`;
}

const READ_BACK_NOTE = ":grey_question: Posted from SubOps' store, where it waited: the bot does not vouch for it.";

/**
 * `readBack`: the record was read back from SubOps' store, not made by the process posting it, which
 * does not vouch for it (src/slack/audit-outbox.ts): the message says so.
 */
export function auditMessage(record: AuditRecord, { readBack = false }: { readBack?: boolean } = {}): SlackMessage {
  const icon = record.ok ? ':white_check_mark:' : ':x:';
  const who = actorText(record.actor);
  const approval = record.approvedBy ? `, approved by ${mention(record.approvedBy)}` : '';
  const headline = `${icon} *${escapeMrkdwn(record.action)}* by ${who}${approval}: *${escapeMrkdwn(record.result)}*`;
  const targets = Object.entries(record.targets).map(([key, value]) => `${escapeMrkdwn(key)} \`${escapeMrkdwn(String(value))}\``);
  const blocks: Block[] = [section(`${headline}\n${escapeMrkdwn(record.summary)}`)];
  const meta = [targets.join('  ·  '), record.permalink ? link(record.permalink, 'thread') : ''].filter(Boolean);
  if (meta.length) blocks.push(context(meta.join('  ·  ')));
  if (readBack) blocks.push(context(READ_BACK_NOTE));
  return message(`${escapeMrkdwn(record.action)} by ${who}: ${escapeMrkdwn(record.result)}`, blocks);
}


/** Slack message metadata of an audit message: the record's facts, flat, and the operation's thread. */
export const AUDIT_EVENT_TYPE = 'subops_audit';

/** The metadata field naming the record a sealed audit message carries (one id per record made): a copy of the message is the same record. */
export const RECORD_ID_FIELD = 'record_id';

/** How much of the summary the metadata keeps: enough for a line on the Home tab. */
const METADATA_SUMMARY_CHARS = 300;

/**
 * Every audit message carries it, so the bot reads its own trail back without a database: the pending
 * CRM–NMS links after a restart (activations) and the Home tab's recent operations (all records).
 * `actor` is the Slack user id, or the CLI user's login with `actor_via: 'cli'`.
 */
export function auditMetadata(record: AuditRecord): { event_type: string; event_payload: Record<string, string | number | boolean> } {
  return {
    event_type: AUDIT_EVENT_TYPE,
    event_payload: {
      ...record.targets,
      action: record.action,
      result: record.result,
      ok: record.ok,
      actor_via: record.actor.via,
      actor: record.actor.via === 'slack' ? record.actor.userId : record.actor.username,
      summary: record.summary.slice(0, METADATA_SUMMARY_CHARS),
      ...(record.approvedBy && { approved_by: record.approvedBy }),
      ...(record.permalink && { permalink: record.permalink }),
      ...(record.thread && { thread_channel: record.thread.channel, thread_ts: record.thread.ts }),
    },
  };
}
