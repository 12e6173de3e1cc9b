/** The input grammar every front end uses: what each field accepts, and the problem (naming the field) for what it does not. */
import { describe, expect, it } from 'vitest';
import {
  checkDateRange,
  optional,
  readAmount,
  readDate,
  readEmail,
  readFields,
  readId,
  readIdOrName,
  readLine,
  readNote,
  readPersonName,
  readPhone,
  readWholeNumber,
  type Read,
} from '../../src/services/input/grammar.js';

const accepted = <T>(value: T): Read<T> => ({ ok: true, value });
const refused = (problem: string): Read<never> => ({ ok: false, problem });

describe('ids', () => {
  it.each([
    ['1001', 1001],
    ['#1001', 1001],
    [' #42 ', 42],
    ['2147483647', 2_147_483_647],
    ['007', 7],
  ])('%j → %d', (text, id) => expect(readId(text, 'Client id')).toEqual(accepted(id)));

  it.each([
    ['', 'Enter the client id.'],
    ['   ', 'Enter the client id.'],
    ['0', 'Client id must be greater than 0.'],
    ['#0', 'Client id must be greater than 0.'],
    ['2147483648', 'Client id must be at most 2147483647.'],
    ['99999999999999999999999', 'Client id must be at most 2147483647.'],
    ['-5', 'Client id must be a positive whole number such as 1001 or #1001.'],
    ['+5', 'Client id must be a positive whole number such as 1001 or #1001.'],
    ['1e3', 'Client id must be a positive whole number such as 1001 or #1001.'],
    ['0x10', 'Client id must be a positive whole number such as 1001 or #1001.'],
    ['1.0', 'Client id must be a positive whole number such as 1001 or #1001.'],
    ['1,001', 'Client id must be a positive whole number such as 1001 or #1001.'],
    ['##1', 'Client id must be a positive whole number such as 1001 or #1001.'],
    ['Marcus', 'Client id must be a positive whole number such as 1001 or #1001.'],
  ])('%j is refused: %s', (text, problem) => expect(readId(text, 'Client id')).toEqual(refused(problem)));

  it('optional ids may be left empty', () => {
    expect(optional(readId)(undefined, 'Client id')).toEqual(accepted(undefined));
    expect(optional(readId)(' ', 'Client id')).toEqual(accepted(undefined));
    expect(optional(readId)('#5', 'Client id')).toEqual(accepted(5));
  });

  it('a reason is an id where it looks like one, otherwise a name', () => {
    expect(readIdOrName('#3', 'Suspension reason')).toEqual(accepted('3'));
    expect(readIdOrName('003', 'Suspension reason')).toEqual(accepted('3'));
    expect(readIdOrName(' non-payment ', 'Suspension reason')).toEqual(accepted('non-payment'));
    expect(readIdOrName('#0', 'Suspension reason')).toEqual(refused('Suspension reason id must be greater than 0.'));
    expect(readIdOrName('', 'Suspension reason')).toEqual(refused('Enter the suspension reason.'));
  });

  it('counts are digits within their range, without #', () => {
    const limit = readWholeNumber({ min: 1, max: 100 });
    expect(limit('100', 'Limit')).toEqual(accepted(100));
    for (const text of ['0', '101', '#5', '-1', '2.5']) expect(limit(text, 'Limit')).toEqual(refused('Limit must be a whole number from 1 to 100.'));
  });
});

describe('amounts', () => {
  const amount = readAmount(1_000_000);

  it.each([
    ['1500', 1500],
    ['1,500', 1500],
    ['1500.50', 1500.5],
    ['1,500.5', 1500.5],
    ['0.01', 0.01],
    ['19.99', 19.99],
    ['1000000', 1_000_000],
    ['1,000,000.00', 1_000_000],
  ])('%j → %s', (text, value) => expect(amount(text, 'Amount')).toEqual(accepted(value)));

  it.each([
    ['', 'Enter the amount.'],
    ['-5', 'Amount must be positive: negative amounts are not accepted.'],
    ['−5', 'Amount must be positive: negative amounts are not accepted.'],
    ['+5', 'Amount must be written without a sign.'],
    ['0x1F4', 'Amount must be a decimal number: hexadecimal is not accepted.'],
    ['1e3', 'Amount must be written out in full: exponents such as 1e3 are not accepted.'],
    ['1e308', 'Amount must be written out in full: exponents such as 1e3 are not accepted.'],
    ['1.5E2', 'Amount must be written out in full: exponents such as 1e3 are not accepted.'],
    ['0', 'Amount must be greater than 0.'],
    ['0.00', 'Amount must be greater than 0.'],
    ['10.005', 'Amount can have at most two decimals.'],
    ['1000000.01', 'Amount must be at most 1,000,000 (the PAYMENT_MAX_AMOUNT setting).'],
    ['12,345,678.9', 'Amount must be at most 1,000,000 (the PAYMENT_MAX_AMOUNT setting).'],
    ['10,5', 'Amount must be a plain decimal number such as 1500, 1,500 or 1500.50.'],
    ['1,50,000', 'Amount must be a plain decimal number such as 1500, 1,500 or 1500.50.'],
    ['0,500', 'Amount must be a plain decimal number such as 1500, 1,500 or 1500.50.'],
    ['1 500', 'Amount must be a plain decimal number such as 1500, 1,500 or 1500.50.'],
    ['.5', 'Amount must be a plain decimal number such as 1500, 1,500 or 1500.50.'],
    ['5.', 'Amount must be a plain decimal number such as 1500, 1,500 or 1500.50.'],
    ['GYD 10', 'Amount must be a plain decimal number such as 1500, 1,500 or 1500.50.'],
    ['Infinity', 'Amount must be a plain decimal number such as 1500, 1,500 or 1500.50.'],
    ['NaN', 'Amount must be a plain decimal number such as 1500, 1,500 or 1500.50.'],
  ])('%j is refused: %s', (text, problem) => expect(amount(text, 'Amount')).toEqual(refused(problem)));

  it('the maximum is a setting', () => {
    expect(readAmount(50)('50.00', 'Amount')).toEqual(accepted(50));
    expect(readAmount(50)('50.01', 'Amount')).toEqual(refused('Amount must be at most 50 (the PAYMENT_MAX_AMOUNT setting).'));
  });
});

describe('dates', () => {
  it.each(['2024-02-29', '2026-12-31', '2000-01-01'])('%s is a real date', (text) => expect(readDate(text, 'From date')).toEqual(accepted(text)));

  it.each([
    ['2023-02-29', 'From date 2023-02-29 is not a real calendar date.'],
    ['2024-02-30', 'From date 2024-02-30 is not a real calendar date.'],
    ['2026-13-45', 'From date 2026-13-45 is not a real calendar date.'],
    ['2024-00-10', 'From date 2024-00-10 is not a real calendar date.'],
    ['2024-1-5', 'From date must be a date as YYYY-MM-DD, such as 2024-05-31.'],
    ['05/31/2024', 'From date must be a date as YYYY-MM-DD, such as 2024-05-31.'],
    ['2024-05-31T00:00', 'From date must be a date as YYYY-MM-DD, such as 2024-05-31.'],
    ['yesterday', 'From date must be a date as YYYY-MM-DD, such as 2024-05-31.'],
  ])('%j is refused: %s', (text, problem) => expect(readDate(text, 'From date')).toEqual(refused(problem)));

  it('from must not be after to', () => {
    expect(checkDateRange('2024-01-01', '2024-01-01')).toEqual(accepted({ from: '2024-01-01', to: '2024-01-01' }));
    expect(checkDateRange('2024-01-02', '2024-01-01')).toEqual(refused('From date (2024-01-02) is after the to date (2024-01-01).'));
  });
});

describe('names, email, phone and free text', () => {
  it.each([
    ['ada', 'ada'],
    ['  Jean-Luc ', 'Jean-Luc'],
    ["O'Neil", "O'Neil"],
    ['Élodie', 'Élodie'],
    ['St. John', 'St. John'],
    ['é'.repeat(60), 'é'.repeat(60)],
  ])('name %j → %j', (text, name) => expect(readPersonName(text, 'First name')).toEqual(accepted(name)));

  it.each([
    ['', 'Enter the first name.'],
    ['l33t', 'First name may contain only letters, spaces, hyphens, apostrophes and periods.'],
    ['-ada', 'First name may contain only letters, spaces, hyphens, apostrophes and periods.'],
    ['ada\u001b[31m', 'First name must not contain control characters.'],
    ['ada\nlovelace', 'First name must not contain control characters.'],
    ['a'.repeat(61), 'First name must be at most 60 characters.'],
  ])('name %j is refused: %s', (text, problem) => expect(readPersonName(text, 'First name')).toEqual(refused(problem)));

  it('email: a valid address of at most 254 characters', () => {
    expect(readEmail('ada@example.org', 'Email address')).toEqual(accepted('ada@example.org'));
    const long = `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(62)}.org`;
    expect(long.length).toBeGreaterThan(254);
    expect(readEmail(long, 'Email address')).toEqual(refused('Email address must be at most 254 characters.'));
    expect(readEmail('nope', 'Email address')).toEqual(refused('Email address must be a valid address such as name@example.org.'));
    expect(readEmail('ada@example.org\u0000', 'Email address')).toEqual(refused('Email address must not contain control characters.'));
  });

  it('phone: 6 to 20 digits with the usual punctuation, at most 30 characters', () => {
    for (const phone of ['+592 600 1001', '(592) 600-1001', '592.600.1001', '6001001']) expect(readPhone(phone, 'Phone number')).toEqual(accepted(phone));
    const punctuation = 'Phone number must be 6 to 20 digits, optionally with a leading +, spaces, dots, dashes or brackets.';
    for (const phone of ['call me', '12345', '+', '592+600', '1'.repeat(21)]) expect(readPhone(phone, 'Phone number')).toEqual(refused(punctuation));
    expect(readPhone('1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6', 'Phone number')).toEqual(refused('Phone number must be at most 30 characters.'));
    expect(readPhone('600\t1001', 'Phone number')).toEqual(refused('Phone number must not contain control characters.'));
  });

  it('one-line text and notes: length limits, no control characters; notes may span lines', () => {
    expect(readLine(100)('x'.repeat(100), 'Device')).toEqual(accepted('x'.repeat(100)));
    expect(readLine(100)('x'.repeat(101), 'Device')).toEqual(refused('Device must be at most 100 characters.'));
    expect(readLine(100)('ab\u007fc', 'Device')).toEqual(refused('Device must not contain control characters.'));
    expect(readLine(100)('ab\u0085c', 'Device')).toEqual(refused('Device must not contain control characters.'));
    expect(readNote(1000)('first\r\nsecond', 'Note')).toEqual(accepted('first\nsecond'));
    expect(readNote(1000)('tab\there', 'Note')).toEqual(refused('Note must not contain control characters (line breaks are fine).'));
    expect(readNote(1000)('\u001b]0;owned\u0007', 'Note')).toEqual(refused('Note must not contain control characters (line breaks are fine).'));
    expect(readNote(1000)('é'.repeat(1000), 'Note')).toEqual(accepted('é'.repeat(1000)));
    expect(readNote(1000)('x'.repeat(1001), 'Note')).toEqual(refused('Note must be at most 1000 characters.'));
  });
});

describe('readFields', () => {
  it('gives every value, or every problem by field', () => {
    expect(readFields({ a: readId('1', 'A'), b: optional(readId)('', 'B') })).toEqual({ ok: true, values: { a: 1, b: undefined } });
    expect(readFields({ a: readId('x', 'A'), b: readId('#2', 'B'), c: readId('', 'C') })).toEqual({
      ok: false,
      problems: { a: 'A must be a positive whole number such as 1001 or #1001.', c: 'Enter the C.' },
    });
  });
});
