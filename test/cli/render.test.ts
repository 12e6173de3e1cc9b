/** CLI output helpers: CSV cells (quoting and the formula guard) and terminal escaping. */
import { describe, expect, it } from 'vitest';
import { csvHeader, csvLine } from '../../src/services/payments-csv.js';
import { terminalSafe } from '../../src/cli/terminal.js';

describe('csvLine', () => {
  const line = (note: string | null | undefined) => csvLine({ id: 7, createdDate: '2024-05-01T10:00:00+0000', clientId: 1001, clientName: 'Marcus Baptiste', amount: 1500.5, currencyCode: 'GYD', methodId: null, methodName: null, note });

  it('keeps the column order of the header, empty cells for missing values', () => {
    expect(csvHeader()).toBe('id,createdDate,clientId,clientName,amount,currencyCode,methodId,methodName,note');
    expect(line(undefined)).toBe('7,2024-05-01T10:00:00+0000,1001,Marcus Baptiste,1500.5,GYD,,,');
  });

  it.each([
    ['plain note', 'plain note'],
    ['Paid, in cash', '"Paid, in cash"'],
    ['the "big" one', '"the ""big"" one"'],
    ['two\nlines', '"two\nlines"'],
    ['cr\rlf\r\n', '"cr\rlf\r\n"'],
    ['\u001b[31mred', '\u001b[31mred'],
  ])('quotes only when needed and keeps the text exact: %j', (note, cell) => expect(line(note).split(',').slice(8).join(',')).toBe(cell));

  it.each([
    ['=HYPERLINK("http://evil.example","x")', `"'=HYPERLINK(""http://evil.example"",""x"")"`],
    ['+1+1', "'+1+1"],
    ['-2+3', "'-2+3"],
    ['@SUM(A1:A9)', "'@SUM(A1:A9)"],
    ['\t=1', "'\t=1"],
    ['\r=1', `"'\r=1"`],
  ])('prefixes formula-looking text so spreadsheets show it as text: %j', (note, cell) => expect(line(note).split(',').slice(8).join(',')).toBe(cell));

  it('leaves numbers alone, negative ones too', () => {
    expect(csvLine({ id: 1, amount: -5 })).toBe('1,,,,-5,,,,');
  });
});

describe('terminalSafe', () => {
  it.each([
    ['Ada Lovelace', 'Ada Lovelace'],
    ['Élodie Brontë — 東京', 'Élodie Brontë — 東京'],
    ['two\nlines\r', 'two\\nlines\\r'],
    ['tab\there', 'tab\\there'],
    ['\u001b[2J\u001b[31mred', '\\x1b[2J\\x1b[31mred'],
    ['bell\u0007 nul\u0000 del\u007f', 'bell\\x07 nul\\x00 del\\x7f'],
    ['c1\u009b31m', 'c1\\x9b31m'],
    ['\u202eevil\u2066', '\\u202eevil\\u2066'],
  ])('%j → %j', (text, shown) => expect(terminalSafe(text)).toBe(shown));
});
