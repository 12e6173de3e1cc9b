/**
 * /activate sheet in Slack: the modal where the agent pastes the sheet, its check (each row's plan or
 * why it will not run, the totals, the deletes and moves to confirm) with Run, and the run's thread: a
 * parent with the counts and one reply listing every row, updated as rows end. Words from
 * src/render/sheet.ts, shared with the CLI.
 */
import type { RowCheck, RowOutcome, SheetCheck, SheetTotals } from '../services/sheets/types.js';
import type { ActivationRequest } from '../services/activation/types.js';
import type { SheetPlace } from '../services/sheets/sheet.js';
import { countsSentence, rowCandidates, rowCheckSentence, rowConfirmation, rowPlace, totalsSentence } from '../render/sheet.js';
import { escapeMrkdwn } from '../slack/escape.js';
import { encodeMetadata, SheetMetaSchema, type Origin } from '../slack/metadata.js';
import { channelLink, mention } from './format.js';
import { ACTION, BLOCK, CALLBACK } from './ids.js';
import { context, message, modal, problem, section, sections, textInput, withProblem, type ModalView, type SlackMessage } from './kit.js';
import { clipMrkdwn, LIMITS } from './limits.js';

export const SHEET_TITLE = 'Install sheet';
/** Slack's plain_text_input holds at most 3000 characters: about sixty rows. */
export const SHEET_INPUT_MAX = 3000;

/** The paste form; `problem`: why the file is not a sheet, under the field (a problem found after the ack). */
export function sheetForm(origin: Origin, text?: string, problemText?: string): ModalView {
  const input = textInput({
    blockId: BLOCK.sheet,
    actionId: ACTION.value,
    label: 'Sheet (CSV, header line included)',
    multiline: true,
    maxLength: SHEET_INPUT_MAX,
    initial: text,
    placeholder: 'device,first_name,last_name,email,phone,client_id',
    hint: 'Paste the CSV lines of the install sheet. Nothing is written until you press Run on the check.',
  });
  return modal({ callbackId: CALLBACK.sheetForm, title: SHEET_TITLE, submit: 'Check', blocks: withProblem(input, problemText), privateMetadata: encodeMetadata(SheetMetaSchema, { origin }) });
}

export function sheetChecking(rows: number): ModalView {
  return modal({ callbackId: CALLBACK.info, title: SHEET_TITLE, close: 'Close', blocks: [section(`:hourglass_flowing_sand: Checking UISP for ${rows} row${rows === 1 ? '' : 's'}… Nothing is written.`)] });
}

const rowHead = (place: SheetPlace, request: ActivationRequest | null) => `${rowPlace(place)}${request ? ` *${escapeMrkdwn(request.device)}*` : ''}`;

/** A row of the check: its plan or problem, what Run confirms for it, the candidates a refusal names. */
function checkText(row: RowCheck, needsApproval: boolean): string {
  const mark = row.kind === 'plan' ? (row.alreadyDone ? ':white_check_mark:' : ':arrow_forward:') : ':x:';
  const confirming = rowConfirmation(row);
  return [
    `${mark} ${rowHead(row, row.request)}: ${escapeMrkdwn(rowCheckSentence(row))}`,
    ...(confirming && needsApproval ? [`      :raised_hand: *needs approval:* ${escapeMrkdwn(confirming)}`] : []),
    ...(confirming && !needsApproval ? [`      :warning: *to confirm:* ${escapeMrkdwn(confirming)}`] : []),
    ...rowCandidates(row).map((candidate) => `      • ${escapeMrkdwn(candidate)}`),
  ].join('\n');
}

/**
 * The rows in at most `blocks` sections: each row's text is clipped to its share of them, so a sheet of
 * 200 rows with long names still shows every row (a row never falls off the end).
 */
function rowSections(rows: string[], blocks: number) {
  const perSection = Math.max(1, Math.ceil(rows.length / blocks));
  const share = Math.floor((LIMITS.text - (perSection - 1)) / perSection);
  return sections('', rows.map((row) => clipMrkdwn(row, share)));
}

/**
 * The check's rows in at most `blocks` sections, as the check shows them (`needsApproval`: the rows whose
 * deletes or moves need approval): the check view and the sheet's approval request show the same plan.
 */
export const sheetPlanSections = (check: SheetCheck, needsApproval: ReadonlySet<number>, blocks: number) =>
  rowSections(check.rows.map((row) => checkText(row, needsApproval.has(row.row))), blocks);

/** The rows Run runs: every row with a plan (an already activated one says so again). */
export const rowsToRun = (totals: SheetTotals) => totals.toRun + totals.alreadyDone;

/**
 * The check: each row, the totals, and Run N rows. Pressing Run confirms the deletes and moves shown
 * here, exactly those (the listener keeps this check and runs it with `shown`). When some need approval
 * (`needsApproval`: their row numbers), the button asks one approval for the whole sheet instead.
 */
export function sheetCheckView(origin: Origin, check: SheetCheck, needsApproval: ReadonlySet<number> = new Set()): ModalView {
  const runs = rowsToRun(check.totals);
  const asking = runs > 0 && needsApproval.size > 0;
  const notice = asking
    ? `${needsApproval.size === 1 ? '1 row deletes or moves' : `${needsApproval.size} rows delete or move`} what needs approval (marked below). Ask approval sends the whole sheet, as shown, to an approver; nothing is written until one other than you approves it, then every row runs and deletes or moves exactly what is marked.`
    : 'Run deletes or moves exactly what is marked "to confirm" below, nothing else; rows in error do not run.';
  const closing = asking ? 'Nothing is written until the sheet is approved; each row is read again as it runs.' : 'Nothing is written until you press Run; each row is read again as it runs.';
  const blocks = [
    section(`*${escapeMrkdwn(totalsSentence(check.totals))}*`),
    ...(check.totals.needConfirmation ? [problem(notice)] : []),
    // Four blocks around the rows: the totals, the confirmation notice, the closing context, one to spare.
    ...sheetPlanSections(check, needsApproval, LIMITS.modalBlocks - 4),
    context(runs ? closing : 'No row can run: fix the sheet and paste it again.'),
  ];
  const submit = asking ? 'Ask approval' : `Run ${runs} row${runs === 1 ? '' : 's'}`;
  return modal({ callbackId: CALLBACK.sheetCheck, title: SHEET_TITLE, blocks, close: 'Back out', ...(runs && { submit }), privateMetadata: encodeMetadata(SheetMetaSchema, { origin }) });
}

/** While the sheet's approval request is posted: nothing is written. */
export function sheetAskingApproval(): ModalView {
  return modal({ callbackId: CALLBACK.info, title: SHEET_TITLE, close: 'Close', blocks: [section(':hourglass_flowing_sand: Asking approval for the sheet… Nothing is written.')] });
}

export function sheetStarted(origin: Origin, rows: number): ModalView {
  return modal({ callbackId: CALLBACK.info, title: SHEET_TITLE, close: 'Close', blocks: [section(`:rocket: The sheet's ${rows} row${rows === 1 ? '' : 's'} started. Follow them in the thread in ${channelLink(origin.channelId)}.`)] });
}

/** The modal when the check it showed is no longer kept (a restart): nothing ran. */
export function sheetCheckLost(): ModalView {
  return modal({ callbackId: CALLBACK.info, title: SHEET_TITLE, close: 'Close', blocks: [section(':x: SubOps no longer holds this check (it restarted). Nothing was changed; run `/activate sheet` and paste the sheet again.')] });
}

/** The thread's parent: who started the sheet, its totals, then its counts when it is done. */
export function sheetParent(startedBy: string, totals: SheetTotals, counts?: Record<RowOutcome, number>): SlackMessage {
  const text = counts
    ? `Install sheet started by ${mention(startedBy)}: *done*. ${escapeMrkdwn(countsSentence(counts))}.`
    : `Install sheet started by ${mention(startedBy)}: ${escapeMrkdwn(totalsSentence(totals))} Running…`;
  return message(text, [section(text)]);
}

/** A row in the thread's reply: running (no outcome yet) or how it ended, with the sentence saying why. */
export interface SheetRowLine extends SheetPlace {
  request: ActivationRequest | null;
  outcome?: RowOutcome;
  sentence?: string;
}

const OUTCOME_MARK: Record<RowOutcome, string> = { done: ':white_check_mark:', 'already-done': ':white_check_mark:', failed: ':x:', refused: ':x:' };

/** The one reply listing every row, in sections (200 rows fit in a message's 50 blocks). */
export function sheetRowsReply(rows: readonly SheetRowLine[]): SlackMessage {
  const lines = rows.map((row) => `${row.outcome ? OUTCOME_MARK[row.outcome] : ':hourglass_flowing_sand:'} ${rowHead(row, row.request)}${row.sentence ? `: ${escapeMrkdwn(row.sentence)}` : ''}`);
  const ended = rows.filter((row) => row.outcome).length;
  return message(`Rows: ${ended} of ${rows.length} ended.`, rowSections(lines, LIMITS.messageBlocks));
}
