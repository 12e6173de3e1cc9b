/**
 * Payment listing with per-currency totals, and recording payments. Listing streams UISP's pages
 * (limit ≤ 500) so memory stays bounded by the number of payments shown, not the number counted.
 */
import { format, isValid, parse, subDays } from 'date-fns';
import { clientDisplayName, type CrmClient, type PaymentFilters } from './uisp/crm-client.js';
import type { Client, Payment, PaymentMethod } from './uisp/schemas.js';
import { InputError, notFoundAsInputError } from './errors.js';

export interface PaymentQuery {
  clientId?: number;
  /** YYYY-MM-DD inclusive. */
  from?: string;
  to?: string;
  /** How many of the newest payments to return in `payments`; totals always cover the whole range. */
  show?: number;
}

export interface CurrencyTotal {
  currency: string;
  amount: number;
  count: number;
}

export interface PaymentSummary {
  query: Required<Pick<PaymentQuery, 'from' | 'to'>> & PaymentQuery;
  /** Newest first, at most `show`. */
  payments: Payment[];
  totals: CurrencyTotal[];
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
const DATE = /^\d{4}-\d{2}-\d{2}$/;

export class PaymentService {
  constructor(
    private readonly crm: CrmClient,
    private readonly today: () => string,
  ) {}

  /** Newest-first stream of every payment matching the query; for CSV and JSON export. */
  stream(query: PaymentQuery): AsyncGenerator<Payment> {
    return this.crm.payments(this.filters(this.range(query)));
  }

  async summarize(query: PaymentQuery): Promise<PaymentSummary> {
    const ranged = this.range(query);
    const show = query.show ?? 20;
    const payments: Payment[] = [];
    const totals = new Map<string, CurrencyTotal>();
    let count = 0;
    for await (const payment of this.crm.payments(this.filters(ranged))) {
      count++;
      if (payments.length < show) payments.push(payment);
      const currency = payment.currencyCode ?? '?';
      const total = totals.get(currency) ?? { currency, amount: 0, count: 0 };
      // Sum in cents: floating-point sums of thousands of amounts drift visibly otherwise.
      total.amount = Math.round(total.amount * 100 + payment.amount * 100) / 100;
      total.count++;
      totals.set(currency, total);
    }
    return { query: ranged, payments, totals: [...totals.values()].sort((a, b) => a.currency.localeCompare(b.currency)), count };
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
    validatePaymentInput(input);
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

  private range(query: PaymentQuery): PaymentSummary['query'] {
    for (const field of ['from', 'to'] as const) {
      const value = query[field];
      // Strict calendar parsing: 2024-02-30 is refused, not rolled over to March.
      if (value !== undefined && (!DATE.test(value) || !isValid(parse(value, 'yyyy-MM-dd', new Date())))) {
        throw new InputError(field, `${field} must be a date as YYYY-MM-DD (got "${value}").`);
      }
    }
    const to = query.to ?? this.today();
    const from = query.from ?? (query.clientId === undefined ? format(subDays(parse(to, 'yyyy-MM-dd', new Date()), DEFAULT_PAYMENT_WINDOW_DAYS), 'yyyy-MM-dd') : '2000-01-01');
    if (from > to) throw new InputError('from', `from (${from}) is after to (${to}).`);
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

/** Every problem with a payment, by field (client, amount, note); empty when it can be sent. */
export function paymentInputProblems(input: PaymentInput): Partial<Record<'client' | 'amount' | 'note', string>> {
  const problems: Partial<Record<'client' | 'amount' | 'note', string>> = {};
  if (!Number.isInteger(input.clientId) || input.clientId <= 0) problems.client = 'Client id must be a positive whole number.';
  if (!Number.isFinite(input.amount) || input.amount <= 0) problems.amount = 'Amount must be a number greater than 0.';
  // A tolerance, not equality: 19.99 * 100 is 1998.9999999999998 in floating point.
  else if (Math.abs(input.amount * 100 - Math.round(input.amount * 100)) > 1e-6) problems.amount = 'Amount can have at most two decimals.';
  if (input.note && input.note.length > 1000) problems.note = 'Note must be at most 1000 characters.';
  return problems;
}

/** Throws an InputError naming the first bad field. */
export function validatePaymentInput(input: PaymentInput): void {
  const [field, message] = Object.entries(paymentInputProblems(input))[0] ?? [];
  if (field && message) throw new InputError(field, message);
}
