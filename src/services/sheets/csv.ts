/**
 * The CSV reading an install sheet needs (RFC 4180 as spreadsheets write it): a byte-order mark, CRLF or
 * LF line ends, quoted fields with doubled quotes and line breaks inside, and `,` or `;` as the separator
 * (spreadsheets in comma-decimal locales write `;`: the header line decides). A malformed file is refused
 * with the line and column where it goes wrong, so the agent can find it in their editor.
 *
 * Hand-written rather than a CSV library: the project adds no dependency for forty lines, and this is all
 * of the format a sheet of installs uses (docs/cli.md: Install sheets).
 */

export interface CsvRecord {
  /** 1-based line of the file the record starts on. */
  line: number;
  fields: string[];
  /** Where each field starts in the file (a quoted field may span lines). */
  starts: { line: number; column: number }[];
}

export interface CsvProblem {
  line: number;
  /** 1-based, in characters of that line. */
  column: number;
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

export function parseCsv(input: string): CsvRead {
  const text = input.startsWith('\uFEFF') ? input.slice(1) : input;
  const separator = separatorOf(text);
  const records: CsvRecord[] = [];
  let line = 1;
  let column = 0;
  let fields: string[] = [];
  let starts: CsvRecord['starts'] = [];
  let field = '';
  let fieldStart = { line: 1, column: 1 };
  let recordLine = 1;
  /** Where the open quoted field started, while inside it. */
  let quotedFrom: { line: number; column: number } | undefined;
  /** The field was quoted and its closing quote has been read: only a separator or a line end may follow. */
  let closed = false;
  const fail = (problem: string, at = { line, column }): CsvRead => ({ ok: false, problem: { ...at, problem } });
  const endField = () => {
    fields.push(field);
    starts.push(fieldStart);
    field = '';
    closed = false;
  };
  const endRecord = () => {
    endField();
    // A blank line is no record (a sheet's trailing empty lines).
    if (fields.length > 1 || fields[0] !== '') records.push({ line: recordLine, fields, starts });
    fields = [];
    starts = [];
  };
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    column++;
    if (quotedFrom) {
      if (char === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
        column++;
      } else if (char === '"') {
        quotedFrom = undefined;
        closed = true;
      } else {
        field += char;
        if (char === '\n') {
          line++;
          column = 0;
        }
      }
      continue;
    }
    if (char === separator) {
      endField();
      fieldStart = { line, column: column + 1 };
    } else if (char === '\r' || char === '\n') {
      if (char === '\r' && text[i + 1] === '\n') i++;
      endRecord();
      line++;
      column = 0;
      recordLine = line;
      fieldStart = { line, column: 1 };
    } else if (closed) {
      return fail(`Unexpected ${JSON.stringify(char)} after a closing quote: a quoted field ends at its separator.`);
    } else if (char === '"') {
      if (field !== '') return fail('A quote inside an unquoted field: put the whole field in quotes and double the quote ("").');
      quotedFrom = { line, column };
    } else field += char;
  }
  if (quotedFrom) return fail('This quoted field is never closed.', quotedFrom);
  if (field !== '' || fields.length || closed) endRecord();
  return { ok: true, separator, records };
}
