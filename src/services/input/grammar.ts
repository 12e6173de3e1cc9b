/**
 * The grammar of everything a person types into SubOps: CLI flags, Slack form fields and slash-command
 * text all go through these readers, so the same input gets the same answer everywhere. Each reader is
 * a pure function from the typed text to a value or a problem, and every problem names the field (the
 * front end adds where it goes: under the Slack field, or after the CLI flag).
 */
import { z } from 'zod';

export type Read<T> = { ok: true; value: T } | { ok: false; problem: string };

/** Reads one field's text; `label` names the field in problems ("Client id", "Amount"). */
export type Reader<T> = (text: string | undefined, label: string) => Read<T>;

/** UISP stores ids as signed 32-bit integers. */
export const ID_MAX = 2_147_483_647;
export const DEFAULT_PAYMENT_MAX_AMOUNT = 1_000_000;

/**
 * Lengths UISP accepts. Names fit the CRM's name fields and, together, the NMS site name (≤ 100) that is
 * built from them; notes fit the CRM's note fields; the device fits the NMS name and address fields.
 */
export const TEXT_LIMITS = { name: 60, siteName: 100, email: 254, phone: 30, note: 1000, line: 100 } as const;

const ok = <T>(value: T): Read<T> => ({ ok: true, value });
const refuse = (problem: string): Read<never> => ({ ok: false, problem });
const missing = (label: string) => refuse(`Enter the ${/^[A-Z][a-z]/.test(label) ? label[0]!.toLowerCase() + label.slice(1) : label}.`);
const blank = (text: string | undefined): boolean => text === undefined || text.trim() === '';
/** Characters, not UTF-16 units: "é" is one, like UISP and Slack count. */
const length = (text: string) => [...text].length;

const CONTROL = /\p{Cc}/u;
const CONTROL_BUT_LINE_BREAK = /[^\P{Cc}\n]/u;

/** The same reader, for a field that may be left empty (then the value is undefined). */
export function optional<T>(reader: Reader<T>): Reader<T | undefined> {
  return (text, label) => (blank(text) ? ok(undefined) : reader(text, label));
}

// ---------- numbers ----------

/** A positive whole number up to ID_MAX, with an optional leading `#`: `1001` and `#1001` are the same id. */
export const readId: Reader<number> = (text, label) => {
  if (blank(text)) return missing(label);
  const digits = text!.trim().replace(/^#/, '');
  if (!/^\d+$/.test(digits)) return refuse(`${label} must be a positive whole number such as 1001 or #1001.`);
  return checkId(Number(digits), label);
};

/** The numeric half of readId, for ids that arrive as numbers. */
export function checkId(id: number, label: string): Read<number> {
  if (!Number.isInteger(id) || id < 0) return refuse(`${label} must be a positive whole number such as 1001 or #1001.`);
  if (id === 0) return refuse(`${label} must be greater than 0.`);
  if (id > ID_MAX) return refuse(`${label} must be at most ${ID_MAX}.`);
  return ok(id);
}

/** A count or port: digits only, within [min, max]. */
export function readWholeNumber(range: { min: number; max: number }): Reader<number> {
  return (text, label) => {
    if (blank(text)) return missing(label);
    const value = Number(text!.trim());
    if (!/^\d+$/.test(text!.trim()) || value < range.min || value > range.max) return refuse(`${label} must be a whole number from ${range.min} to ${range.max}.`);
    return ok(value);
  };
}

const PLAIN_DECIMAL = /^(\d+|[1-9]\d{0,2}(,\d{3})+)(\.\d+)?$/;

/**
 * An amount of money as people write it: `1500`, `1,500`, `1500.50`, `1,500.50`. Commas only between
 * thousands ("10,5" is refused, not read as 105); no sign, hexadecimal or exponent (JavaScript's Number
 * would read `0x1F4` as 500 and `1e3` as 1000); at most two decimals; greater than 0 and at most `max`.
 */
export function readAmount(max: number): Reader<number> {
  return (text, label) => {
    if (blank(text)) return missing(label);
    const written = text!.trim();
    if (/^[-−]/.test(written)) return refuse(`${label} must be positive: negative amounts are not accepted.`);
    if (written.startsWith('+')) return refuse(`${label} must be written without a sign.`);
    if (/^0x/i.test(written)) return refuse(`${label} must be a decimal number: hexadecimal is not accepted.`);
    if (/^[\d.,]+e[-+]?\d*$/i.test(written)) return refuse(`${label} must be written out in full: exponents such as 1e3 are not accepted.`);
    if (!PLAIN_DECIMAL.test(written)) return refuse(`${label} must be a plain decimal number such as 1500, 1,500 or 1500.50.`);
    if ((written.split('.')[1] ?? '').length > 2) return refuse(`${label} can have at most two decimals.`);
    return checkAmount(Number(written.replace(/,/g, '')), label, max);
  };
}

/** The numeric half of readAmount, for amounts that arrive as numbers. */
export function checkAmount(amount: number, label: string, max: number): Read<number> {
  if (Number.isNaN(amount)) return refuse(`${label} must be a plain decimal number such as 1500, 1,500 or 1500.50.`);
  if (amount < 0) return refuse(`${label} must be positive: negative amounts are not accepted.`);
  if (amount === 0) return refuse(`${label} must be greater than 0.`);
  if (amount > max) return refuse(`${label} must be at most ${max.toLocaleString('en-US', { maximumFractionDigits: 2 })} (the PAYMENT_MAX_AMOUNT setting).`);
  // A tolerance, not equality: 19.99 * 100 is 1998.9999999999998 in floating point.
  if (Math.abs(amount * 100 - Math.round(amount * 100)) > 1e-6) return refuse(`${label} can have at most two decimals.`);
  return ok(amount);
}

// ---------- dates ----------

/** A real calendar date as YYYY-MM-DD: 2024-02-30 is refused, not rolled over to March. */
export const readDate: Reader<string> = (text, label) => {
  if (blank(text)) return missing(label);
  const written = text!.trim();
  if (!/^\d{4}-\d{2}-\d{2}$/.test(written)) return refuse(`${label} must be a date as YYYY-MM-DD, such as 2024-05-31.`);
  const parsed = new Date(`${written}T00:00:00Z`);
  if (Number.isNaN(parsed.getTime()) || parsed.toISOString().slice(0, 10) !== written) return refuse(`${label} ${written} is not a real calendar date.`);
  return ok(written);
};

/** From ≤ to, both YYYY-MM-DD (which compare as strings). The problem belongs to the from field. */
export function checkDateRange(from: string, to: string, labels = { from: 'From date', to: 'to date' }): Read<{ from: string; to: string }> {
  return from > to ? refuse(`${labels.from} (${from}) is after the ${labels.to} (${to}).`) : ok({ from, to });
}

// ---------- text ----------

/** One line of free text (a device, a reason or method name): no control characters, at most `max` characters. */
export function readLine(max: number = TEXT_LIMITS.line): Reader<string> {
  return (text, label) => {
    if (blank(text)) return missing(label);
    const line = text!.trim();
    if (CONTROL.test(line)) return refuse(`${label} must not contain control characters.`);
    if (length(line) > max) return refuse(`${label} must be at most ${max} characters.`);
    return ok(line);
  };
}

/** A note: may span lines (Windows line ends become \n); no other control characters; at most `max` characters. */
export function readNote(max: number = TEXT_LIMITS.note): Reader<string> {
  return (text, label) => {
    if (blank(text)) return missing(label);
    const note = text!.trim().replace(/\r\n/g, '\n');
    if (CONTROL_BUT_LINE_BREAK.test(note)) return refuse(`${label} must not contain control characters (line breaks are fine).`);
    if (length(note) > max) return refuse(`${label} must be at most ${max} characters.`);
    return ok(note);
  };
}

/** A person's first or last name: letters (any script), spaces, hyphens, apostrophes and periods. */
export const readPersonName: Reader<string> = (text, label) => {
  const line = readLine(TEXT_LIMITS.name)(text, label);
  if (!line.ok) return line;
  if (!/^\p{L}[\p{L}\p{M} '’.-]*$/u.test(line.value)) return refuse(`${label} may contain only letters, spaces, hyphens, apostrophes and periods.`);
  return line;
};

const EMAIL = z.email();

export const readEmail: Reader<string> = (text, label) => {
  const line = readLine(TEXT_LIMITS.email)(text, label);
  if (!line.ok) return line;
  return EMAIL.safeParse(line.value).success ? line : refuse(`${label} must be a valid address such as name@example.org.`);
};

/** Digits, optionally with a leading +, spaces, dots, dashes and brackets; 6 to 20 digits. */
export const readPhone: Reader<string> = (text, label) => {
  const line = readLine(TEXT_LIMITS.phone)(text, label);
  if (!line.ok) return line;
  const digits = line.value.replace(/\D/g, '').length;
  if (!/^\+?[\d(][\d ().-]*$/.test(line.value) || digits < 6 || digits > 20) {
    return refuse(`${label} must be 6 to 20 digits, optionally with a leading +, spaces, dots, dashes or brackets.`);
  }
  return line;
};

/**
 * Something named by id or by name (a suspension reason): what looks like an id (`3`, `#3`) is read as
 * one and comes back as plain digits; anything else is a one-line name.
 */
export const readIdOrName: Reader<string> = (text, label) => {
  if (!blank(text) && /^#?\d+$/.test(text!.trim())) {
    const id = readId(text, `${label} id`);
    return id.ok ? ok(String(id.value)) : id;
  }
  return readLine()(text, label);
};

/** What an agent looks a client up by: an id (`1001`, `#1001`) or a name (one line of text). */
export type ClientKey = { id: number } | { name: string };

export const readClientKey: Reader<ClientKey> = (text, label) => {
  if (!blank(text) && /^#?\d+$/.test(text!.trim())) {
    const id = readId(text, `${label} id`);
    return id.ok ? ok({ id: id.value }) : id;
  }
  const name = readLine()(text, label);
  return name.ok ? ok({ name: name.value }) : name;
};

// ---------- several fields at once ----------

type Values<S> = { [K in keyof S]: S[K] extends Read<infer T> ? T : never };
export type FieldsRead<S> = { ok: true; values: Values<S> } | { ok: false; problems: Partial<Record<keyof S, string>> };

/** Every field read, and every problem reported at once (a form shows each under its field). */
export function readFields<S extends Record<string, Read<unknown>>>(reads: S): FieldsRead<S> {
  const problems: Partial<Record<keyof S, string>> = {};
  const values: Record<string, unknown> = {};
  for (const [field, read] of Object.entries(reads)) {
    if (read.ok) values[field] = read.value;
    else problems[field as keyof S] = read.problem;
  }
  return Object.keys(problems).length ? { ok: false, problems } : { ok: true, values: values as Values<S> };
}
