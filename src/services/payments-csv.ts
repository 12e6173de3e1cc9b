/**
 * The payments CSV, one format for `subops payments --csv` and Slack's "Export CSV": a header, then one
 * line per payment with the client's name beside its id and the payment method's name beside its id.
 * The note is the one people see (`displayNote`: SubOps' own marker left out; UISP keeps it). Cells are
 * quoted when needed, and text that a spreadsheet would run as a formula is prefixed so it is shown instead.
 */
import { clientNameIn, displayNote, methodNameIn, type PaymentsPage } from './payments.js';
import type { Payment } from './uisp/schemas.js';

const CSV_COLUMNS = ['id', 'createdDate', 'clientId', 'clientName', 'amount', 'currencyCode', 'methodId', 'methodName', 'note'] as const;

export type CsvRow = Partial<Record<(typeof CSV_COLUMNS)[number], string | number | null>>;

export const csvHeader = () => CSV_COLUMNS.join(',');

export const csvLine = (row: CsvRow): string => lineOf((column) => row[column]);

/**
 * A payment of a page as a CSV line, its client's and method's names from the page (empty when unknown),
 * without copying the payment (an export makes 100 000 of these).
 */
export function paymentCsvLine(payment: Payment, page: Pick<PaymentsPage, 'clientNames' | 'methodNames'>): string {
  return lineOf((column) => {
    switch (column) {
      case 'clientName':
        return clientNameIn(page, payment);
      case 'methodName':
        return methodNameIn(page, payment);
      case 'note':
        return displayNote(payment.note);
      default:
        return payment[column];
    }
  });
}

function lineOf(cell: (column: (typeof CSV_COLUMNS)[number]) => CsvRow[keyof CsvRow]): string {
  return CSV_COLUMNS.map((column) => csvCell(cell(column))).join(',');
}

function csvCell(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return '';
  const text = String(value);
  // Quote when needed; prefix formula-looking text (OWASP's list: = + - @ tab CR) so a spreadsheet never
  // executes a note. Numbers are left alone: -5 is a number, not a formula.
  const safe = /^[=+\-@\t\r]/.test(text) && typeof value === 'string' ? `'${text}` : text;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}
