/** /payments: the ephemeral listing with per-currency totals, and the record-payment modal. */
import { TEXT_LIMITS } from '../services/input/grammar.js';
import type { CurrencyTotal, PaymentField, PaymentSummary } from '../services/payments.js';
import type { Client, Payment, PaymentMethod } from '../services/uisp/schemas.js';
import { escapeMrkdwn } from '../slack/escape.js';
import { encodeMetadata, PaymentMetaSchema, PaymentRangeSchema, type Origin, type PaymentRange } from '../slack/metadata.js';
import { channelLink, formatMoney, isoDate, mention } from './format.js';
import { ACTION, BLOCK, CALLBACK, TYPEAHEAD } from './ids.js';
import { clip, LIMITS } from './limits.js';
import { actions, button, capBlocks, context, divider, externalSelectInput, header, message, modal, option, problem, section, sections, selectInput, textInput, withProblem, type Block, type ModalView, type SlackMessage } from './kit.js';
import { clientDisplayName } from '../services/uisp/client-name.js';

export interface PaymentsListInput {
  summary: PaymentSummary;
  /** Names of the clients the shown payments belong to; a missing name shows the id alone. */
  clientNames: ReadonlyMap<number, string>;
  methodNames: ReadonlyMap<string, string>;
  /** Set when the listing is for one client. */
  client?: Client | undefined;
}

/** The listing's buttons; their values are a PaymentRange (src/slack/metadata.ts). */
export const PAYMENTS_ACTION = { page: 'payments_page', filter: 'payments_filter', export: 'payments_export', forClient: 'payments_for_client' } as const;
const PAYMENTS_BLOCK = { actions: 'payments_actions' } as const;

export function paymentsList({ summary, clientNames, methodNames, client }: PaymentsListInput): SlackMessage {
  const { from, to, clientId } = summary.query;
  const range: PaymentRange = { ...(clientId !== undefined && { clientId }), from, to, page: 1 };
  const title = client ? `Payments of client #${client.id} ${clientDisplayName(client)}` : 'Latest payments';
  const blocks: Block[] = [header(title), context(`From ${from} to ${to}  ·  ${summary.count} payment${summary.count === 1 ? '' : 's'}`)];
  if (summary.count === 0) {
    blocks.push(section('No payments in this period.'), actions(PAYMENTS_BLOCK.actions, [filterButton(range)]));
    return message(`${escapeMrkdwn(title)}: none from ${from} to ${to}`, blocks);
  }
  const size = summary.query.show ?? Math.max(summary.payments.length, 1);
  const skip = summary.query.skip ?? 0;
  const page = Math.floor(skip / size) + 1;
  const pages = Math.max(1, Math.ceil(summary.count / size));
  const rows = sections('', summary.payments.map((p) => paymentLine(p, clientNames, methodNames)));
  const totalLines = (totals: CurrencyTotal[]) => totals.map((t) => `• *${formatMoney(t.amount, t.currency)}* in ${t.count} payment${t.count === 1 ? '' : 's'}`);
  const tail: Block[] = [divider()];
  if (summary.count > summary.payments.length) {
    const shown = page === 1 ? `Showing the newest ${summary.payments.length} of ${summary.count}` : `Showing payments ${skip + 1}–${skip + summary.payments.length} of ${summary.count} (page ${page} of ${pages})`;
    tail.unshift(context(`${shown}; the totals cover all ${summary.count}.`));
    tail.push(...sections('*This page*', totalLines(summary.pageTotals)));
  }
  tail.push(...sections('*Totals*', totalLines(summary.totals)));
  const buttons = [
    ...(page > 1 ? [button({ actionId: `${PAYMENTS_ACTION.page}:previous`, text: 'Previous', value: encodeMetadata(PaymentRangeSchema, { ...range, page: page - 1 }) })] : []),
    ...(page < pages ? [button({ actionId: `${PAYMENTS_ACTION.page}:next`, text: 'Next', value: encodeMetadata(PaymentRangeSchema, { ...range, page: page + 1 }) })] : []),
    filterButton(range),
    button({ actionId: PAYMENTS_ACTION.export, text: 'Export CSV', value: encodeMetadata(PaymentRangeSchema, range) }),
  ];
  tail.push(actions(PAYMENTS_BLOCK.actions, buttons));
  // The totals are the point of the listing: rows give way first under the 50-block cap.
  blocks.push(...capBlocks(rows, LIMITS.messageBlocks - blocks.length - tail.length), ...tail);
  const totals = summary.totals.map((t) => formatMoney(t.amount, t.currency)).join(', ');
  return message(`${escapeMrkdwn(title)}: ${summary.count} payments, ${totals}`, blocks);
}

function filterButton(range: PaymentRange) {
  return button({ actionId: PAYMENTS_ACTION.filter, text: 'Filter…', value: encodeMetadata(PaymentRangeSchema, range) });
}

export const CALLBACK_PAYMENT_FILTER = 'payment_filter';
export const PAYMENT_FILTER_BLOCK = { client: 'client', from: 'from', to: 'to' } as const;
export type PaymentFilterField = keyof typeof PAYMENT_FILTER_BLOCK;

export interface PaymentFilterFormInput {
  origin: Origin;
  values?: Partial<Record<PaymentFilterField, string>>;
  problems?: Partial<Record<PaymentFilterField, string>>;
}

/** The listing's filters: a client by id or name, and a date range; the listing is replaced when submitted. */
export function paymentFilterForm({ origin, values = {}, problems = {} }: PaymentFilterFormInput): ModalView {
  const ids = PAYMENT_FILTER_BLOCK;
  const blocks: Block[] = [
    ...withProblem(textInput({ blockId: ids.client, actionId: ACTION.value, label: 'Client', initial: values.client, optional: true, maxLength: TEXT_LIMITS.line, placeholder: '#1001 or a name', hint: 'Leave empty for every client.' }), problems.client),
    ...withProblem(textInput({ blockId: ids.from, actionId: ACTION.value, label: 'From', initial: values.from, optional: true, maxLength: 10, placeholder: 'YYYY-MM-DD' }), problems.from),
    ...withProblem(textInput({ blockId: ids.to, actionId: ACTION.value, label: 'To', initial: values.to, optional: true, maxLength: 10, placeholder: 'YYYY-MM-DD', hint: 'Without dates: the last 30 days, or a client’s whole history.' }), problems.to),
  ];
  return modal({ callbackId: CALLBACK_PAYMENT_FILTER, title: 'Filter payments', submit: 'Show', blocks, privateMetadata: encodeMetadata(PaymentMetaSchema, { origin }) });
}


export function paymentFilterLooking(): ModalView {
  return modal({ callbackId: CALLBACK.info, title: 'Filter payments', close: 'Close', blocks: [section(':hourglass_flowing_sand: Looking up the client in the CRM…')] });
}

export function paymentFilterApplied(): ModalView {
  return modal({ callbackId: CALLBACK.info, title: 'Filter payments', close: 'Close', blocks: [section(':white_check_mark: The listing now shows these payments.')] });
}

/** The answer to Export CSV. */
export function paymentsExported(o: { count: number; from: string; to: string; filename: string }): SlackMessage {
  const text = `:page_facing_up: Sent *${escapeMrkdwn(o.filename)}* (${o.count} payment${o.count === 1 ? '' : 's'} from ${o.from} to ${o.to}) to your DM with SubOps.`;
  return message(text, [section(text)]);
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
  blocks.push(...withProblem(externalSelectInput({ blockId: ids.clientId, actionId: TYPEAHEAD.client, label: 'Client id', initial: values.client, placeholder: 'Type a name or id' }), problems.client));
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
