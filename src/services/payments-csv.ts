/**
 * The payments CSV, one format for `subops payments --csv` and Slack's "Export CSV": a header, then one
 * line per payment with the client's name beside its id. Cells are quoted when needed, and text that a
 * spreadsheet would run as a formula is prefixed so it is shown instead.
 */
import type { Payment } from './uisp/schemas.js';

const CSV_COLUMNS = ['id', 'createdDate', 'clientId', 'clientName', 'amount', 'currencyCode', 'methodId', 'note'] as const;

export type CsvRow = Partial<Record<(typeof CSV_COLUMNS)[number], string | number | null>>;

export const csvHeader = () => CSV_COLUMNS.join(',');

export const csvLine = (row: CsvRow): string => lineOf((column) => row[column]);

/** A payment and its client's name (null when unknown) as a CSV line, without copying the payment (an export makes 100 000 of these). */
export const paymentCsvLine = (payment: Payment, clientName: string | null): string => lineOf((column) => (column === 'clientName' ? clientName : payment[column]));

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
