/**
 * /activate sheet in Slack: the modal where the agent gives the sheet (a CSV file or pasted lines), its check (each row's plan or
 * why it will not run, the totals, the deletes and moves to confirm) with Run, and the run's thread: a
 * parent with the counts and one reply listing every row, updated as rows end. Words from
 * src/render/sheet.ts, shared with the CLI.
 */
import type { RowCheck, RowOutcome, SheetCheck, SheetTotals } from '../services/sheets/types.js';
import type { ActivationRequest, ActivationResult } from '../services/activation/types.js';
import { SHEET_COLUMNS, SHEET_MAX_ROWS, type SheetPlace } from '../services/sheets/sheet.js';
import { countsSentence, endedBeforeSentence, rowCandidates, rowCheckSentence, rowConfirmation, rowPlace, totalsSentence } from '../render/sheet.js';
import { escapeMrkdwn } from '../slack/escape.js';
import { encodeMetadata, SheetContinueSchema, SheetMetaSchema, type Origin, type SheetContinue } from '../slack/metadata.js';
import { manualLink } from './activation-progress.js';
import { channelLink, mention } from './format.js';
import { ACTION, BLOCK, CALLBACK } from './ids.js';
import { actions, button, context, fileInput, message, modal, problem, section, sections, textInput, withProblem, type ModalView, type SlackMessage } from './kit.js';
import { clipMrkdwn, LIMITS } from './limits.js';

export const SHEET_TITLE = 'Install sheet';
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
  return modal({ callbackId: CALLBACK.sheetForm, title: SHEET_TITLE, submit: 'Check', blocks, privateMetadata: encodeMetadata(SheetMetaSchema, { origin }) });
}

/** Shown by the ack while the file is downloaded from Slack (its rows are not known yet). */
export function sheetReading(filename: string): ModalView {
  return modal({ callbackId: CALLBACK.info, title: SHEET_TITLE, close: 'Close', blocks: [section(`:hourglass_flowing_sand: Reading *${escapeMrkdwn(filename)}* from Slack… Nothing is written.`)] });
}

/** Pushed over the form by Template at once (the trigger id lives 3 seconds), then updated with how the upload went. */
export function sheetTemplateSending(): ModalView {
  return modal({ callbackId: CALLBACK.info, title: SHEET_TITLE, close: 'Back', blocks: [section(':hourglass_flowing_sand: Sending the template to your messages with SubOps…')] });
}

/** After Template: the template is in the agent's DM with the bot (pushed over the form, which stays as it was). */
export function sheetTemplateSent(filename: string): ModalView {
  return modal({ callbackId: CALLBACK.info, title: SHEET_TITLE, close: 'Back', blocks: [section(`:white_check_mark: *${escapeMrkdwn(filename)}* is in your messages with SubOps. Fill it in, then choose it in the file field.`)] });
}

/** Template could not be sent: why, and that the form is still there. */
export function sheetTemplateFailed(reason: string): ModalView {
  return modal({ callbackId: CALLBACK.info, title: SHEET_TITLE, close: 'Back', blocks: [section(`:x: Slack did not take the template file (${escapeMrkdwn(reason)}). If it says missing_scope, reinstall the app from manifest.yml.`)] });
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
 * here, exactly those (the store keeps this check under `sheetId`, and Run runs it with `shown`). When some
 * need approval (`needsApproval`: their row numbers), the button asks one approval for the whole sheet instead.
 */
export function sheetCheckView(origin: Origin, sheetId: string, check: SheetCheck, needsApproval: ReadonlySet<number> = new Set()): ModalView {
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
    context(runs ? closing : 'No row can run: fix the sheet and give it again.'),
  ];
  const submit = asking ? 'Ask approval' : `Run ${runs} row${runs === 1 ? '' : 's'}`;
  return modal({ callbackId: CALLBACK.sheetCheck, title: SHEET_TITLE, blocks, close: 'Back out', ...(runs && { submit }), privateMetadata: encodeMetadata(SheetMetaSchema, { origin, sheetId }) });
}

/** While the sheet's approval request is posted: nothing is written. */
export function sheetAskingApproval(): ModalView {
  return modal({ callbackId: CALLBACK.info, title: SHEET_TITLE, close: 'Close', blocks: [section(':hourglass_flowing_sand: Asking approval for the sheet… Nothing is written.')] });
}

export function sheetStarted(origin: Origin, rows: number): ModalView {
  return modal({ callbackId: CALLBACK.info, title: SHEET_TITLE, close: 'Close', blocks: [section(`:rocket: The sheet's ${rows} row${rows === 1 ? '' : 's'} started. Follow them in the thread in ${channelLink(origin.channelId)}.`)] });
}

/** Why Run ran nothing: the check is no longer kept (expired, or kept by another SubOps version), its store row is not SubOps', Run was pressed already, or the store did not answer. */
export type SheetNotRun = 'lost' | 'tampered' | 'running' | 'store-failed';

const NOT_RUN_TEXT: Record<SheetNotRun, string> = {
  lost: ':x: SubOps no longer keeps this check. Nothing was changed; run `/activate sheet` and give the sheet again.',
  tampered: ':x: The check the store holds for this sheet is not the one SubOps kept (it does not verify). Nothing was changed; run `/activate sheet` and give the sheet again.',
  running: ':information_source: This sheet is already running (Run was pressed already). Follow it in its thread.',
  'store-failed': ":x: SubOps could not read its store to run this sheet. Nothing was changed; press Back out and run `/activate sheet` again.",
};

/** The modal when Run ran nothing, and why. */
export function sheetNotRun(why: SheetNotRun): ModalView {
  return modal({ callbackId: CALLBACK.info, title: SHEET_TITLE, close: 'Close', blocks: [section(NOT_RUN_TEXT[why])] });
}

/**
 * What the sheet's thread is told when the process running it stopped hard (src/slack/stop-notices.ts): the
 * rows list above says which rows ended, and Continue (its value: the sheet's id in the store, and its approval's) reads UISP
 * again and runs the rest.
 */
export function sheetStopped(startedBy: string, continueWith: SheetContinue): SlackMessage {
  const text = `:warning: *SubOps stopped* before this install sheet (started by ${mention(startedBy)}) ended: its process was restarted, killed or stalled. The rows marked :white_check_mark: or :x: above ended; a row still :hourglass_flowing_sand: may be part-done in UISP. *Continue* reads UISP again and runs every row that did not end, and those that failed.`;
  return message('SubOps stopped before the install sheet ended.', [section(text), actions(BLOCK.sheetContinue, [button({ actionId: ACTION.sheetContinue, text: 'Continue', value: encodeMetadata(SheetContinueSchema, continueWith), style: 'primary' })])]);
}

/**
 * The thread's reply when Continue starts: who pressed it, how many rows it runs, and for a sheet that
 * ran under an approval, whether it still stands (`approvedBy`) or lapsed (its rows under approval stop).
 */
export function sheetContinued(userId: string, rows: number, approval?: { approvedBy: string } | 'lapsed'): SlackMessage {
  const under = approval === 'lapsed'
    ? ' The sheet\'s approval no longer stands (it expired): its rows under approval stop before any write; activate them with `/activate`.'
    : approval
      ? ` Still under ${mention(approval.approvedBy)}'s approval.`
      : '';
  const text = `:arrow_forward: Continued by ${mention(userId)}: ${rows} row${rows === 1 ? '' : 's'} to run, each read again in UISP first.${under}`;
  return message(text, [context(text)]);
}

/** The rows of a sheet before its run: each waiting, but for those that ended in an earlier run (before a stop). */
export function rowLines(check: SheetCheck, ended: ReadonlyMap<number, RowOutcome> = new Map()): SheetRowLine[] {
  return check.rows.map(({ row, line, request }) => {
    const outcome = ended.get(row);
    return { row, line, request, ...(outcome && { outcome, sentence: endedBeforeSentence(outcome) }) };
  });
}

/** The thread's parent: who started the sheet, its totals, then its counts when it is done. */
export function sheetParent(startedBy: string, totals: SheetTotals, counts?: Record<RowOutcome, number>): SlackMessage {
  const text = counts
    ? `Install sheet started by ${mention(startedBy)}: *done*. ${escapeMrkdwn(countsSentence(counts))}.`
    : `Install sheet started by ${mention(startedBy)}: ${escapeMrkdwn(totalsSentence(totals))} Running…`;
  return message(text, [{ ...section(text), block_id: BLOCK.sheetParent }]);
}

/**
 * The manual CRM–NMS links the sheet's rows left, collected in one reply: each client's CRM page, its
 * site and device (each watched as a single activation's is: "Linked in CRM" comes in this thread).
 */
export function sheetLinkReminders(rows: readonly { place: SheetPlace; result: ActivationResult }[]): SlackMessage {
  const heading = `:raised_hand: *${rows.length} manual step${rows.length === 1 ? '' : 's'} left:* in the CRM web interface, link each client below to its site. SubOps does not make these links.`;
  const lines = rows.map(({ place, result }) => `• ${rowPlace(place)}: ${manualLink(result)}`);
  return message(`${rows.length} manual CRM–NMS link${rows.length === 1 ? '' : 's'} left.`, [section(heading), ...rowSections(lines, LIMITS.messageBlocks - 1)]);
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
