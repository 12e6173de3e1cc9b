/** Human-readable terminal lines for workflow events and payment listings. */
import type { ActivationEvent, StepStatus } from '../services/activation/types.js';
import { candidateLines, lateDuplicateSentence, resultLists, resultSentence, stepSentence } from '../render/activation.js';
import { formatMoney } from '../services/money.js';
import type { PaymentSummary } from '../services/payments.js';

const MARK: Record<StepStatus, string> = { done: '✓', skipped: '↷', failed: '✗', planned: '•', manual: '!' };
const STEP_WIDTH = 'manual-link'.length;

export function renderEvent(event: ActivationEvent): string[] {
  if (event.type === 'step') return [`${MARK[event.status]} ${event.step.padEnd(STEP_WIDTH)}  ${stepSentence(event)}`];
  const lines = [``, `${event.outcome === 'failed' ? 'FAILED' : event.outcome === 'planned' ? 'PLAN' : 'OK'}: ${resultSentence(event)}`];
  if (event.outcome === 'failed') {
    const { done, notDone } = resultLists(event);
    lines.push(`  Done: ${done.length ? done.join('; ') : 'nothing was changed'}`);
    if (notDone.length) lines.push(`  Not done: ${notDone.join('; ')}`);
    for (const candidate of candidateLines(event.error)) lines.push(`  - ${candidate}`);
  }
  // Late duplicates the run met: named, never removed (a person decides: the audit notice's Remove duplicate in Slack).
  for (const duplicate of event.duplicates ?? []) lines.push(`  Late duplicate: ${lateDuplicateSentence(duplicate)}`);
  return lines;
}

export function renderPaymentSummary(summary: PaymentSummary, clientNames: Map<number, string>): string[] {
  const { query, payments, totals, count } = summary;
  const scope = query.clientId !== undefined ? `client #${query.clientId}${clientNames.has(query.clientId) ? ` ${clientNames.get(query.clientId)}` : ''}` : 'all clients';
  const lines = [`Payments for ${scope}, ${query.from} to ${query.to}: ${count} payment${count === 1 ? '' : 's'}`];
  if (payments.length) {
    lines.push('', `${'ID'.padStart(7)}  ${'DATE'.padEnd(10)}  ${'CLIENT'.padEnd(24)}  ${'AMOUNT'.padStart(14)}  NOTE`);
    for (const p of payments) {
      const client = p.clientId == null ? '-' : `#${p.clientId} ${clientNames.get(p.clientId) ?? ''}`.trim();
      lines.push(`${String(p.id).padStart(7)}  ${p.createdDate.slice(0, 10)}  ${client.slice(0, 24).padEnd(24)}  ${formatMoney(p.amount, p.currencyCode).padStart(14)}  ${p.note ?? ''}`.trimEnd());
    }
    if (count > payments.length) lines.push(`  … ${count - payments.length} older payment${count - payments.length === 1 ? '' : 's'} not shown (use --limit, --csv or --json)`);
  }
  if (totals.length) lines.push('', `Totals: ${totals.map((t) => `${formatMoney(t.amount, t.currency)} (${t.count})`).join(', ')}`);
  return lines;
}
