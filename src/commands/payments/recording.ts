/**
 * Recording a payment once it is decided (the form submitted, or its approval given): the CRM write,
 * then the channel message and the audit record through the thread reporter, or the failure's audit
 * record. The same submission or approval received twice records one payment (`operationKey`).
 */
import type { Logger } from 'pino';
import { paymentAudit, paymentFailureAudit } from '../../services/audit-records.js';
import { InputError } from '../../services/errors.js';
import type { PaymentInput, RecordedPayment } from '../../services/payments.js';
import type { ListenerDeps } from '../../slack/deps.js';
import { describeFailure } from '../../slack/errors.js';
import type { Origin } from '../../slack/metadata.js';
import { approvedNote } from '../../views/approvals.js';
import { paymentRecordedMessage } from '../../views/payments.js';
import { threadNotPosted } from '../../views/thread-not-posted.js';

export type PaymentRecording = { ok: true; recorded: RecordedPayment } | { ok: false; error: unknown; failure: ReturnType<typeof describeFailure> };

export async function recordPayment(
  deps: ListenerDeps,
  {
    input,
    origin,
    operationKey,
    approvedBy,
    logger,
    recordedFirst,
  }: {
    input: PaymentInput;
    origin: Origin;
    operationKey: string;
    approvedBy?: string | undefined;
    logger: Logger;
    /** Told as soon as the CRM has the payment, before the channel message (the form shows it at once). */
    recordedFirst?: (recorded: RecordedPayment) => Promise<unknown>;
  },
): Promise<PaymentRecording> {
  let recorded: RecordedPayment;
  try {
    recorded = await deps.services.payments.record(input, { operationKey });
  } catch (error) {
    const failure = describeFailure(error);
    if (!failure.expected) logger.error({ err: error }, 'recording a payment failed');
    // Input errors stop before the write; anything else reached UISP and belongs in the audit trail.
    if (!(error instanceof InputError)) await deps.audit.record({ actorId: origin.userId, approvedBy, ...paymentFailureAudit(input, failure) });
    return { ok: false, error, failure };
  }
  await recordedFirst?.(recorded);
  // A repeated submission: the first one posted the message and the audit record.
  if (recorded.alreadyRecorded) return { ok: true, recorded };
  // The message is the operation's whole thread (an approval adds who approved it). When Slack refuses it, the agent gets it privately.
  const message = paymentRecordedMessage(recorded, origin.userId);
  const report = deps.reporter.start({ origin, parent: message, logger });
  if (approvedBy) report.reply(approvedNote(approvedBy));
  await report.finish({ audit: { actorId: origin.userId, approvedBy, ...paymentAudit(recorded) }, whenSlackRefused: (problems) => threadNotPosted(origin.channelId, problems, message) });
  return { ok: true, recorded };
}
