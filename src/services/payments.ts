/**
 * Payment listing with per-currency totals, and recording payments. Listing streams UISP's pages
 * (limit ≤ 500) so memory stays bounded by the number of payments shown, not the number counted.
 */
import { createHash } from 'node:crypto';
import { ensureOne, noteHas, withMarkers, type Locks, type WriteRetryPolicy } from './converge.js';
import type { CrmClient, PaymentFilters } from './uisp/crm-client.js';
import { ClientList, ClientNameBook } from './client-names.js';
import type { Client, Payment, PaymentMethod } from './uisp/schemas.js';
import { TtlCache } from './cache.js';
import { daysBefore } from './dates.js';
import { InputError, notFoundAsInputError } from './errors.js';
import { checkAmount, checkDateRange, checkId, optional, readAmount, readClientKey, readDate, readFields, readId, readLine, readNote, type ClientKey, type Read } from './input/grammar.js';

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
  /** The client the query names, as just read. */
  client?: Client | undefined;
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
const MARKER_LINE = /^subops:op=\S+$/;
/**
 * The note as the agent wrote it: SubOps' own marker line left out. Everything people see (the listings,
 * the CSV, --json) shows this; UISP keeps the marker, which is how a repeated operation is recognised.
 */
export function displayNote(note: string | null | undefined): string | null {
  if (!note) return null;
  if (!note.includes('subops:op=')) return note;
  const kept = note
    .split('\n')
    .filter((line) => !MARKER_LINE.test(line.trim()))
    .join('\n');
  return kept || null;
}

/** How many of the client's newest payments are searched for an operation's marker. */
const RECENT_PAYMENTS_SEARCHED = 50;

/** Days covered by a listing that names no date range. */
export const DEFAULT_PAYMENT_WINDOW_DAYS = 30;

export interface PaymentLimits {
  /** The largest amount one payment may record (PAYMENT_MAX_AMOUNT). */
  maxAmount: number;
}

/**
 * How long a listing may show a client's name or a payment method as read earlier. Both change rarely,
 * and a listing reads them on every call: 20 payments of different clients would be 20 reads.
 */
export const CLIENT_NAME_TTL_MS = 60_000;
export const PAYMENT_METHODS_TTL_MS = 300_000;

/**
 * A page of payments, the display names of their clients (a client that could not be read is left out)
 * and the names of the CRM's payment methods by id (empty when the methods could not be read).
 */
export interface PaymentsPage {
  payments: Payment[];
  clientNames: ReadonlyMap<number, string>;
  methodNames: ReadonlyMap<string, string>;
}

/** How far a long read has got: pages of UISP's answer, and the payments in them. */
export interface PagesRead {
  pages: number;
  payments: number;
}

/** The name a page gives the client of one of its payments; null when it has none or it could not be read. */
export const clientNameIn = ({ clientNames }: Pick<PaymentsPage, 'clientNames'>, payment: Payment): string | null =>
  payment.clientId == null ? null : (clientNames.get(payment.clientId) ?? null);

/** The name of a payment's method; null when it has none or the methods could not be read. */
export const methodNameIn = ({ methodNames }: Pick<PaymentsPage, 'methodNames'>, payment: Payment): string | null =>
  payment.methodId == null ? null : (methodNames.get(payment.methodId) ?? null);

export class PaymentService {
  private readonly clients: TtlCache<number, Client>;
  private readonly methods: TtlCache<'all', PaymentMethod[]>;
  private readonly clientList: ClientList;

  constructor(
    private readonly crm: CrmClient,
    private readonly today: () => string,
    private readonly writes: { limits: PaymentLimits; retry: WriteRetryPolicy; locks: Locks },
    /** Milliseconds, for the caches' TTLs. */
    now: () => number = Date.now,
    /** Said once when the CRM turns out not to page its client list as asked (the log; the CLI's stderr). */
    notice: (line: string) => void = () => undefined,
  ) {
    this.clients = new TtlCache({ ttlMs: CLIENT_NAME_TTL_MS, now });
    this.methods = new TtlCache({ ttlMs: PAYMENT_METHODS_TTL_MS, now, maxEntries: 1 });
    this.clientList = new ClientList(crm, notice);
  }

  /** A payment as typed in a form or on the command line, read by the input grammar with this service's limits. */
  readInput(fields: PaymentFields): PaymentInputRead {
    return readPaymentInput(fields, this.writes.limits);
  }

  /** `onPage` hears of each page of UISP's answer as it is counted (a long range reads hundreds: the CLI shows progress). */
  async summarize(query: PaymentQuery, { onPage }: { onPage?: (read: PagesRead) => void } = {}): Promise<PaymentSummary> {
    const ranged = this.range(query);
    const client = await this.namedClient(query);
    const show = query.show ?? 20;
    const skip = query.skip ?? 0;
    const payments: Payment[] = [];
    const totals = new CurrencyTotals();
    let count = 0;
    let pages = 0;
    for await (const page of this.crm.paymentPages(this.filters(ranged))) {
      for (const payment of page) {
        if (count >= skip && payments.length < show) payments.push({ ...payment, note: displayNote(payment.note) });
        count++;
        totals.add(payment);
      }
      onPage?.({ pages: ++pages, payments: count });
    }
    const pageTotals = new CurrencyTotals();
    for (const payment of payments) pageTotals.add(payment);
    return { query: ranged, payments, totals: totals.list(), pageTotals: pageTotals.list(), count, ...(client && { client }) };
  }

  /** The client a query names, read first: an unknown id is "no client #id" (an InputError), never "no payments". */
  private async namedClient(query: PaymentQuery): Promise<Client | undefined> {
    return query.clientId === undefined ? undefined : this.getClient(query.clientId);
  }

  /**
   * The payments of the range for the CSV export, newest first, a page at a time with its clients' and
   * payment methods' names; `show` stops after that many (no further page is read). Names are kept as
   * id → name for the whole export, never whole client records; the clients a page brings that are not
   * named yet are named before the page is handed over: a few read one at a time (through the listing's
   * cache), many from the CRM's client list read once (./client-names.ts). The payment methods are read
   * once (cached), alongside the first page. Nothing per payment is made here: a page is handed over as
   * read (its notes as the CRM has them; the CSV and --json show them with `displayNote`). `named: false`
   * (--json, which carries client ids only) names no client and asks the CRM for none.
   */
  async *pagesWithClientNames(query: PaymentQuery, { named = true }: { named?: boolean } = {}): AsyncGenerator<PaymentsPage> {
    // Method names are a nicety: without them each payment still carries its method id.
    const methodsRead = this.listMethods().then(
      (methods) => new Map(methods.map((method) => [method.id, method.name] as const)),
      () => new Map<string, string>(),
    );
    let methodNames: ReadonlyMap<string, string> | undefined;
    const names = this.nameBook();
    await this.namedClient(query);
    let left = query.show ?? Infinity;
    for await (const fetched of this.crm.paymentPages(this.filters(this.range(query)))) {
      const payments = fetched.length > left ? fetched.slice(0, left) : fetched;
      if (named) await names.add(clientIdsOf(payments));
      methodNames ??= await methodsRead;
      yield { payments, clientNames: names.known, methodNames };
      left -= payments.length;
      if (left <= 0) return;
    }
  }

  /**
   * Display names of the clients who made these payments: none read for clients in hand; the rest as an
   * export names them (a few from a cache, CLIENT_NAME_TTL_MS, one read per distinct client it lacks;
   * many from the client list). Names are a nicety: a client that cannot be read is left out, shown by id.
   */
  async clientNames(payments: Payment[], known: Client[] = []): Promise<ReadonlyMap<number, string>> {
    const names = this.nameBook(known);
    const ids = [...new Set(clientIdsOf(payments))];
    await names.add(ids);
    // In the payments' order, whatever order the reads ended in.
    return new Map(ids.flatMap((id) => (names.known.has(id) ? [[id, names.known.get(id)!] as const] : [])));
  }

  /** The names of one listing or export, a client read on its own going through the cache. */
  private nameBook(inHand: readonly Client[] = []): ClientNameBook {
    return new ClientNameBook(this.clientList, (id) => this.clients.get(id, () => this.crm.getClient(id)), inHand);
  }

  /** The CRM's payment methods, for forms and listings; cached for PAYMENT_METHODS_TTL_MS. */
  listMethods(): Promise<PaymentMethod[]> {
    return this.methods.get('all', () => this.crm.listPaymentMethods());
  }

  async resolveMethod(idOrName: string): Promise<PaymentMethod> {
    const wanted = idOrName.trim().toLowerCase();
    const methods = await this.crm.listPaymentMethods();
    const match = methods.find((m) => m.id.toLowerCase() === wanted) ?? methods.find((m) => m.name.toLowerCase() === wanted);
    if (!match) throw new InputError('method', `No payment method "${idOrName}". Known methods: ${methods.map((m) => m.name).join(', ')}.`);
    return match;
  }

  /** A fresh read of the client (a payment is about to be recorded, or a listing names it); listings' names reuse it. */
  async getClient(clientId: number): Promise<Client> {
    const client = await notFoundAsInputError(this.crm.getClient(clientId), 'client', `No CRM client #${clientId}.`);
    this.clients.set(client.id, client);
    return client;
  }

  /**
   * Records a payment once per operation. Everything is validated before the one write, so bad input
   * never reaches UISP's POST. The client's newest payments are searched for the operation's marker
   * before writing and again after a write that got no answer, so a repeated submission, a re-run or a
   * lost answer never records a second payment.
   */
  async record(input: PaymentInput, { operationKey }: { operationKey: string }): Promise<RecordedPayment> {
    validatePaymentInput(input, this.writes.limits);
    if (!OPERATION_KEY.test(operationKey)) throw new InputError('key', 'The operation key must be 1 to 64 letters, digits or . _ : - characters.');
    const client = await this.getClient(input.clientId);
    const method = input.method ? await this.resolveMethod(input.method) : undefined;
    const marker = paymentMarker(operationKey);
    const lock = await this.writes.locks.acquire([`payment:${operationKey}`]);
    try {
      const { record, created } = await ensureOne(
        {
          find: () => this.recentWithMarker(input.clientId, marker),
          // The CRM cannot delete a payment: each POST goes out only while this run still holds its key.
          create: async () => {
            await lock.confirm();
            return this.crm.createPayment({
              clientId: input.clientId,
              amount: input.amount,
              ...(method ? { methodId: method.id } : {}),
              note: withMarkers(input.note, marker),
            });
          },
          keep: (payments) => payments.reduce((a, b) => (b.id < a.id ? b : a)),
          // Only the payment this call created counts as new; the CRM API cannot delete a payment, so a
          // duplicate is never removed, only never made.
          isMine: () => false,
          id: (payment) => payment.id,
        },
        this.writes.retry,
      );
      return { payment: { ...record, note: displayNote(record.note) }, client, ...(method ? { method } : {}), alreadyRecorded: !created };
    } finally {
      lock.release();
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

  /** The query with its dates checked and resolved as a listing resolves them (the default window, a client's whole history). */
  range(query: PaymentQuery): PaymentSummary['query'] {
    for (const field of ['from', 'to'] as const) orRefuse(field, optional(readDate)(query[field], DATE_LABELS[field]));
    const to = query.to ?? this.today();
    const from = query.from ?? (query.clientId === undefined ? daysBefore(to, DEFAULT_PAYMENT_WINDOW_DAYS) : '2000-01-01');
    orRefuse('from', checkDateRange(from, to));
    return { ...query, from, to };
  }

  private filters(query: PaymentSummary['query']): PaymentFilters {
    return {
      ...(query.clientId !== undefined ? { clientId: query.clientId } : {}),
      createdDateFrom: query.from,
      // Through today is up to now: asked open-ended, because the CRM dates a payment on its own clock,
      // whose day may already be tomorrow (a CRM on UTC, an ISP west of it): "through today" in the CRM's
      // zone would leave out a payment recorded a minute ago.
      ...(query.to !== this.today() && { createdDateTo: query.to }),
      direction: 'DESC',
    };
  }
}

function* clientIdsOf(payments: readonly Payment[]): Generator<number> {
  for (const { clientId } of payments) if (clientId != null) yield clientId;
}

/** Sums per currency, in cents: floating-point sums of thousands of amounts drift visibly otherwise. */
/** Amounts added up per currency, to the cent (a listing's Totals). */
export class CurrencyTotals {
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
