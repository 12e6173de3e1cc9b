/**
 * An audit record read back from where it waited (the store's outbox): data, never trusted for being
 * there. It is taken only in the shape SubOps makes (./audit.ts), with bounds: an action SubOps knows,
 * flat targets named like SubOps names them (never a metadata field of the audit message: `permalink`,
 * `seal`, `thread_ts`…), Slack ids shaped as Slack's. What it says is still escaped where it is shown.
 */
import { z } from 'zod';
import type { AuditAction, AuditRecord } from './audit.js';

const ACTIONS = ['activate', 'suspend', 'unsuspend', 'payment', 'remove-duplicate'] as const satisfies readonly AuditAction[];

/** The audit message's own metadata fields (src/views/audit.ts): a target never takes one of their names. */
const METADATA_FIELDS = new Set(['action', 'result', 'ok', 'actor', 'summary', 'permalink', 'seal']);

/** Slack user and conversation ids: capital letters and digits. */
const slackId = z.string().regex(/^[A-Z0-9]{2,32}$/);

const AuditRecordShape = z.object({
  action: z.enum(ACTIONS),
  // camelCase names (deviceId, serviceId…): no snake_case metadata field (actor_via, record_id, sealed_at) either.
  targets: z.record(
    z.string().regex(/^[a-z][A-Za-z0-9]{0,39}$/).refine((name) => !METADATA_FIELDS.has(name)),
    z.union([z.string().max(200), z.number().finite()]),
  ),
  result: z.string().regex(/^[a-z][a-z-]{0,39}$/),
  ok: z.boolean(),
  summary: z.string().max(3_000),
  actor: z.discriminatedUnion('via', [z.object({ via: z.literal('slack'), userId: slackId }), z.object({ via: z.literal('cli'), username: z.string().min(1).max(64) })]),
  approvedBy: slackId.optional(),
  permalink: z.string().max(500).optional(),
  thread: z.object({ channel: slackId, ts: z.string().regex(/^\d{1,12}\.\d{1,9}$/) }).optional(),
});

export type StoredAuditRecord = { record: AuditRecord } | { problems: string[] };

/** The record when the row is one, else where it is not (field paths, for the log line). */
export function storedAuditRecord(row: unknown): StoredAuditRecord {
  const parsed = AuditRecordShape.safeParse(row);
  if (parsed.success) return { record: parsed.data };
  return { problems: parsed.error.issues.slice(0, 5).map((issue) => `${issue.path.join('.') || '(record)'}: ${issue.code}`) };
}
