/**
 * `/payments [client id or name] [from YYYY-MM-DD [to YYYY-MM-DD]]`: the text split into its fields, then
 * read by the input grammar. Dates are the trailing words that start like a date (`from` and `to` may be
 * written or left out); everything before them is the client.
 */
import { readPaymentFilters } from '../../services/payments.js';

const DATE_LIKE = /^\d{4}-/;
const KEYWORD = /^(from|to)$/i;

export function readPaymentsText(text: string): ReturnType<typeof readPaymentFilters> {
  const words = text.trim().split(/\s+/).filter(Boolean);
  const dates: string[] = [];
  while (dates.length < 2 && words.length && DATE_LIKE.test(words.at(-1)!)) {
    dates.unshift(words.pop()!);
    if (KEYWORD.test(words.at(-1) ?? '')) words.pop();
  }
  if (words.some((word) => DATE_LIKE.test(word))) return { ok: false, problems: { to: 'Give at most two dates: from, then to.' } };
  const [from, to] = dates;
  return readPaymentFilters({ client: words.join(' ') || undefined, from, to });
}
