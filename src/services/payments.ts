/**
 * Payment listing with per-currency totals, and recording payments. Listing streams UISP's pages
 * (limit ≤ 500) so memory stays bounded by the number of payments shown, not the number counted.
 */
import { createHash } from 'node:crypto';
import { format, isValid, parse, subDays } from 'date-fns';
import { ensureOne, noteHas, withMarkers, type KeyedLock, type WriteRetryPolicy } from './converge.js';
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

export interface RecordedPayment {
  payment: Payment;
  client: Client;
  method?: PaymentMethod;
  /** True when this operation had been recorded before (a repeated submission or re-run): nothing was written. */
  alreadyRecorded: boolean;
}

/**
 * Written into the note of every payment SubOps records, on its own line after the agent's note:
 * the same operation (a Slack view, a CLI invocation's key) is then never recorded twice.
 */
export const paymentMarker = (operationKey: string) => `subops:op=${operationKey}`;
const OPERATION_KEY = /^[A-Za-z0-9._:-]{1,64}$/;
/** The note as the agent wrote it, for display (exports keep the note exactly as the CRM has it). */
function withoutMarkers(note: string | null): string | null {
  const kept = (note ?? '').split('\n').filter((line) => !/^subops:op=\S+$/.test(line.trim())).join('\n');
  return kept || null;
}

/** How many of the client's newest payments are searched for an operation's marker. */
const RECENT_PAYMENTS_SEARCHED = 50;

/** Days covered by a listing that names no date range. */
export const DEFAULT_PAYMENT_WINDOW_DAYS = 30;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

export class PaymentService {
  constructor(
    private readonly crm: CrmClient,
    private readonly today: () => string,
    private readonly writes: { retry: WriteRetryPolicy; locks: KeyedLock },
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
      if (payments.length < show) payments.push({ ...payment, note: withoutMarkers(payment.note) });
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
    const read = await Promise.allSettled(ids.map((id) => known.find((c) => c.id === id) ?? this.crm.getClient(id)));
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

  /**
   * Records a payment once per operation. Everything is validated before the one write, so bad input
   * never reaches UISP's POST. The client's newest payments are searched for the operation's marker
   * before writing and again after a write that got no answer, so a repeated submission, a re-run or a
   * lost answer never records a second payment.
   */
  async record(input: PaymentInput, { operationKey }: { operationKey: string }): Promise<RecordedPayment> {
    validatePaymentInput(input);
    if (!OPERATION_KEY.test(operationKey)) throw new InputError('key', 'The operation key must be 1 to 64 letters, digits or . _ : - characters.');
    const client = await this.getClient(input.clientId);
    const method = input.method ? await this.resolveMethod(input.method) : undefined;
    const marker = paymentMarker(operationKey);
    const { release } = await this.writes.locks.acquire([`payment:${operationKey}`]);
    try {
      const { record, created } = await ensureOne(
        {
          find: () => this.recentWithMarker(input.clientId, marker),
          create: () =>
            this.crm.createPayment({
              clientId: input.clientId,
              amount: input.amount,
              ...(method ? { methodId: method.id } : {}),
              note: withMarkers(input.note, marker),
            }),
          keep: (payments) => payments.reduce((a, b) => (b.id < a.id ? b : a)),
          // The CRM API cannot delete a payment: a duplicate is never removed, only never made.
          isDuplicate: () => false,
          remove: () => Promise.resolve(),
          id: (payment) => payment.id,
        },
        this.writes.retry,
      );
      return { payment: { ...record, note: withoutMarkers(record.note) }, client, ...(method ? { method } : {}), alreadyRecorded: !created };
    } finally {
      release();
    }
  }

  /**
   * The CLI's operation key when none is given: the same client, amount, method and note on the same
   * day are one operation, so re-running a command whose answer was lost records nothing new.
   */
  operationKeyFor(input: PaymentInput): string {
    const fields = JSON.stringify([input.clientId, input.amount, input.method?.trim().toLowerCase() ?? '', input.note ?? '', this.today()]);
    return `cli-${createHash('sha256').update(fields).digest('hex').slice(0, 16)}`;
  }

  private async recentWithMarker(clientId: number, marker: string): Promise<Payment[]> {
    const found: Payment[] = [];
    let searched = 0;
    for await (const payment of this.crm.payments({ clientId, direction: 'DESC' }, RECENT_PAYMENTS_SEARCHED)) {
      if (noteHas(payment.note, marker)) found.push(payment);
      if (++searched >= RECENT_PAYMENTS_SEARCHED) break;
    }
    return found;
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
