/** Opening the record-payment form: at once (the trigger id lives 3 seconds), then with the CRM's payment methods. */
import type { webApi } from '@slack/bolt';
import type { Logger } from 'pino';
import { paymentForm, type PaymentField } from '../../views/payments.js';
import type { ListenerDeps } from '../../slack/deps.js';
import { describeFailure } from '../../slack/errors.js';
import type { Origin } from '../../slack/metadata.js';
import { openAndFill } from '../../slack/modals.js';

/** False when Slack did not open the form (the caller tells the agent). */
export function openPaymentForm(deps: ListenerDeps, client: webApi.WebClient, o: { triggerId: string; origin: Origin; values: Partial<Record<PaymentField, string>>; logger: Logger }): Promise<boolean> {
  const { origin, values } = o;
  return openAndFill(client, {
    triggerId: o.triggerId,
    view: paymentForm({ origin, values }),
    fill: async () => {
      try {
        return paymentForm({ origin, values, methods: await deps.services.payments.listMethods() });
      } catch (error) {
        return paymentForm({ origin, values, methods: [], notice: `Could not load the payment methods (${describeFailure(error).message}); you can record without one.` });
      }
    },
    logger: o.logger,
  });
}
