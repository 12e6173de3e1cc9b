/**
 * What an operation's thread is told when the SubOps process running it stopped hard (./in-flight.ts):
 * recorded in the store as a kind and ids, never as a message, and rebuilt from SubOps' own views when it
 * is posted. Read back from the store, a notice is data: parsed here, every text in it escaped by the
 * view that shows it, and a Retry carrying only what SubOps recorded (its check says so).
 */
import { z } from 'zod';
import { activationStopped } from '../views/activation-progress.js';
import { approvedRunStopped } from '../views/approvals.js';
import { sheetStopped } from '../views/sheet.js';
import type { SlackMessage } from '../views/kit.js';
import { suspensionStopped } from '../views/suspension.js';
import { RetryValueSchema, SheetContinueSchema, SuspensionActionSchema } from './metadata.js';

/** A Slack id (channel, user) as Slack makes them: letters and digits only. */
export const SlackIdSchema = z.string().regex(/^[A-Z0-9]{1,40}$/);

export const StopNoticeSchema = z.discriminatedUnion('kind', [
  /** An activation's own thread: what stopped, and Retry with what the run had (request, who started it, what was confirmed, its approval). */
  z.object({ kind: z.literal('activation'), retry: RetryValueSchema }),
  z.object({ kind: z.literal('suspension'), action: SuspensionActionSchema, serviceId: z.number().int().positive(), clientId: z.number().int().positive() }),
  /** An approval request's thread: its requester and approver are told. */
  z.object({ kind: z.literal('approved-run'), requester: SlackIdSchema, approver: SlackIdSchema }),
  /** An install sheet's thread: Continue names the sheet as the store keeps it (its rows, and which ended) and the approval it ran under. */
  z.object({ kind: z.literal('sheet'), continueWith: SheetContinueSchema, startedBy: SlackIdSchema }),
]);
export type StopNotice = z.infer<typeof StopNoticeSchema>;

/** The thread's message for a notice, from SubOps' own templates. */
export function stopMessage(notice: StopNotice): SlackMessage {
  switch (notice.kind) {
    case 'activation':
      return activationStopped(notice.retry.request, notice.retry.startedBy, notice.retry.confirm, notice.retry.approvalId);
    case 'suspension':
      return suspensionStopped(notice.action, notice.serviceId, notice.clientId);
    case 'approved-run':
      return approvedRunStopped(notice.requester, notice.approver);
    case 'sheet':
      return sheetStopped(notice.startedBy, notice.continueWith);
  }
}
