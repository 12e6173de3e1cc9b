/**
 * Reading an install sheet's CSV with `csv-parse` (a solved problem, so a well-kept library): a byte-order
 * mark, CRLF or LF line ends, quoted fields with doubled quotes and line breaks inside, and `,` or `;` as
 * the separator (spreadsheets in comma-decimal locales write `;`: the header line decides). A malformed
 * file is refused with the line and the column (the field's number, as a spreadsheet counts columns)
 * where it goes wrong, so the agent can find it.
 */
import { CsvError, parse } from 'csv-parse/sync';

export interface CsvRecord {
  /** 1-based line of the file the record starts on. */
  line: number;
  fields: string[];
}

export interface CsvProblem {
  line: number;
  /** 1-based: the field's number in its line; none when the parser cannot tell (a quote never closed). */
  column?: number;
  problem: string;
}

export type CsvRead = { ok: true; separator: ',' | ';'; records: CsvRecord[] } | { ok: false; problem: CsvProblem };

/** The separator the header line uses: `;` when it has more of them than commas (outside quotes). */
function separatorOf(text: string): ',' | ';' {
  let commas = 0;
  let semicolons = 0;
  let quoted = false;
  for (const char of text) {
    if (char === '"') quoted = !quoted;
    else if (!quoted && (char === '\n' || char === '\r')) break;
    else if (!quoted && char === ',') commas++;
    else if (!quoted && char === ';') semicolons++;
  }
  return semicolons > commas ? ';' : ',';
}

/** csv-parse's codes, as the agent reads them. */
const PROBLEMS: Record<string, string> = {
  CSV_QUOTE_NOT_CLOSED: 'A quoted field starts here and is never closed.',
  INVALID_OPENING_QUOTE: 'A quote inside an unquoted field: quote the whole field, and double the quote inside it.',
  CSV_INVALID_CLOSING_QUOTE: 'Text after a closing quote: quote the whole field, and double the quote inside it.',
};

export function parseCsv(input: string): CsvRead {
  const separator = separatorOf(input.startsWith('\uFEFF') ? input.slice(1) : input);
  let parsed: { record: string[]; info: { bytes: number } }[];
  try {
    parsed = parse(input, { bom: true, delimiter: separator, info: true, relax_column_count: true, skip_empty_lines: false }) as unknown as typeof parsed;
  } catch (error) {
    if (!(error instanceof CsvError)) throw error;
    const at = error as CsvError & { lines?: number; column?: number | string };
    const column = error.code !== 'CSV_QUOTE_NOT_CLOSED' && typeof at.column === 'number' ? { column: at.column + 1 } : {};
    return { ok: false, problem: { line: at.lines ?? 1, ...column, problem: PROBLEMS[error.code] ?? error.message } };
  }
  // Where each record starts: the line after the bytes read before it (csv-parse counts bytes exactly).
  const bytes = Buffer.from(input);
  const records: CsvRecord[] = [];
  let start = 0;
  let line = 1;
  for (const { record, info } of parsed) {
    const blank = record.length === 1 && record[0] === '';
    if (!blank) records.push({ line, fields: record });
    for (let i = start; i < info.bytes; i++) if (bytes[i] === 0x0a) line++;
    start = info.bytes;
  }
  return { ok: true, separator, records };
}
