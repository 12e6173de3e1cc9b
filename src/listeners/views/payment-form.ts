/**
 * Submission of the record-payment form: fields are checked before the ack (errors under the field),
 * the payment is recorded after it, then shown in the modal, posted in the channel and audited.
 */
import type { App } from '@slack/bolt';
import { InputError } from '../../services/errors.js';
import { paymentInputProblems, type PaymentInput } from '../../services/payments.js';
import type { ListenerDeps } from '../../slack/deps.js';
import { describeFailure, errorSummary } from '../../slack/errors.js';
import { decodeMetadata, PaymentMetaSchema } from '../../slack/metadata.js';
import { updateView } from '../../slack/modals.js';
import { tellAgent } from '../../slack/notify.js';
import { parseId, readInputs } from '../../slack/state.js';
import { formatMoney } from '../../views/format.js';
import { BLOCK, CALLBACK } from '../../views/ids.js';
import { paymentForm, paymentRecordedMessage, paymentRecordedView, paymentRecording, type PaymentField } from '../../views/payments.js';

export function register(app: App, deps: ListenerDeps): void {
  app.view(CALLBACK.paymentForm, async ({ ack, body, view, client }) => {
    const meta = decodeMetadata(PaymentMetaSchema, view.private_metadata);
    const origin = { ...meta.origin, userId: body.user.id };
    const inputs = readInputs(view.state.values);
    const ids = BLOCK.payment;
    const values: Partial<Record<PaymentField, string>> = { client: inputs[ids.clientId], amount: inputs[ids.amount], method: inputs[ids.method], note: inputs[ids.note] };
    const parsed = parsePaymentInput(values);
    if ('errors' in parsed) {
      await ack({ response_action: 'errors', errors: parsed.errors });
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
        await deps.audit.record({
          actorId: origin.userId,
          action: 'payment',
          targets: { clientId: parsed.input.clientId },
          result: 'failed',
          ok: false,
          summary: `Recording ${formatMoney(parsed.input.amount)} for client #${parsed.input.clientId} failed: ${failure.message} ${failure.changed}`,
        });
      }
      return;
    }

    await updateView(client, { viewId: view.id, view: paymentRecordedView(recorded, origin) }, logger);
    // A repeated submission: the first one posted the message and the audit record.
    if (recorded.alreadyRecorded) return;
    let ts: string | undefined;
    try {
      ts = (await client.chat.postMessage({ channel: origin.channelId, ...paymentRecordedMessage(recorded, origin.userId) })).ts;
    } catch (error) {
      logger.error({ err: errorSummary(error) }, 'could not post the payment message');
      await tellAgent(client, origin, paymentRecordedMessage(recorded, origin.userId), logger);
    }
    await deps.audit.record({
      actorId: origin.userId,
      action: 'payment',
      targets: { paymentId: recorded.payment.id, clientId: recorded.client.id, ...(recorded.method && { methodId: recorded.method.id }) },
      result: 'recorded',
      ok: true,
      summary: `Recorded payment #${recorded.payment.id} of ${formatMoney(recorded.payment.amount, recorded.payment.currencyCode)} for client #${recorded.client.id}`,
      thread: ts ? { channel: origin.channelId, ts } : undefined,
    });
  });
}

/** Form strings to a PaymentInput, with the services layer's own rules; errors keyed by block id. */
function parsePaymentInput(values: Partial<Record<PaymentField, string>>): { input: PaymentInput } | { errors: Partial<Record<PaymentField, string>> } {
  const clientId = parseId(values.client) ?? Number.NaN;
  // "10,000.00" is accepted (commas in thousands positions only); "10,5" is refused, not read as 105.
  const amountText = values.amount ?? '';
  const amount = /^(\d+|\d{1,3}(,\d{3})+)(\.\d+)?$/.test(amountText) ? Number(amountText.replace(/,/g, '')) : Number.NaN;
  const input: PaymentInput = { clientId, amount, ...(values.method && { method: values.method }), ...(values.note && { note: values.note }) };
  const problems = paymentInputProblems(input);
  return Object.keys(problems).length ? { errors: problems } : { input };
}
