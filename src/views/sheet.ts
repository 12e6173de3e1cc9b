/**
 * /activate sheet in Slack: the modal where the agent gives the sheet (a CSV file or pasted lines), its check (each row's plan or
 * why it will not run, the totals, the deletes and moves to confirm) with Run, and the run's thread: a
 * parent with the counts and one reply listing every row, updated as rows end. Words from
 * src/render/sheet.ts, shared with the CLI.
 */
import type { RowCheck, RowOutcome, SheetCheck, SheetTotals } from '../services/sheets/types.js';
import type { ActivationRequest } from '../services/activation/types.js';
import { SHEET_COLUMNS, SHEET_MAX_ROWS, type SheetPlace } from '../services/sheets/sheet.js';
import { countsSentence, rowCandidates, rowCheckSentence, rowConfirmation, rowPlace, totalsSentence } from '../render/sheet.js';
import { escapeMrkdwn } from '../slack/escape.js';
import { encodeMetadata, SheetMetaSchema, type Origin } from '../slack/metadata.js';
import { channelLink, mention } from './format.js';
import { ACTION, BLOCK, CALLBACK } from './ids.js';
import { button, context, fileInput, message, modal, problem, section, sections, textInput, withProblem, type ModalView, type SlackMessage } from './kit.js';
import { clipMrkdwn, LIMITS } from './limits.js';

const TITLE = 'Install sheet';
/** Slack's plain_text_input holds at most 3000 characters: about sixty rows; a longer sheet comes as a file. */
export const SHEET_INPUT_MAX = 3000;

/** The form's two ways to give the sheet: the file field or the paste field. */
export type SheetField = 'file' | 'paste';
export const SHEET_FIELD_BLOCK: Record<SheetField, string> = { file: BLOCK.sheetFile, paste: BLOCK.sheet };

/**
 * The form: the template offered, a CSV file or pasted lines (exactly one). `problem`: why what was given
 * is not a sheet, under the field it came from (`field`: a problem found after the ack).
 */
export function sheetForm(origin: Origin, text?: string, problemText?: string, field: SheetField = 'paste'): ModalView {
  const columns = Object.values(SHEET_COLUMNS).join(', ');
  const file = fileInput({
    blockId: BLOCK.sheetFile,
    actionId: ACTION.value,
    label: 'Sheet file (CSV)',
    filetypes: ['csv'],
    optional: true,
    hint: `A CSV file of at most ${SHEET_MAX_ROWS} rows, header line included; or paste the lines below.`,
  });
  const paste = textInput({
    blockId: BLOCK.sheet,
    actionId: ACTION.value,
    label: 'Or paste the sheet (CSV, header line included)',
    multiline: true,
    optional: true,
    maxLength: SHEET_INPUT_MAX,
    initial: text,
    placeholder: 'device,first_name,last_name,client_id,email,phone',
    hint: 'About sixty rows fit here; a longer sheet goes in the file field.',
  });
  const blocks = [
    section(`Columns: ${columns}, in any order, with a header row.`, button({ actionId: ACTION.sheetTemplate, text: 'Template' })),
    ...withProblem(file, field === 'file' ? problemText : undefined),
    ...withProblem(paste, field === 'paste' ? problemText : undefined),
    context('Nothing is written until you press Run on the check.'),
  ];
  return modal({ callbackId: CALLBACK.sheetForm, title: TITLE, submit: 'Check', blocks, privateMetadata: encodeMetadata(SheetMetaSchema, { origin }) });
}

/** Shown by the ack while the file is downloaded from Slack (its rows are not known yet). */
export function sheetReading(filename: string): ModalView {
  return modal({ callbackId: CALLBACK.info, title: TITLE, close: 'Close', blocks: [section(`:hourglass_flowing_sand: Reading *${escapeMrkdwn(filename)}* from Slack… Nothing is written.`)] });
}

/** Pushed over the form by Template at once (the trigger id lives 3 seconds), then updated with how the upload went. */
export function sheetTemplateSending(): ModalView {
  return modal({ callbackId: CALLBACK.info, title: TITLE, close: 'Back', blocks: [section(':hourglass_flowing_sand: Sending the template to your messages with SubOps…')] });
}

/** After Template: the template is in the agent's DM with the bot (pushed over the form, which stays as it was). */
export function sheetTemplateSent(filename: string): ModalView {
  return modal({ callbackId: CALLBACK.info, title: TITLE, close: 'Back', blocks: [section(`:white_check_mark: *${escapeMrkdwn(filename)}* is in your messages with SubOps. Fill it in, then choose it in the file field.`)] });
}

/** Template could not be sent: why, and that the form is still there. */
export function sheetTemplateFailed(reason: string): ModalView {
  return modal({ callbackId: CALLBACK.info, title: TITLE, close: 'Back', blocks: [section(`:x: Slack did not take the template file (${escapeMrkdwn(reason)}). If it says missing_scope, reinstall the app from manifest.yml.`)] });
}

export function sheetChecking(rows: number): ModalView {
  return modal({ callbackId: CALLBACK.info, title: TITLE, close: 'Close', blocks: [section(`:hourglass_flowing_sand: Checking UISP for ${rows} row${rows === 1 ? '' : 's'}… Nothing is written.`)] });
}

const rowHead = (place: SheetPlace, request: ActivationRequest | null) => `${rowPlace(place)}${request ? ` *${escapeMrkdwn(request.device)}*` : ''}`;

/** A row of the check: its plan or problem, what Run confirms for it, the candidates a refusal names. */
function checkText(row: RowCheck, needsApproval: boolean): string {
  const mark = row.kind === 'plan' ? (row.alreadyDone ? ':white_check_mark:' : ':arrow_forward:') : ':x:';
  const confirming = rowConfirmation(row);
  return [
    `${mark} ${rowHead(row, row.request)}: ${escapeMrkdwn(rowCheckSentence(row))}`,
    ...(confirming && needsApproval ? [`      :no_entry: *needs approval:* ${escapeMrkdwn(confirming)}. Run does not confirm it (it stops before any write): activate this row with \`/activate\`.`] : []),
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

/** The rows Run runs: every row with a plan (an already activated one says so again). */
export const rowsToRun = (totals: SheetTotals) => totals.toRun + totals.alreadyDone;

/**
 * The check: each row, the totals, and Run N rows. Pressing Run confirms the deletes and moves shown
 * here, exactly those (the listener keeps this check and runs it with `shown`), but for the rows that
 * need approval (`needsApproval`: their row numbers), which Run does not confirm.
 */
export function sheetCheckView(origin: Origin, check: SheetCheck, needsApproval: ReadonlySet<number> = new Set()): ModalView {
  const runs = rowsToRun(check.totals);
  const blocks = [
    section(`*${escapeMrkdwn(totalsSentence(check.totals))}*`),
    ...(check.totals.needConfirmation ? [problem('Run deletes or moves exactly what is marked "to confirm" below, nothing else; rows in error do not run.')] : []),
    // Four blocks around the rows: the totals, the confirmation notice, the closing context, one to spare.
    ...rowSections(check.rows.map((row) => checkText(row, needsApproval.has(row.row))), LIMITS.modalBlocks - 4),
    context(runs ? 'Nothing is written until you press Run; each row is read again as it runs.' : 'No row can run: fix the sheet and give it again.'),
  ];
  return modal({ callbackId: CALLBACK.sheetCheck, title: TITLE, blocks, close: 'Back out', ...(runs && { submit: `Run ${runs} row${runs === 1 ? '' : 's'}` }), privateMetadata: encodeMetadata(SheetMetaSchema, { origin }) });
}

export function sheetStarted(origin: Origin, rows: number): ModalView {
  return modal({ callbackId: CALLBACK.info, title: TITLE, close: 'Close', blocks: [section(`:rocket: The sheet's ${rows} row${rows === 1 ? '' : 's'} started. Follow them in the thread in ${channelLink(origin.channelId)}.`)] });
}

/** The modal when the check it showed is no longer kept (a restart): nothing ran. */
export function sheetCheckLost(): ModalView {
  return modal({ callbackId: CALLBACK.info, title: TITLE, close: 'Close', blocks: [section(':x: SubOps no longer holds this check (it restarted). Nothing was changed; run `/activate sheet` and give the sheet again.')] });
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
