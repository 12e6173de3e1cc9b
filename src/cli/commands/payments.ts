/** `subops payments` (list, with totals per currency, or export) and `subops payments add`. */
import { flagProblems, flagValue, parseFlags } from '../args.js';
import { connectCli } from '../connection.js';
import { loadCoreConfig } from '../../config.js';
import { EXIT, outputClosed, UsageError, whenWritable, writeLine, writeLines, writeText, type CliIo } from '../io.js';
import { renderPaymentSummary } from '../render.js';
import { csvHeader, paymentCsvLine } from '../../services/payments-csv.js';
import { optional, readWholeNumber } from '../../services/input/grammar.js';
import { formatMoney } from '../../services/money.js';
import { CurrencyTotals, readPaymentInput, readPaymentQuery, type PagesRead, type PaymentQuery, type PaymentService, type PaymentSummary } from '../../services/payments.js';
import type { PaymentMethod } from '../../services/uisp/schemas.js';
import { progressFor, type ClockedIo } from '../progress.js';
import { clientDisplayName } from '../../services/uisp/crm-client.js';
import { paymentAudit, paymentFailureAudit } from '../../services/audit-records.js';
import { auditedFailure, openCliAudit } from '../audit.js';
import { clientJson, jsonLine, paymentJson, type PaymentLineJson, type PaymentTotalsJson, type RecordedPaymentJson } from '../json.js';

/** How many of the newest payments the human listing shows at most (totals always cover all). */
const MAX_SHOWN = 10_000;

export const paymentsHelp = `Usage: subops payments [--client-id <id>] [--from YYYY-MM-DD] [--to YYYY-MM-DD] [--limit <n>] [--json | --csv]
       subops payments add --client-id <id> --amount <n> [--method <id or name>] [--note <text>] [--key <text>]

Lists payments newest first with totals per currency. Without dates: the last 30 days for all
clients, or a client's whole history. --limit (1-${MAX_SHOWN}, default 20) is how many are listed.
--csv prints a header line then one line per payment (the client's and the payment method's names
beside their ids); --json one payment object per line (docs/cli.md: JSON output); both stream every payment
of the range, or the newest --limit when given. Notes are shown without SubOps' own operation marker
(UISP keeps it). On a terminal, a long read shows its progress on stderr (pages read, rows written,
elapsed). Ids may be written 1001 or #1001; amounts as 1500, 1,500 or 1500.50 (greater than 0, at
most PAYMENT_MAX_AMOUNT).

\`payments add\` records a payment once (--json: one object with the payment and its client): the
same client, amount, method and note on the same day is one operation, so running it again (say
after a lost answer) records nothing new. --key names the operation instead (letters, digits,
. _ : -), e.g. a receipt number; give a new key to record a second identical payment.`;

export async function payments(argv: string[], io: CliIo): Promise<number> {
  if (argv[0] === 'add') return addPayment(argv.slice(1), io);
  const { values } = parseFlags(argv, {
    'client-id': { type: 'string' },
    from: { type: 'string' },
    to: { type: 'string' },
    limit: { type: 'string' },
    json: { type: 'boolean' },
    csv: { type: 'boolean' },
  });
  if (values.help) return writeLine(io.stdout, paymentsHelp), EXIT.ok;
  if (values.json && values.csv) throw new UsageError('--json and --csv cannot be combined.');
  const read = readPaymentQuery({ client: values['client-id'], from: values.from, to: values.to });
  if (!read.ok) throw flagProblems(read.problems);
  const { query } = read;
  const limit = flagValue('--limit', optional(readWholeNumber({ min: 1, max: MAX_SHOWN }))(values.limit, 'Limit'));
  const connection = await connectCli(io, values.csv ? 'csv' : values.json ? 'json' : 'text');
  try {
    if (values.csv || values.json) return await exportPayments(connection.services.payments, { ...query, ...(limit !== undefined && { show: limit }) }, values.csv ? 'csv' : 'json', io);
    return await listPayments(connection.services.payments, { ...query, show: limit ?? 20 }, io);
  } finally {
    await connection.close();
  }
}

/**
 * --csv and --json: every payment of the range (or the newest --limit), streamed page by page. Progress
 * (pages read, rows written, elapsed) on a terminal's stderr while stdout goes to a file or a pipe.
 */
async function exportPayments(service: PaymentService, query: PaymentQuery, format: 'csv' | 'json', io: ClockedIo): Promise<number> {
  const progress = progressFor(io, { streamsToStdout: true });
  let pages = 0;
  let rows = 0;
  const status = () => `Exporting payments: ${plural(pages, 'page')} read, ${plural(rows, 'row')} written, ${progress.elapsed()}`;
  // The header waits for the first page: a client UISP does not know is an error, with nothing on stdout.
  let headed = format !== 'csv';
  const totals = new CurrencyTotals();
  const head = () => {
    if (!headed) writeLine(io.stdout, csvHeader());
    headed = true;
  };
  try {
    // Leaving the loop (a closed pipe) stops the paging: no further page is requested; --limit stops it in the service.
    for await (const page of service.pagesWithClientNames(query, { named: format === 'csv' })) {
      // The reader went away (`| head -1`): stop paging through UISP for output nobody reads.
      if (outputClosed(io.stdout)) break;
      head();
      const methods = format === 'json' ? methodsOf(page.methodNames) : [];
      for (const payment of page.payments) totals.add(payment);
      const lines = page.payments.map((payment) => (format === 'csv' ? paymentCsvLine(payment, page) : jsonLine(io, { type: 'payment', ...paymentJson(payment, methods) } satisfies PaymentLineJson)));
      if (!writeLines(io.stdout, lines)) await whenWritable(io.stdout);
      pages++;
      rows += lines.length;
      progress.update(status);
    }
    head();
    // JSON ends with the totals, as the text listing does; CSV stays rows only (a spreadsheet adds them up).
    if (format === 'json' && !outputClosed(io.stdout)) writeLine(io.stdout, jsonLine(io, { type: 'totals', count: rows, totals: totals.list() } satisfies PaymentTotalsJson));
  } finally {
    progress.done(status);
  }
  return EXIT.ok;
}

/** The listing with totals: every payment of the range is counted; progress (pages read, payments counted, elapsed) on a terminal's stderr. */
async function listPayments(service: PaymentService, query: PaymentQuery, io: ClockedIo): Promise<number> {
  const progress = progressFor(io, { streamsToStdout: false });
  let read: PagesRead = { pages: 0, payments: 0 };
  const status = () => `Reading payments: ${plural(read.pages, 'page')} read, ${plural(read.payments, 'payment')} counted, ${progress.elapsed()}`;
  let summary: PaymentSummary;
  try {
    summary = await service.summarize(query, {
      onPage: (now) => {
        read = now;
        progress.update(status);
      },
    });
  } finally {
    progress.done(status);
  }
  const names = await service.clientNames(summary.payments);
  // The header names the client in full; the table's client column ends a cut name with "…".
  const [header = ''] = renderPaymentSummary({ ...summary, payments: [] }, names);
  const [, ...table] = renderPaymentSummary(summary, names);
  writeText(io.stdout, header, ...table);
  return EXIT.ok;
}

const methodsOf = (names: ReadonlyMap<string, string>): PaymentMethod[] => Array.from(names, ([id, name]) => ({ id, name }));

const plural = (count: number, noun: string) => `${count.toLocaleString('en-US')} ${noun}${count === 1 ? '' : 's'}`;

async function addPayment(argv: string[], io: CliIo): Promise<number> {
  const { values } = parseFlags(argv, {
    'client-id': { type: 'string' },
    amount: { type: 'string' },
    method: { type: 'string' },
    note: { type: 'string' },
    key: { type: 'string' },
    json: { type: 'boolean' },
  });
  if (values.help) return writeLine(io.stdout, paymentsHelp), EXIT.ok;
  // Read before connecting, with the configured PAYMENT_MAX_AMOUNT: bad input never reaches UISP.
  const read = readPaymentInput({ client: values['client-id'], amount: values.amount, method: values.method, note: values.note }, loadCoreConfig(io.env).payments);
  if (!read.ok) throw flagProblems(read.problems);
  const { input } = read;
  const connection = await connectCli(io, values.json ? 'json' : 'text');
  try {
    const audit = await openCliAudit(io, connection.config.logLevel);
    const { payments: service } = connection.services;
    let recorded;
    try {
      recorded = await service.record(input, { operationKey: values.key ?? service.operationKeyFor(input) });
    } catch (error) {
      const failure = auditedFailure(error);
      if (failure) await audit.record(paymentFailureAudit(input, failure));
      throw error;
    }
    const { payment, client, method, alreadyRecorded } = recorded;
    if (values.json) writeLine(io.stdout, jsonLine(io, { type: 'recorded-payment', payment: paymentJson(payment, method ? [method] : []), client: clientJson(client), alreadyRecorded } satisfies RecordedPaymentJson));
    else {
      const what = `payment #${payment.id}: ${formatMoney(payment.amount, payment.currencyCode)} from client #${client.id} ${clientDisplayName(client)}${method ? ` by ${method.name}` : ''}`;
      writeText(
        io.stdout,
        alreadyRecorded
          ? `Already recorded: ${what} (the same operation was recorded before). Nothing was changed; to record another identical payment, give a new --key.`
          : `Recorded ${what}.`,
      );
    }
    await audit.record(paymentAudit(recorded));
    return EXIT.ok;
  } finally {
    await connection.close();
  }
}
