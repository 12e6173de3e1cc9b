/**
 * One formatter for the process: toLocaleString with options builds a new Intl.NumberFormat on every
 * call, which was the largest single cost of answering /payments under load. Built on first use: the
 * first Intl formatter loads locale data (~15 ms), which `subops serve` should not pay before it listens.
 */
let twoDecimals: Intl.NumberFormat | undefined;

/** Amounts as people read them: "GYD 10,000.00" (plain text; views escape it for mrkdwn). */
export function formatMoney(amount: number, currency?: string | null): string {
  twoDecimals ??= new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
  const text = twoDecimals.format(amount);
  return currency ? `${currency} ${text}` : text;
}
