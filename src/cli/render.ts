/** Human-readable terminal lines for workflow events and payment listings. */
import type { ActivationEvent, ActivationPlan, LateDuplicate, StepStatus } from '../services/activation/types.js';
import { planEvents } from '../services/activation/run-log.js';
import { candidateLines, confirmationParts, lateDuplicateSentence, leftAloneSentence, resultLists, resultSentence, stepSentence } from '../render/activation.js';
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
  // Late duplicates the run met: named, never removed (a person decides: the audit notice's Remove duplicate
  // in Slack, or the command named here, which checks the same).
  for (const duplicate of event.duplicates ?? []) {
    lines.push(`  Late duplicate: ${lateDuplicateSentence(duplicate)}`);
    for (const late of duplicate.others) lines.push(`    To remove it: subops duplicates remove --client-id ${duplicate.client.id} ${LATE_FLAG[duplicate.record]} ${late.id}`);
  }
  if (event.leftAlone?.length && event.outcome !== 'planned') lines.push(`  ${capitalized(leftAloneSentence(event.leftAlone))}`);
  return lines;
}

/** How `subops duplicates remove` names each kind of late record. */
const LATE_FLAG: Record<LateDuplicate['record'], string> = { service: '--service-id', site: '--site-id', client: '--late-client-id' };

const capitalized = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** A plan as the lines of a dry run: what each step would do. */
export function renderPlan(plan: ActivationPlan): string[] {
  return [...planEvents(plan)].flatMap(renderEvent);
}

/**
 * What an activation asks before it writes: "Delete Quoted service #102 and activate?", naming every
 * service it deletes and the site (and client) it moves the device off; "Activate?" for a plan that
 * does neither (asked again only when UISP changed after a confirmation).
 */
export function activationQuestion(plan: ActivationPlan): string {
  const parts = confirmationParts(plan);
  if (!parts.length) return 'Activate?';
  const question = `${parts.join(', ')} and activate?`;
  return `${question[0]!.toUpperCase()}${question.slice(1)}`;
}

/** A dry run of a plan that deletes or moves: what the real run will ask, and what it needs instead off a terminal. */
export function dryRunQuestionLine(plan: ActivationPlan): string | undefined {
  const deletes = plan.service.action === 'create' ? plan.service.delete : [];
  if (!deletes.length && !plan.move) return undefined;
  return `The real run asks "${activationQuestion(plan)} [y/N]" on a terminal; elsewhere it needs --yes.`;
}

/** Width of the listing's CLIENT column ("#1001 Marcus Baptiste"). */
const CLIENT_COLUMN_WIDTH = 24;

/**
 * `text` in at most `width` characters (code points, so no emoji is split): a longer one is cut and ends
 * with "…".
 */
export function fitCell(text: string, width: number): string {
  const chars = Array.from(text);
  if (chars.length <= width) return text;
  return `${chars
    .slice(0, Math.max(0, width - 1))
    .join('')
    .trimEnd()}…`;
}

export function renderPaymentSummary(summary: PaymentSummary, clientNames: ReadonlyMap<number, string>): string[] {
  const { query, payments, totals, count } = summary;
  const scope = query.clientId !== undefined ? `client #${query.clientId}${clientNames.has(query.clientId) ? ` ${clientNames.get(query.clientId)}` : ''}` : 'all clients';
  const lines = [`Payments for ${scope}, ${query.from} to ${query.to}: ${count} payment${count === 1 ? '' : 's'}`];
  if (payments.length) {
    lines.push('', `${'ID'.padStart(7)}  ${'DATE'.padEnd(10)}  ${'CLIENT'.padEnd(CLIENT_COLUMN_WIDTH)}  ${'AMOUNT'.padStart(14)}  NOTE`);
    for (const p of payments) {
      const client = p.clientId == null ? '-' : `#${p.clientId} ${clientNames.get(p.clientId) ?? ''}`.trim();
      lines.push(`${String(p.id).padStart(7)}  ${p.createdDate.slice(0, 10)}  ${fitCell(client, CLIENT_COLUMN_WIDTH).padEnd(CLIENT_COLUMN_WIDTH)}  ${formatMoney(p.amount, p.currencyCode).padStart(14)}  ${p.note ?? ''}`.trimEnd());
    }
    if (count > payments.length) lines.push(`  … ${count - payments.length} older payment${count - payments.length === 1 ? '' : 's'} not shown (use --limit, --csv or --json)`);
  }
  if (totals.length) lines.push('', `Totals: ${totals.map((t) => `${formatMoney(t.amount, t.currency)} (${t.count})`).join(', ')}`);
  return lines;
}
