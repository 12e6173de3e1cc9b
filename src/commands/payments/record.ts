/**
 * Submission of the record-payment form: fields are checked before the ack (errors under the field),
 * the payment is recorded after it, then shown in the modal, posted in the channel and audited (through
 * the thread reporter).
 */
import type { App } from '@slack/bolt';
import { onceView } from '../../slack/deliveries.js';
import type { ListenerDeps } from '../../slack/deps.js';
import { decodeMetadata, PaymentMetaSchema } from '../../slack/metadata.js';
import { updateView } from '../../slack/modals.js';
import { readInputs } from '../../slack/state.js';
import { BLOCK, CALLBACK } from '../../views/ids.js';
import { paymentForm, paymentRecordedView, paymentRecording, type PaymentField } from '../../views/payments.js';
import { recordPayment } from './recording.js';
import { approvalReasons } from '../../services/approvals.js';
import { clientDisplayName } from '../../services/uisp/client-name.js';
import { describeFailure } from '../../slack/errors.js';
import { requestApproval } from '../approvals/index.js';

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
    /** The form again, the agent's values kept, with the problem under its field or as a notice. */
    const backToForm = async (failure: ReturnType<typeof describeFailure>) => {
      const methods = await deps.services.payments.listMethods().catch(() => []);
      const problem = failure.field ? { problems: { [failure.field]: failure.message } } : { notice: `${failure.message} ${failure.changed}` };
      await updateView(client, { viewId: view.id, view: paymentForm({ origin, methods, values, ...problem }) }, logger);
    };
    // A large payment may need a second pair of eyes: then the client is read (the request names it) and a request posted.
    const reasons = approvalReasons(deps.approvals.settings, { kind: 'payment', amount: parsed.input.amount });
    if (reasons.length) {
      let owner;
      try {
        owner = await deps.services.payments.getClient(parsed.input.clientId);
      } catch (error) {
        await backToForm(describeFailure(error));
        return;
      }
      const operation = { kind: 'payment' as const, input: parsed.input, clientName: clientDisplayName(owner), ...(owner.currencyCode && { currency: owner.currencyCode }) };
      await requestApproval(deps, client, { viewId: view.id, title: 'Record payment', origin, reasons, operation, logger });
      return;
    }
    // The view id names the operation: the same submission received twice records one payment.
    const recording = await recordPayment(deps, {
      input: parsed.input,
      origin,
      operationKey: view.id,
      logger,
      recordedFirst: (recorded) => updateView(client, { viewId: view.id, view: paymentRecordedView(recorded, origin) }, logger),
    });
    if (!recording.ok) await backToForm(recording.failure);
  }));
}
