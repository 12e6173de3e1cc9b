/** /payments: the ephemeral listing with per-currency totals, and the record-payment modal. */
import { TEXT_LIMITS } from '../services/input/grammar.js';
import type { PaymentField, PaymentSummary } from '../services/payments.js';
import type { Client, Payment, PaymentMethod } from '../services/uisp/schemas.js';
import { escapeMrkdwn } from '../slack/escape.js';
import { encodeMetadata, PaymentMetaSchema, type Origin } from '../slack/metadata.js';
import { channelLink, formatMoney, isoDate, mention } from './format.js';
import { ACTION, BLOCK, CALLBACK } from './ids.js';
import { clip, LIMITS } from './limits.js';
import { capBlocks, context, divider, header, message, modal, option, problem, section, sections, selectInput, textInput, withProblem, type Block, type ModalView, type SlackMessage } from './kit.js';
import { clientDisplayName } from '../services/uisp/crm-client.js';

export interface PaymentsListInput {
  summary: PaymentSummary;
  /** Names of the clients the shown payments belong to; a missing name shows the id alone. */
  clientNames: ReadonlyMap<number, string>;
  methodNames: ReadonlyMap<string, string>;
  /** Set when the listing is for one client. */
  client?: Client | undefined;
}

export function paymentsList({ summary, clientNames, methodNames, client }: PaymentsListInput): SlackMessage {
  const { from, to } = summary.query;
  const title = client ? `Payments of client #${client.id} ${clientDisplayName(client)}` : 'Latest payments';
  const blocks: Block[] = [header(title), context(`From ${from} to ${to}  ·  ${summary.count} payment${summary.count === 1 ? '' : 's'}`)];
  if (summary.count === 0) {
    blocks.push(section('No payments in this period.'));
    return message(`${escapeMrkdwn(title)}: none from ${from} to ${to}`, blocks);
  }
  const rows = sections('', summary.payments.map((p) => paymentLine(p, clientNames, methodNames)));
  const tail: Block[] = [divider(), ...sections('*Totals*', summary.totals.map((t) => `• *${formatMoney(t.amount, t.currency)}* in ${t.count} payment${t.count === 1 ? '' : 's'}`))];
  if (summary.count > summary.payments.length) tail.unshift(context(`Showing the newest ${summary.payments.length} of ${summary.count}; the totals cover all ${summary.count}.`));
  // The totals are the point of the listing: rows give way first under the 50-block cap.
  blocks.push(...capBlocks(rows, LIMITS.messageBlocks - blocks.length - tail.length), ...tail);
  const totals = summary.totals.map((t) => formatMoney(t.amount, t.currency)).join(', ');
  return message(`${escapeMrkdwn(title)}: ${summary.count} payments, ${totals}`, blocks);
}

/** Names in one-line rows are cut so a row stays a row. */
const NAME_IN_ROW = 60;

function paymentLine(p: Payment, clientNames: ReadonlyMap<number, string>, methodNames: ReadonlyMap<string, string>): string {
  const name = p.clientId == null ? undefined : clientNames.get(p.clientId);
  const who = p.clientId == null ? 'no client' : `#${p.clientId}${name ? ` ${escapeMrkdwn(clip(name, NAME_IN_ROW))}` : ''}`;
  const method = p.methodId ? escapeMrkdwn(clip(methodNames.get(p.methodId) ?? 'unknown method', NAME_IN_ROW)) : 'no method';
  return `\`${isoDate(p.createdDate)}\`  ${who}  *${formatMoney(p.amount, p.currencyCode)}*  ${method}`;
}


export type { PaymentField };

export interface PaymentFormInput {
  origin: Origin;
  /** The CRM's payment methods; undefined while they load. */
  methods?: PaymentMethod[] | undefined;
  values?: Partial<Record<PaymentField, string>>;
  problems?: Partial<Record<PaymentField, string>>;
  notice?: string | undefined;
}

export function paymentForm({ origin, methods, values = {}, problems = {}, notice }: PaymentFormInput): ModalView {
  const ids = BLOCK.payment;
  const blocks: Block[] = [];
  if (notice) blocks.push(problem(escapeMrkdwn(notice)));
  blocks.push(...withProblem(textInput({ blockId: ids.clientId, actionId: ACTION.value, label: 'Client id', initial: values.client, maxLength: 12 }), problems.client));
  blocks.push(...withProblem(textInput({ blockId: ids.amount, actionId: ACTION.value, label: 'Amount', initial: values.amount, maxLength: 15, placeholder: '10000.00', hint: 'In the client’s currency; greater than 0, at most two decimals.' }), problems.amount));
  const visible = methods?.filter((m) => m.visible !== false);
  if (visible === undefined) blocks.push(context(':hourglass_flowing_sand: Loading the CRM’s payment methods…'));
  else if (visible.length) {
    blocks.push(
      ...withProblem(
        selectInput({
          blockId: ids.method,
          actionId: ACTION.value,
          label: 'Method',
          optional: true,
          placeholder: 'Pick a method',
          initialValue: values.method,
          options: visible.map((m) => option(m.name, m.id)),
        }),
        problems.method,
      ),
    );
  }
  blocks.push(...withProblem(textInput({ blockId: ids.note, actionId: ACTION.value, label: 'Note', initial: values.note, optional: true, multiline: true, maxLength: TEXT_LIMITS.note }), problems.note));
  return modal({ callbackId: CALLBACK.paymentForm, title: 'Record payment', submit: 'Record', blocks, privateMetadata: encodeMetadata(PaymentMetaSchema, { origin }) });
}

export function paymentRecording(): ModalView {
  return modal({ callbackId: CALLBACK.info, title: 'Record payment', close: 'Close', blocks: [section(':hourglass_flowing_sand: Recording the payment in the CRM…')] });
}

export interface RecordedPayment {
  payment: Payment;
  client: Client;
  method?: PaymentMethod | undefined;
}

function describeRecorded({ payment, client, method }: RecordedPayment): string {
  return `payment #${payment.id} of *${formatMoney(payment.amount, payment.currencyCode)}*${method ? ` by ${escapeMrkdwn(method.name)}` : ''} for client #${client.id} ${escapeMrkdwn(clientDisplayName(client))}`;
}

export function paymentRecordedView(recorded: RecordedPayment, origin: Origin): ModalView {
  return modal({
    callbackId: CALLBACK.info,
    title: 'Payment recorded',
    close: 'Close',
    blocks: [section(`:white_check_mark: Recorded ${describeRecorded(recorded)}.`), context(`Also posted in ${channelLink(origin.channelId)}.`)],
  });
}

export function paymentRecordedMessage(recorded: RecordedPayment, actorId: string): SlackMessage {
  const text = `:moneybag: ${mention(actorId)} recorded ${describeRecorded(recorded)}.`;
  const blocks: Block[] = [section(text)];
  if (recorded.payment.note) blocks.push(context(`Note: ${escapeMrkdwn(recorded.payment.note)}`));
  return message(text, blocks);
}
