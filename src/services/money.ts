/**
 * One formatter for the process: toLocaleString with options builds a new Intl.NumberFormat on every
 * call, which was the largest single cost of answering /payments under load.
 */
const TWO_DECIMALS = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

/** Amounts as people read them: "GYD 10,000.00" (plain text; views escape it for mrkdwn). */
export function formatMoney(amount: number, currency?: string | null): string {
  const text = TWO_DECIMALS.format(amount);
  return currency ? `${currency} ${text}` : text;
}
