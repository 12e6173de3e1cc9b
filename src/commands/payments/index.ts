/**
 * /payments [client id or name] [from YYYY-MM-DD [to YYYY-MM-DD]]: the payments of a range with totals per
 * currency for the page and the whole range, Previous/Next paging, a Filter form and "Export CSV", only
 * for the agent who asked. /payments add [client id] [amount]: the record-payment form.
 */
import type { App, BlockAction, ButtonAction } from '@slack/bolt';
import type { ListenerDeps } from '../../slack/deps.js';
import { escapeMrkdwn } from '../../slack/escape.js';
import { decodeMetadata, originOfAction, originOfCommand, PaymentRangeSchema } from '../../slack/metadata.js';
import { openAndFill } from '../../slack/modals.js';
import { openPaymentForm } from './record-form.js';
import { notice } from '../../views/help.js';
import { actionsOf } from '../../views/kit.js';
import { PAYMENTS_ACTION, paymentFilterForm } from '../../views/payments.js';
import type { SlashCommand } from '../command.js';
import { readPaymentsText } from './arguments.js';
import { exportPayments } from './export.js';
import { registerFilterForm } from './filter.js';
import { answer, listingFor, pageOf } from './listing.js';
import { registerRecordForm } from './record.js';

const USAGE = 'Usage: `/payments [client id or name] [from YYYY-MM-DD [to YYYY-MM-DD]]`, e.g. `/payments #1001 2026-01-01 2026-03-31`; `/payments add [client id] [amount]`.';

export const paymentsCommand: SlashCommand = {
  name: '/payments',
  description: 'Payments with totals (by client and dates), or record a payment',
  usageHint: '[client id or name] [from YYYY-MM-DD [to YYYY-MM-DD]] | add [client id] [amount]',
  listener: (deps) => async ({ command, ack, client, respond }) => {
    const [first, ...rest] = command.text.trim().split(/\s+/).filter(Boolean);
    const logger = deps.logger.child({ command: '/payments', userId: command.user_id });
    if (first?.toLowerCase() === 'add') {
      await ack();
      const values = { ...(rest[0] && { client: rest[0] }), ...(rest[1] && { amount: rest[1] }) };
      const opened = await openPaymentForm(deps, client, { triggerId: command.trigger_id, origin: originOfCommand(command), values, logger });
      if (!opened) await respond({ response_type: 'ephemeral', ...notice(':x: Slack did not open the payment form; try again.') });
      return;
    }
    const read = readPaymentsText(command.text);
    if (!read.ok) {
      const problem = Object.values(read.problems).join(' ');
      await ack({ response_type: 'ephemeral', ...notice(`${escapeMrkdwn(problem)} You typed \`${escapeMrkdwn(command.text.trim())}\`. ${USAGE}`) });
      return;
    }
    await ack();
    await respond({ response_type: 'ephemeral', ...(await answer(deps, command.user_id, () => listingFor(deps, read.query))) });
  },
};

export function register(app: App, deps: ListenerDeps): void {
  app.command(paymentsCommand.name, paymentsCommand.listener(deps));

  // Previous / Next, and a client picked from a list of matches: the listing replaces the message.
  for (const actionId of [PAYMENTS_ACTION.page, PAYMENTS_ACTION.forClient]) {
    app.action<BlockAction<ButtonAction>>(actionsOf(actionId), async ({ ack, action, body, respond }) => {
      await ack();
      const range = decodeMetadata(PaymentRangeSchema, action.value);
      await respond({ response_type: 'ephemeral', replace_original: true, ...(await answer(deps, body.user.id, () => pageOf(deps, range))) });
    });
  }

  app.action<BlockAction<ButtonAction>>(PAYMENTS_ACTION.filter, async ({ ack, action, body, client, respond }) => {
    await ack();
    const range = decodeMetadata(PaymentRangeSchema, action.value);
    const values = { ...(range.clientId !== undefined && { client: `#${range.clientId}` }), ...(range.from && { from: range.from }), ...(range.to && { to: range.to }) };
    const logger = deps.logger.child({ flow: 'payments-filter', userId: body.user.id });
    const opened = await openAndFill(client, { triggerId: body.trigger_id, view: paymentFilterForm({ origin: originOfAction(body), values }), logger });
    if (!opened) await respond({ response_type: 'ephemeral', replace_original: false, ...notice(':x: Slack did not open the filter form; press Filter again.') });
  });
  registerFilterForm(app, deps);
  registerRecordForm(app, deps);

  app.action<BlockAction<ButtonAction>>(PAYMENTS_ACTION.export, async ({ ack, action, body, client, respond }) => {
    await ack();
    const range = decodeMetadata(PaymentRangeSchema, action.value);
    await respond({ response_type: 'ephemeral', replace_original: false, ...(await exportPayments(deps, client, body.user.id, range)) });
  });
}
