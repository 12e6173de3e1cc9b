/**
 * The listing's Filter form: a client (id or name) and dates, read by the input grammar (problems under
 * the field, before the ack). The listing the form was opened from is replaced through its response_url.
 */
import type { App } from '@slack/bolt';
import { readPaymentFilters } from '../../services/payments.js';
import type { ListenerDeps } from '../../slack/deps.js';
import { describeFailure, errorSummary } from '../../slack/errors.js';
import { decodeMetadata, PaymentMetaSchema, type Origin } from '../../slack/metadata.js';
import { updateView } from '../../slack/modals.js';
import { postToResponseUrl, tellAgent } from '../../slack/notify.js';
import { readInputs } from '../../slack/state.js';
import type { SlackMessage } from '../../views/kit.js';
import { CALLBACK_PAYMENT_FILTER, PAYMENT_FILTER_BLOCK, paymentFilterApplied, paymentFilterForm, paymentFilterLooking } from '../../views/payments.js';
import { answer, listingFor, resolveClient } from './listing.js';

export function registerFilterForm(app: App, deps: ListenerDeps): void {
  app.view(CALLBACK_PAYMENT_FILTER, async ({ ack, body, view, client }) => {
    const { origin } = decodeMetadata(PaymentMetaSchema, view.private_metadata);
    const inputs = readInputs(view.state.values);
    const values = { client: inputs[PAYMENT_FILTER_BLOCK.client], from: inputs[PAYMENT_FILTER_BLOCK.from], to: inputs[PAYMENT_FILTER_BLOCK.to] };
    const read = readPaymentFilters(values);
    if (!read.ok) {
      await ack({ response_action: 'errors', errors: read.problems });
      return;
    }
    const logger = deps.logger.child({ flow: 'payments-filter', userId: body.user.id });
    const { client: key } = read.query;
    if (key === undefined || 'id' in key) {
      await ack();
      await show(origin, await answer(deps, body.user.id, () => listingFor(deps, read.query)));
      return;
    }
    // A name is looked up in the CRM after the ack; a name that is no one, or several, goes back under the field.
    await ack({ response_action: 'update', view: paymentFilterLooking() });
    let problem: string | undefined;
    try {
      const resolved = await resolveClient(deps, key);
      if ('problem' in resolved) problem = resolved.problem;
      else if ('matches' in resolved) problem = `${resolved.matches.length} clients match: ${resolved.matches.map((c) => `#${c.id}`).join(', ')}. Give the id.`;
    } catch (error) {
      problem = describeFailure(error).message;
    }
    if (problem) {
      await updateView(client, { viewId: view.id, view: paymentFilterForm({ origin, values, problems: { client: problem } }) }, logger);
      return;
    }
    await updateView(client, { viewId: view.id, view: paymentFilterApplied() }, logger);
    await show(origin, await answer(deps, body.user.id, () => listingFor(deps, read.query)));

    async function show(to: Origin, listing: SlackMessage): Promise<void> {
      try {
        if (!to.responseUrl) throw new Error('no response_url');
        await postToResponseUrl(to.responseUrl, listing, true);
      } catch (error) {
        logger.warn({ err: errorSummary(error) }, 'could not replace the payments listing; telling the agent another way');
        await tellAgent(client, to, listing, logger);
      }
    }
  });
}
