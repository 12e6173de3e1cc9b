/** Amounts as people read them: "GYD 10,000.00" (plain text; views escape it for mrkdwn). */
export function formatMoney(amount: number, currency?: string | null): string {
  const text = amount.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
  return currency ? `${currency} ${text}` : text;
}
