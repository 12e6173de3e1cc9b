/**
 * Install sheets in words: each row's check and outcome, the totals, and why a file is not a sheet.
 * Pure functions of the services' facts (src/services/sheets/types.ts), shared by every front end; a
 * row's plan and result are worded as the single activation words them (./activation.ts).
 */
import type { ActivationPlan } from '../services/activation/types.js';
import { SHEET_COLUMNS, type SheetFileProblem, type SheetPlace } from '../services/sheets/sheet.js';
import type { RowCheck, RowEvent, RowOutcome, SheetRowProblem, SheetTotals } from '../services/sheets/types.js';
import { candidateLines, confirmationParts, errorSentence, resultSentence } from './activation.js';

const plural = (count: number, one: string, many = `${one}s`) => `${count} ${count === 1 ? one : many}`;

/** "row 3 (line 4)": where the agent finds the row in their sheet. */
export const rowPlace = (place: SheetPlace) => `row ${place.row} (line ${place.line})`;

export function problemSentence(problem: SheetRowProblem): string {
  if (problem.code === 'duplicate-device') return `The same device as row ${problem.firstRow}: a device is activated once. Nothing was changed.`;
  return `${problem.problems.map((p) => `${p.column}: ${p.problem}`).join(' ')} Nothing was changed.`;
}

/** A plan in one line: "client #1002 Priya Ramnarine; new Active service replacing Quoted service #102; new site "Priya Ramnarine"; authorize LBE-Ramnarine (discovered)". */
export function planSummary(plan: ActivationPlan): string {
  const client = plan.client.action === 'reuse' ? `client #${plan.client.client.id} ${plan.client.client.name}` : `new client ${plan.client.firstName} ${plan.client.lastName}`;
  const service =
    plan.service.action === 'reuse'
      ? `Active service #${plan.service.service.id}`
      : `new Active service${plan.service.delete.length ? ` replacing ${plan.service.delete.map((s) => `${s.statusLabel} service #${s.id}`).join(', ')}` : ''}`;
  const site = plan.site.action === 'reuse' ? `site "${plan.site.site.name}"` : `new site "${plan.site.name}"`;
  const device = plan.authorize.action === 'skip' ? `${plan.device.name} already on it` : `authorize ${plan.device.name} (${plan.device.list})`;
  return [client, service, site, device].join('; ');
}

/** A row as the check found it: its plan (or "already activated"), or why it will not run. */
export function rowCheckSentence(row: RowCheck): string {
  switch (row.kind) {
    case 'problem':
      return problemSentence(row.problem);
    case 'refused':
      return errorSentence(row.error);
    case 'plan':
      return row.alreadyDone ? `Already activated: ${planSummary(row.plan)}.` : `${planSummary(row.plan)}.`;
  }
}

/** The clients (or devices) a refused row's name matched, each with its id, for the agent to pick and put in the sheet. */
export function rowCandidates(row: RowCheck | RowEvent): string[] {
  if ('kind' in row) return row.kind === 'refused' ? candidateLines(row.error) : [];
  return row.result?.outcome === 'failed' ? candidateLines(row.result.error) : [];
}

/** What the row's run needs confirmed ("delete Quoted service #102"), or undefined. */
export function rowConfirmation(row: RowCheck): string | undefined {
  if (row.kind !== 'plan' || !row.confirm) return undefined;
  return confirmationParts(row.plan).join(', ');
}

export function totalsSentence(totals: SheetTotals): string {
  const parts = [`${plural(totals.toRun, 'row')} to activate${totals.needConfirmation ? ` (${totals.needConfirmation} deleting or moving)` : ''}`, `${totals.alreadyDone} already activated`, `${plural(totals.inError, 'row')} in error`];
  return `${plural(totals.rows, 'row')}: ${parts.join(', ')}.`;
}

export function rowOutcomeSentence(event: RowEvent): string {
  return event.result ? resultSentence(event.result) : problemSentence(event.problem);
}

const OUTCOME_WORDS: Record<RowOutcome, string> = { done: 'activated', 'already-done': 'already activated', failed: 'failed', refused: 'refused' };

/** "4 activated, 1 already activated, 0 failed, 1 refused". */
/** A row that ended in an earlier run of its sheet, before its process stopped (shown again by Continue). */
export function endedBeforeSentence(outcome: RowOutcome): string {
  return `${OUTCOME_WORDS[outcome]} before SubOps stopped`;
}

export function countsSentence(counts: Record<RowOutcome, number>): string {
  return (Object.keys(OUTCOME_WORDS) as RowOutcome[]).map((outcome) => `${counts[outcome]} ${OUTCOME_WORDS[outcome]}`).join(', ');
}

/** Why a file is not an install sheet; nothing of it ran. */
export function fileProblemSentence(problem: SheetFileProblem): string {
  const columns = Object.values(SHEET_COLUMNS).join(', ');
  switch (problem.code) {
    case 'malformed':
      return `line ${problem.line}${problem.column === undefined ? '' : `, column ${problem.column}`}: ${problem.problem}`;
    case 'empty':
      return `the file is empty: its first line names the columns (${columns}).`;
    case 'missing-columns':
      return `the header has no ${problem.columns.join(', ')} column (the columns: ${columns}).`;
    case 'unknown-columns':
      return `unknown column${problem.columns.length === 1 ? '' : 's'} ${problem.columns.map((c) => `"${c}"`).join(', ')} (the columns: ${columns}).`;
    case 'duplicate-column':
      return `the column "${problem.column}" is named twice in the header.`;
    case 'too-many-rows':
      return `the sheet has ${problem.rows} rows; at most ${problem.max} run at once: split it into several sheets.`;
    case 'extra-fields':
      return `line ${problem.line}, column ${problem.column}: this row has ${problem.fields} fields; the header names ${problem.header}.`;
  }
}
