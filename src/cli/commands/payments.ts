/** `subops payments` (list, with totals per currency, or export) and `subops payments add`. */
import { parseFlags, positiveInt } from '../args.js';
import { connect } from '../../connect.js';
import { EXIT, UsageError, writeLine, type CliIo } from '../io.js';
import { csvHeader, csvLine, renderPaymentSummary } from '../render.js';
import { formatMoney } from '../../services/money.js';
import { validatePaymentInput } from '../../services/payments.js';
import { clientDisplayName } from '../../services/uisp/crm-client.js';

export const paymentsHelp = `Usage: subops payments [--client-id <id>] [--from YYYY-MM-DD] [--to YYYY-MM-DD] [--limit <n>] [--json | --csv]
       subops payments add --client-id <id> --amount <n> [--method <id or name>] [--note <text>] [--key <text>]

Lists payments newest first with totals per currency. Without dates: the last 30 days for all
clients, or a client's whole history. --csv prints a header line then one line per payment;
--json one JSON object per payment per line. \`payments add\` records a payment once: the same
client, amount, method and note on the same day is one operation, so running it again (say after
a lost answer) records nothing new. --key names the operation instead (letters, digits, . _ : -),
e.g. a receipt number; give a new key to record a second identical payment.`;

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
  const clientId = positiveInt('--client-id', values['client-id']);
  const show = positiveInt('--limit', values.limit) ?? 20;
  const query = { ...(clientId !== undefined && { clientId }), ...(values.from && { from: values.from }), ...(values.to && { to: values.to }) };
  const connection = await connect(io.env, (line) => writeLine(io.stderr, line));
  try {
    const { payments: service } = connection.services;
    if (values.csv || values.json) {
      const stream = service.stream(query);
      if (values.csv) writeLine(io.stdout, csvHeader());
      for await (const payment of stream) writeLine(io.stdout, values.csv ? csvLine(payment) : JSON.stringify(payment));
      return EXIT.ok;
    }
    const summary = await service.summarize({ ...query, show });
    for (const line of renderPaymentSummary(summary, await service.clientNames(summary.payments))) writeLine(io.stdout, line);
    return EXIT.ok;
  } finally {
    await connection.close();
  }
}

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
  const clientId = positiveInt('--client-id', values['client-id'], true);
  if (values.amount === undefined) throw new UsageError('--amount is required.');
  const amount = Number(values.amount);
  const input = { clientId, amount, ...(values.method && { method: values.method }), ...(values.note && { note: values.note }) };
  validatePaymentInput(input); // before connecting: bad input never reaches UISP
  const connection = await connect(io.env, (line) => writeLine(io.stderr, line));
  try {
    const { payments: service } = connection.services;
    const { payment, client, method, alreadyRecorded } = await service.record(input, { operationKey: values.key ?? service.operationKeyFor(input) });
    if (values.json) writeLine(io.stdout, JSON.stringify(payment));
    else {
      const what = `payment #${payment.id}: ${formatMoney(payment.amount, payment.currencyCode)} from client #${client.id} ${clientDisplayName(client)}${method ? ` by ${method.name}` : ''}`;
      writeLine(
        io.stdout,
        alreadyRecorded
          ? `Already recorded: ${what} (the same operation was recorded before). Nothing was changed; to record another identical payment, give a new --key.`
          : `Recorded ${what}.`,
      );
    }
    return EXIT.ok;
  } finally {
    await connection.close();
  }
}
