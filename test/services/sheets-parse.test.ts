/** Reading an install sheet: the CSV forms spreadsheets write, the header, the row limit, and what is refused where. */
import { describe, expect, it } from 'vitest';
import { parseCsv } from '../../src/services/sheets/csv.js';
import { readSheet, SHEET_COLUMNS, SHEET_MAX_ROWS, sheetTemplate } from '../../src/services/sheets/sheet.js';
import { readFile } from 'node:fs/promises';

const requests = (text: string) => {
  const sheet = readSheet(text);
  if (!sheet.ok) throw new Error(JSON.stringify(sheet.problem));
  return sheet.rows.map((row) => (row.ok ? row.request : row.problems));
};

describe('the CSV forms a spreadsheet writes', () => {
  it('reads a BOM, CRLF, quoted fields with separators, doubled quotes and line breaks, and skips blank lines', () => {
    const csv = parseCsv('\uFEFFa,b\r\n"x, y","say ""hi"""\r\n\r\n"two\r\nlines",z\r\n');
    expect(csv).toEqual({
      ok: true,
      separator: ',',
      records: [
        { line: 1, fields: ['a', 'b'] },
        { line: 2, fields: ['x, y', 'say "hi"'] },
        { line: 4, fields: ['two\r\nlines', 'z'] },
      ],
    });
  });

  it('detects `;` as the separator from the header line', () => {
    expect(requests('last_name;first_name;device;client_id\nO\'Neil;Jean-Luc;10.20.1.88;\n')).toEqual([{ device: '10.20.1.88', firstName: 'Jean-Luc', lastName: "O'Neil" }]);
  });

  it('refuses a malformed file with the line and column: a quote never closed, a quote inside a field, text after a closing quote', () => {
    expect(parseCsv('device,first_name\n"10.20.1.88,Ada\n')).toEqual({ ok: false, problem: { line: 2, problem: expect.stringContaining('never closed') } });
    expect(parseCsv('device,first_name\n10.20.1.88,A"da\n')).toEqual({ ok: false, problem: { line: 2, column: 2, problem: expect.stringContaining('quote inside an unquoted field') } });
    expect(parseCsv('a,b\nx,"y"z\n')).toEqual({ ok: false, problem: { line: 2, column: 2, problem: expect.stringContaining('after a closing quote') } });
  });
});

describe('an install sheet', () => {
  it('takes the columns in any order, by the template names (any case, spaces or hyphens), client_id, email and phone optional', () => {
    expect(requests('First Name,LAST-NAME,Device,client_id,email\nada,LOVELACE,10.20.1.88,#1002,ada@example.org\nGrace,Hopper,cpe-hope,,\n')).toEqual([
      { device: '10.20.1.88', firstName: 'ada', lastName: 'LOVELACE', clientId: 1002, email: 'ada@example.org' },
      { device: 'cpe-hope', firstName: 'Grace', lastName: 'Hopper' },
    ]);
  });

  it('keeps a row the input grammar refuses, in error, naming the row, its line and the column', () => {
    const sheet = readSheet('device,first_name,last_name,client_id\n10.20.1.88,Ada,Lovelace,\n10.20.1.51,,Ramnarine,abc\n');
    expect(sheet.ok && sheet.rows[1]).toEqual({
      row: 2,
      line: 3,
      ok: false,
      problems: [
        { column: 'first_name', problem: 'Enter the first name.' },
        { column: 'client_id', problem: expect.stringContaining('CRM client id must be a positive whole number') },
      ],
    });
  });

  it('refuses a file that is not a sheet: a column it does not know, a required one missing, a row longer than the header', () => {
    expect(readSheet('device,first_name,last_name,notes\n')).toEqual({ ok: false, problem: { code: 'unknown-columns', columns: ['notes'] } });
    expect(readSheet('device,first_name\n')).toEqual({ ok: false, problem: { code: 'missing-columns', columns: ['last_name'] } });
    expect(readSheet('')).toEqual({ ok: false, problem: { code: 'empty' } });
    expect(readSheet('device,first_name,last_name\n10.20.1.88,"Ada",Lovelace,extra\n')).toEqual({ ok: false, problem: { code: 'extra-fields', line: 2, column: 4, fields: 4, header: 3 } });
    // A record after one that spans lines starts on its own line.
    expect(readSheet('device,first_name,last_name\n10.20.1.88,"Ada\nB",Lovelace\n10.20.1.89,Ada,Lovelace,extra\n')).toMatchObject({ ok: false, problem: { code: 'extra-fields', line: 4, column: 4 } });
  });

  it(`takes ${SHEET_MAX_ROWS} rows and refuses ${SHEET_MAX_ROWS + 1}`, () => {
    const sheet = (rows: number) => ['device,first_name,last_name', ...Array.from({ length: rows }, (_, i) => `dev-${i},Ada,Lovelace`)].join('\n');
    expect(readSheet(sheet(SHEET_MAX_ROWS)).ok).toBe(true);
    expect(readSheet(sheet(SHEET_MAX_ROWS + 1))).toEqual({ ok: false, problem: { code: 'too-many-rows', rows: 201, max: 200 } });
  });
});

describe('the template', () => {
  it('examples/install-sheet.csv is the template SubOps sends: every column, and example rows that read', async () => {
    expect(await readFile(new URL('../../examples/install-sheet.csv', import.meta.url), 'utf8')).toBe(sheetTemplate());
    expect(sheetTemplate().split('\n')[0]).toBe(Object.values(SHEET_COLUMNS).join(','));
    expect(requests(sheetTemplate())).toHaveLength(3);
  });
});
