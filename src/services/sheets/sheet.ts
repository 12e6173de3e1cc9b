/**
 * An install sheet read into activation requests: a CSV file (./csv.ts) with a header row naming the
 * activation's own fields, in any order (the template: examples/install-sheet.csv). A file that cannot be
 * read as a sheet (malformed, no header, a column it does not know, too many rows) is refused whole; a
 * row whose fields the activation's input grammar refuses is kept, in error, naming the row and field,
 * so the other rows can still run.
 */
import { validateActivationRequest, type ActivationField } from '../activation/request.js';
import type { ActivationRequest } from '../activation/types.js';
import { parseCsv } from './csv.js';

/** The most rows one sheet may hold: a field team's day is ten to forty installs. */
export const SHEET_MAX_ROWS = 200;

/** The header of each column a sheet may have; the first three are required. */
export const SHEET_COLUMNS: Record<ActivationField, string> = {
  device: 'device',
  firstName: 'first_name',
  lastName: 'last_name',
  clientId: 'client_id',
  email: 'email',
  phone: 'phone',
};
const REQUIRED: readonly ActivationField[] = ['device', 'firstName', 'lastName'];

/** A row of the sheet: its number (1 = the first row under the header) and the file line it starts on. */
export interface SheetPlace {
  row: number;
  line: number;
}

export type SheetRow = SheetPlace & ({ ok: true; request: ActivationRequest } | { ok: false; problems: { column: string; problem: string }[] });

/** Why a file is not a sheet: nothing of it runs. */
export type SheetFileProblem =
  | { code: 'malformed'; line: number; column?: number; problem: string }
  | { code: 'empty' }
  | { code: 'missing-columns'; columns: string[] }
  | { code: 'unknown-columns'; columns: string[] }
  | { code: 'duplicate-column'; column: string }
  | { code: 'too-many-rows'; rows: number; max: number }
  /** A row with more fields than the header names (`line`, `column`: the first extra field's line and number). */
  | { code: 'extra-fields'; line: number; column: number; fields: number; header: number };

export type SheetRead = { ok: true; rows: SheetRow[] } | { ok: false; problem: SheetFileProblem };

/** "First Name", "first-name" and "FIRST_NAME" all name first_name. */
const headerKey = (text: string) => text.trim().toLowerCase().replace(/[\s-]+/g, '_');

export function readSheet(text: string): SheetRead {
  const csv = parseCsv(text);
  if (!csv.ok) return { ok: false, problem: { code: 'malformed', ...csv.problem } };
  const [header, ...records] = csv.records;
  if (!header) return { ok: false, problem: { code: 'empty' } };
  const fieldOf = new Map(Object.entries(SHEET_COLUMNS).map(([field, column]) => [column, field as ActivationField]));
  const columns = header.fields.map(headerKey);
  const unknown = columns.filter((column) => !fieldOf.has(column));
  if (unknown.length) return { ok: false, problem: { code: 'unknown-columns', columns: unknown } };
  const twice = columns.find((column, i) => columns.indexOf(column) !== i);
  if (twice) return { ok: false, problem: { code: 'duplicate-column', column: twice } };
  const missing = REQUIRED.map((field) => SHEET_COLUMNS[field]).filter((column) => !columns.includes(column));
  if (missing.length) return { ok: false, problem: { code: 'missing-columns', columns: missing } };
  if (records.length > SHEET_MAX_ROWS) return { ok: false, problem: { code: 'too-many-rows', rows: records.length, max: SHEET_MAX_ROWS } };
  const rows: SheetRow[] = [];
  for (const [index, record] of records.entries()) {
    if (record.fields.length > columns.length) {
      return { ok: false, problem: { code: 'extra-fields', line: record.line, column: columns.length + 1, fields: record.fields.length, header: columns.length } };
    }
    const input = Object.fromEntries(columns.map((column, i) => [fieldOf.get(column)!, record.fields[i]]));
    const validation = validateActivationRequest(input);
    const place = { row: index + 1, line: record.line };
    rows.push(
      validation.ok
        ? { ...place, ok: true, request: validation.request }
        : { ...place, ok: false, problems: Object.entries(validation.errors).map(([field, problem]) => ({ column: SHEET_COLUMNS[field as ActivationField], problem })) },
    );
  }
  return { ok: true, rows };
}

/** The template's example rows: a reused client by id, a new client, and a device found by MAC. */
const TEMPLATE_EXAMPLES: Partial<Record<ActivationField, string>>[] = [
  { device: '10.20.1.51', firstName: 'Priya', lastName: 'Ramnarine', clientId: '1002' },
  { device: 'NS-Fraser', firstName: 'Dwayne', lastName: 'Fraser' },
  { device: '74:83:c2:0f:ab:88', firstName: 'Ada', lastName: 'Lovelace' },
];

/**
 * The template a sheet starts from (examples/install-sheet.csv, and what Slack's Template button sends):
 * every column's header, then the examples. Their values hold no separator or quote, so none is quoted.
 */
export function sheetTemplate(): string {
  const fields = Object.keys(SHEET_COLUMNS) as ActivationField[];
  const lines = [fields.map((field) => SHEET_COLUMNS[field]), ...TEMPLATE_EXAMPLES.map((example) => fields.map((field) => example[field] ?? ''))];
  return lines.map((line) => `${line.join(',')}\n`).join('');
}
