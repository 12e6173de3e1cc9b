/**
 * Payment listing with per-currency totals, and recording payments. Listing streams UISP's pages
 * (limit ≤ 500) so memory stays bounded by the number of payments shown, not the number counted.
 */
import { format, parse, subDays } from 'date-fns';
import { clientDisplayName, type CrmClient, type PaymentFilters } from './uisp/crm-client.js';
import type { Client, Payment, PaymentMethod } from './uisp/schemas.js';
import { InputError, notFoundAsInputError } from './errors.js';
import { checkAmount, checkDateRange, checkId, DEFAULT_PAYMENT_MAX_AMOUNT, optional, readAmount, readClientKey, readDate, readFields, readId, readLine, readNote, type ClientKey, type Read } from './input/grammar.js';

export interface PaymentQuery {
  clientId?: number;
  /** YYYY-MM-DD inclusive. */
  from?: string;
  to?: string;
  /** How many of the newest payments to return in `payments`; totals always cover the whole range. */
  show?: number;
  /** How many of the newest payments to pass over first (paging: page n skips n × show). */
  skip?: number;
}

export interface CurrencyTotal {
  currency: string;
  amount: number;
  count: number;
}

export interface PaymentSummary {
  query: Required<Pick<PaymentQuery, 'from' | 'to'>> & PaymentQuery;
  /** Newest first, at most `show`, after the `skip` newest. */
  payments: Payment[];
  /** Totals per currency of the whole range. */
  totals: CurrencyTotal[];
  /** Totals per currency of `payments` alone (the page shown). */
  pageTotals: CurrencyTotal[];
  count: number;
}

export interface PaymentInput {
  clientId: number;
  amount: number;
  /** Payment method id (UUID) or name, case-insensitive. */
  method?: string;
  note?: string;
}

/** Days covered by a listing that names no date range. */
export const DEFAULT_PAYMENT_WINDOW_DAYS = 30;

export interface PaymentLimits {
  /** The largest amount one payment may record (PAYMENT_MAX_AMOUNT). */
  maxAmount: number;
}

export class PaymentService {
  constructor(
    private readonly crm: CrmClient,
    private readonly today: () => string,
    private readonly limits: PaymentLimits = { maxAmount: DEFAULT_PAYMENT_MAX_AMOUNT },
  ) {}

  /** A payment as typed in a form or on the command line, read by the input grammar with this service's limits. */
  readInput(fields: PaymentFields): PaymentInputRead {
    return readPaymentInput(fields, this.limits);
  }

  /** Newest-first stream of every payment matching the query; for CSV and JSON export. */
  stream(query: PaymentQuery): AsyncGenerator<Payment> {
    return this.crm.payments(this.filters(this.range(query)));
  }

  async summarize(query: PaymentQuery): Promise<PaymentSummary> {
    const ranged = this.range(query);
    const show = query.show ?? 20;
    const skip = query.skip ?? 0;
    const payments: Payment[] = [];
    const totals = new CurrencyTotals();
    let count = 0;
    for await (const payment of this.crm.payments(this.filters(ranged))) {
      if (count >= skip && payments.length < show) payments.push(payment);
      count++;
      totals.add(payment);
    }
    const pageTotals = new CurrencyTotals();
    for (const payment of payments) pageTotals.add(payment);
    return { query: ranged, payments, totals: totals.list(), pageTotals: pageTotals.list(), count };
  }

  /**
   * Every payment of the range, newest first, each with its client's name for the CSV export (one CRM
   * read per distinct client; a client that cannot be read has no name).
   */
  async *withClientNames(query: PaymentQuery): AsyncGenerator<{ payment: Payment; clientName: string | null }> {
    const names = new Map<number, Promise<string | null>>();
    const nameOf = (id: number) => {
      let name = names.get(id);
      if (!name) names.set(id, (name = this.crm.getClient(id).then(clientDisplayName, () => null)));
      return name;
    };
    for await (const payment of this.stream(query)) yield { payment, clientName: payment.clientId == null ? null : await nameOf(payment.clientId) };
  }

  /**
   * Display names of the clients who made these payments, one read per distinct client (none for
   * clients already in hand). Names are a nicety: a client that cannot be read is left out, shown by id.
   */
  async clientNames(payments: Payment[], known: Client[] = []): Promise<Map<number, string>> {
    const ids = [...new Set(payments.map((p) => p.clientId).filter((id): id is number => id != null))];
    const read = await Promise.allSettled(ids.map(async (id) => known.find((c) => c.id === id) ?? this.crm.getClient(id)));
    return new Map(read.flatMap((r) => (r.status === 'fulfilled' ? [[r.value.id, clientDisplayName(r.value)] as const] : [])));
  }

  listMethods(): Promise<PaymentMethod[]> {
    return this.crm.listPaymentMethods();
  }

  async resolveMethod(idOrName: string): Promise<PaymentMethod> {
    const wanted = idOrName.trim().toLowerCase();
    const methods = await this.crm.listPaymentMethods();
    const match = methods.find((m) => m.id.toLowerCase() === wanted) ?? methods.find((m) => m.name.toLowerCase() === wanted);
    if (!match) throw new InputError('method', `No payment method "${idOrName}". Known methods: ${methods.map((m) => m.name).join(', ')}.`);
    return match;
  }

  getClient(clientId: number): Promise<Client> {
    return notFoundAsInputError(this.crm.getClient(clientId), 'client', `No CRM client #${clientId}.`);
  }

  /** Validates everything before the one write, so bad input never reaches UISP's POST. */
  async record(input: PaymentInput): Promise<{ payment: Payment; client: Client; method?: PaymentMethod }> {
    validatePaymentInput(input, this.limits);
    const client = await this.getClient(input.clientId);
    const method = input.method ? await this.resolveMethod(input.method) : undefined;
    const payment = await this.crm.createPayment({
      clientId: input.clientId,
      amount: input.amount,
      ...(method ? { methodId: method.id } : {}),
      ...(input.note ? { note: input.note } : {}),
    });
    return { payment, client, ...(method ? { method } : {}) };
  }

  /** The query with its dates checked and resolved as a listing resolves them (the default window, a client's whole history). */
  range(query: PaymentQuery): PaymentSummary['query'] {
    for (const field of ['from', 'to'] as const) orRefuse(field, optional(readDate)(query[field], DATE_LABELS[field]));
    const to = query.to ?? this.today();
    const from = query.from ?? (query.clientId === undefined ? format(subDays(parse(to, 'yyyy-MM-dd', new Date()), DEFAULT_PAYMENT_WINDOW_DAYS), 'yyyy-MM-dd') : '2000-01-01');
    orRefuse('from', checkDateRange(from, to));
    return { ...query, from, to };
  }

  private filters(query: PaymentSummary['query']): PaymentFilters {
    return {
      ...(query.clientId !== undefined ? { clientId: query.clientId } : {}),
      createdDateFrom: query.from,
      createdDateTo: query.to,
      direction: 'DESC',
    };
  }
}

/** Sums per currency, in cents: floating-point sums of thousands of amounts drift visibly otherwise. */
class CurrencyTotals {
  private readonly byCurrency = new Map<string, CurrencyTotal>();

  add(payment: Payment): void {
    const currency = payment.currencyCode ?? '?';
    const total = this.byCurrency.get(currency) ?? { currency, amount: 0, count: 0 };
    total.amount = Math.round(total.amount * 100 + payment.amount * 100) / 100;
    total.count++;
    this.byCurrency.set(currency, total);
  }

  list(): CurrencyTotal[] {
    return [...this.byCurrency.values()].sort((a, b) => a.currency.localeCompare(b.currency));
  }
}

const DATE_LABELS = { from: 'From date', to: 'To date' } as const;

/** A payment as typed: the text of each field, keyed like the Slack form's blocks. */
export type PaymentField = 'client' | 'amount' | 'method' | 'note';
export type PaymentFields = Partial<Record<PaymentField, string>>;
export type PaymentInputRead = { ok: true; input: PaymentInput } | { ok: false; problems: Partial<Record<PaymentField, string>> };

/** Every field of a typed payment read by the input grammar; every problem at once, by field. */
export function readPaymentInput(fields: PaymentFields, limits: PaymentLimits): PaymentInputRead {
  const read = readFields({
    client: readId(fields.client, 'Client id'),
    amount: readAmount(limits.maxAmount)(fields.amount, 'Amount'),
    method: optional(readLine())(fields.method, 'Payment method'),
    note: optional(readNote())(fields.note, 'Note'),
  });
  if (!read.ok) return read;
  const { client, amount, method, note } = read.values;
  return { ok: true, input: { clientId: client, amount, ...(method && { method }), ...(note && { note }) } };
}

type QueryField = 'client' | 'from' | 'to';
type QueryRead<T> = { ok: true; query: T } | { ok: false; problems: Partial<Record<QueryField, string>> };

/** A payment listing's filters as typed (client id, from, to), read by the input grammar; from ≤ to when both are given. */
export function readPaymentQuery(fields: { client?: string | undefined; from?: string | undefined; to?: string | undefined }): QueryRead<PaymentQuery> {
  const read = readListingFields(optional(readId)(fields.client, 'Client id'), fields);
  if (!read.ok) return read;
  const { client, ...range } = read.query;
  return { ok: true, query: { ...(client !== undefined && { clientId: client }), ...range } };
}

/** The same filters where the client may also be a name (Slack's /payments and its filter form). */
export function readPaymentFilters(fields: { client?: string | undefined; from?: string | undefined; to?: string | undefined }): QueryRead<{ client?: ClientKey; from?: string; to?: string }> {
  return readListingFields(optional(readClientKey)(fields.client, 'Client'), fields);
}

function readListingFields<C>(client: Read<C | undefined>, fields: { from?: string | undefined; to?: string | undefined }): QueryRead<{ client?: C; from?: string; to?: string }> {
  const read = readFields({ client, from: optional(readDate)(fields.from, DATE_LABELS.from), to: optional(readDate)(fields.to, DATE_LABELS.to) });
  if (!read.ok) return read;
  const { from, to } = read.values;
  const range = from && to ? checkDateRange(from, to) : undefined;
  if (range && !range.ok) return { ok: false, problems: { from: range.problem } };
  return { ok: true, query: { ...(read.values.client !== undefined && { client: read.values.client }), ...(from && { from }), ...(to && { to }) } };
}

/** Every problem with a payment already in numbers, by field; empty when it can be sent. */
export function paymentInputProblems(input: PaymentInput, limits: PaymentLimits): Partial<Record<PaymentField, string>> {
  const read = readFields({
    client: checkId(input.clientId, 'Client id'),
    amount: checkAmount(input.amount, 'Amount', limits.maxAmount),
    method: optional(readLine())(input.method, 'Payment method'),
    note: optional(readNote())(input.note, 'Note'),
  });
  return read.ok ? {} : read.problems;
}

/** Throws an InputError naming the first bad field. */
export function validatePaymentInput(input: PaymentInput, limits: PaymentLimits): void {
  const [field, message] = Object.entries(paymentInputProblems(input, limits))[0] ?? [];
  if (field && message) throw new InputError(field, message);
}

function orRefuse<T>(field: string, read: Read<T>): T {
  if (!read.ok) throw new InputError(field, read.problem);
  return read.value;
}
