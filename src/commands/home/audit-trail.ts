/**
 * The audit trail read back from Slack: every audit message in AUDIT_CHANNEL_ID carries its record as
 * message metadata (src/views/audit.ts), so the Home tab lists recent operations without a database.
 * Only the records SubOps wrote are listed, and a record's thread link only when it is one of the
 * workspace's own permalinks (src/slack/audit-trail.ts): another app, or a person, posting the same
 * metadata puts nothing on anyone's Home tab, and a record naming a Slack user is listed only with the
 * bot's seal (one posted with the bot token by the CLI, or anyone else holding it, is not).
 */
import type { webApi } from '@slack/bolt';
import { z } from 'zod';
import { auditRecords, believable, ownPermalink } from '../../slack/audit-trail.js';
import type { BotIdentity } from '../../slack/startup.js';
import type { AuditLine } from '../../views/home.js';

const AuditPayload = z.looseObject({
  action: z.string(),
  result: z.string(),
  ok: z.boolean(),
  // Records posted before the actor was part of the metadata have none: they are not listed.
  actor_via: z.enum(['slack', 'cli']),
  actor: z.string(),
  summary: z.string().optional(),
  permalink: z.string().optional(),
});

/** Pages of 200 messages read at most: the Home tab shows recent work, not the whole history. */
const MAX_PAGES = 3;

/** The newest `limit` records of the team, and the newest `limit` of this Slack user (who may be older). */
export async function readAuditTrail(client: webApi.WebClient, channel: string, self: BotIdentity, userId: string, limit: number): Promise<{ mine: AuditLine[]; team: AuditLine[] }> {
  const mine: AuditLine[] = [];
  const team: AuditLine[] = [];
  for await (const record of auditRecords(client, channel, self, { pages: MAX_PAGES })) {
    const { ts, payload } = record;
    if (!believable(record, self)) continue;
    const parsed = AuditPayload.safeParse(payload);
    if (!parsed.success) continue;
    const line = auditLine(parsed.data, ts, self);
    if (team.length < limit) team.push(line);
    if (line.actor.via === 'slack' && line.actor.userId === userId && mine.length < limit) mine.push(line);
    if (mine.length >= limit && team.length >= limit) break;
  }
  return { mine, team };
}

function auditLine(payload: z.infer<typeof AuditPayload>, ts: string, self: BotIdentity): AuditLine {
  const { action, result, ok, actor_via: via, actor, summary = '' } = payload;
  return { action, result, ok, actor: via === 'slack' ? { via, userId: actor } : { via, username: actor }, summary, ts, permalink: ownPermalink(payload.permalink, self) };
}
