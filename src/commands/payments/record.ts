/**
 * Submission of the record-payment form: fields are checked before the ack (errors under the field),
 * the payment is recorded after it, then shown in the modal, posted in the channel and audited (through
 * the thread reporter).
 */
import type { App } from '@slack/bolt';
import { paymentAudit, paymentFailureAudit } from '../../services/audit-records.js';
import { InputError } from '../../services/errors.js';
import { onceView } from '../../slack/deliveries.js';
import type { ListenerDeps } from '../../slack/deps.js';
import { describeFailure } from '../../slack/errors.js';
import { decodeMetadata, PaymentMetaSchema } from '../../slack/metadata.js';
import { updateView } from '../../slack/modals.js';
import { readInputs } from '../../slack/state.js';
import { BLOCK, CALLBACK } from '../../views/ids.js';
import { threadNotPosted } from '../../views/thread-not-posted.js';
import { paymentForm, paymentRecordedMessage, paymentRecordedView, paymentRecording, type PaymentField } from '../../views/payments.js';

export function registerRecordForm(app: App, deps: ListenerDeps): void {
  app.view(CALLBACK.paymentForm, onceView(deps, async ({ ack, body, view, client }) => {
    const meta = decodeMetadata(PaymentMetaSchema, view.private_metadata);
    const origin = { ...meta.origin, userId: body.user.id };
    const inputs = readInputs(view.state.values);
    const ids = BLOCK.payment;
    const values: Partial<Record<PaymentField, string>> = { client: inputs[ids.clientId], amount: inputs[ids.amount], method: inputs[ids.method], note: inputs[ids.note] };
    const parsed = deps.services.payments.readInput(values);
    if (!parsed.ok) {
      await ack({ response_action: 'errors', errors: parsed.problems });
      return;
    }
    await ack({ response_action: 'update', view: paymentRecording() });
    const logger = deps.logger.child({ flow: 'payment', userId: origin.userId, clientId: parsed.input.clientId });
    const { payments } = deps.services;

    let recorded;
    try {
      // The view id names the operation: the same submission received twice records one payment.
      recorded = await payments.record(parsed.input, { operationKey: view.id });
    } catch (error) {
      const failure = describeFailure(error);
      if (!failure.expected) logger.error({ err: error }, 'recording a payment failed');
      const methods = await payments.listMethods().catch(() => []);
      const problem = failure.field ? { problems: { [failure.field]: failure.message } } : { notice: `${failure.message} ${failure.changed}` };
      await updateView(client, { viewId: view.id, view: paymentForm({ origin, methods, values, ...problem }) }, logger);
      // Input errors stop before the write; anything else reached UISP and belongs in the audit trail.
      if (!(error instanceof InputError)) {
        await deps.audit.record({ actorId: origin.userId, ...paymentFailureAudit(parsed.input, failure) });
      }
      return;
    }

    await updateView(client, { viewId: view.id, view: paymentRecordedView(recorded, origin) }, logger);
    // A repeated submission: the first one posted the message and the audit record.
    if (recorded.alreadyRecorded) return;
    // The message is the operation's whole thread: no replies. When Slack refuses it, the agent gets it privately.
    const message = paymentRecordedMessage(recorded, origin.userId);
    const report = deps.reporter.start({ origin, parent: message, logger });
    await report.finish({ audit: { actorId: origin.userId, ...paymentAudit(recorded) }, whenSlackRefused: (problems) => threadNotPosted(origin.channelId, problems, message) });
  }));
}
