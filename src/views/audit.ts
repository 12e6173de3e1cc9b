/** The audit channel's one message per write: who, what, target ids, result and a link to the thread. */
import { escapeMrkdwn } from '../slack/escape.js';
import { link, mention } from './format.js';
import { context, message, section, type Block, type SlackMessage } from './kit.js';

export type AuditAction = 'activate' | 'suspend' | 'unsuspend' | 'payment';

export interface AuditRecord {
  actorId: string;
  action: AuditAction;
  /** Ids of what was acted on (device, client, service, site, payment…). */
  targets: Record<string, string | number>;
  /** e.g. activated, already-activated, failed, suspended, recorded. */
  result: string;
  ok: boolean;
  /** One sentence; raw text, escaped here. */
  summary: string;
  permalink?: string | undefined;
}

export function auditMessage(record: AuditRecord): SlackMessage {
  const icon = record.ok ? ':white_check_mark:' : ':x:';
  const headline = `${icon} *${record.action}* by ${mention(record.actorId)}: *${escapeMrkdwn(record.result)}*`;
  const targets = Object.entries(record.targets).map(([key, value]) => `${escapeMrkdwn(key)} \`${escapeMrkdwn(String(value))}\``);
  const blocks: Block[] = [section(`${headline}\n${escapeMrkdwn(record.summary)}`)];
  const meta = [targets.join('  ·  '), record.permalink ? link(record.permalink, 'thread') : ''].filter(Boolean);
  if (meta.length) blocks.push(context(meta.join('  ·  ')));
  return message(`${record.action} by ${mention(record.actorId)}: ${escapeMrkdwn(record.result)}`, blocks);
}
