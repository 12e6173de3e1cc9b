/**
 * /payments [client id]: the newest payments with totals per currency, only for the agent who asked.
 * /payments add [client id] [amount]: the record-payment form.
 */
import { optional, readId } from '../services/input/grammar.js';
import type { Client } from '../services/uisp/schemas.js';
import type { ListenerDeps } from '../slack/deps.js';
import { describeFailure } from '../slack/errors.js';
import { escapeMrkdwn } from '../slack/escape.js';
import { originOfCommand } from '../slack/metadata.js';
import { openPaymentForm } from '../slack/payment-form.js';
import { notice } from '../views/help.js';
import type { SlackMessage } from '../views/kit.js';
import { paymentsList } from '../views/payments.js';
import type { SlashCommand } from './command.js';

/** How many of the newest payments the listing shows; the totals cover every payment in the period. */
const PAYMENTS_SHOWN = 20;

const USAGE = 'Usage: `/payments` (latest), `/payments <client id>`, `/payments add [client id] [amount]`.';

export const paymentsCommand: SlashCommand = {
  name: '/payments',
  description: 'Latest payments with totals, a client’s payments, or record a payment',
  usageHint: '[client id] | add [client id] [amount]',
  listener: (deps) => async ({ command, ack, client, respond }) => {
    const [first, ...rest] = command.text.trim().split(/\s+/).filter(Boolean);
    const logger = deps.logger.child({ command: '/payments', userId: command.user_id });
    if (first?.toLowerCase() === 'add') {
      await ack();
      const origin = originOfCommand(command);
      const values = { ...(rest[0] && { client: rest[0] }), ...(rest[1] && { amount: rest[1] }) };
      const opened = await openPaymentForm(deps, client, { triggerId: command.trigger_id, origin, values, logger });
      if (!opened) await respond({ response_type: 'ephemeral', ...notice(':x: Slack did not open the payment form; try again.') });
      return;
    }
    const read = optional(readId)(first, 'Client id');
    if (!read.ok || rest.length) {
      const problem = read.ok ? 'Give one client id.' : read.problem;
      await ack({ response_type: 'ephemeral', ...notice(`${escapeMrkdwn(problem)} You typed \`${escapeMrkdwn(command.text.trim())}\`. ${USAGE}`) });
      return;
    }
    const clientId = read.value;
    await ack();
    let answer: SlackMessage;
    try {
      answer = await listPayments(deps, clientId);
    } catch (error) {
      const failure = describeFailure(error);
      if (!failure.expected) logger.error({ err: error }, 'listing payments failed');
      answer = notice(`:x: ${escapeMrkdwn(failure.message)}`);
    }
    await respond({ response_type: 'ephemeral', ...answer });
  },
};

async function listPayments(deps: ListenerDeps, clientId: number | undefined): Promise<SlackMessage> {
  const { payments } = deps.services;
  // The client lookup first: a wrong id says "no client #42" rather than "no payments".
  const client: Client | undefined = clientId === undefined ? undefined : await payments.getClient(clientId);
  const [summary, methods] = await Promise.all([payments.summarize({ ...(clientId !== undefined && { clientId }), show: PAYMENTS_SHOWN }), payments.listMethods().catch(() => [])]);
  const clientNames = await payments.clientNames(summary.payments, client ? [client] : []);
  return paymentsList({ summary, client, clientNames, methodNames: new Map(methods.map((m) => [m.id, m.name])) });
}
