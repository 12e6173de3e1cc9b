/**
 * /activate sheet: the install sheet, a CSV file picked in the form (downloaded from Slack after the
 * ack, ../../slack/file-download.ts) or pasted lines, is read (a file that is not a sheet: the problem
 * under its field, nothing sent), checked (reads only) and shown with Run; Run runs exactly that check, its
 * deletes and moves confirmed as shown (`shown`), in one thread: a parent with the counts and one reply
 * listing every row, updated as rows end. Each row is audited as a single activation is. The services'
 * SheetService decides all of it; this file only renders.
 */
import type { App, webApi } from '@slack/bolt';
import type { Logger } from 'pino';
import { fileProblemSentence } from '../../render/sheet.js';
import { rowsNeedingApproval } from '../../services/sheets/approval.js';
import { readSheet, type SheetRow } from '../../services/sheets/sheet.js';
import type { SheetCheck } from '../../services/sheets/types.js';
import { onceView } from '../../slack/deliveries.js';
import type { ListenerDeps } from '../../slack/deps.js';
import { describeFailure } from '../../slack/errors.js';
import { downloadSlackFile, fileRefusal, type SlackFileRef } from '../../slack/file-download.js';
import { decodeMetadata, SheetMetaSchema } from '../../slack/metadata.js';
import { updateView } from '../../slack/modals.js';
import { runSheet } from './sheet-run.js';
import { readInputs } from '../../slack/state.js';
import { ACTION, BLOCK, CALLBACK } from '../../views/ids.js';
import type { ModalView } from '../../views/kit.js';
import { rowsToRun, SHEET_FIELD_BLOCK, sheetChecking, sheetCheckLost, sheetCheckView, sheetForm, sheetReading, sheetStarted, type SheetField } from '../../views/sheet.js';

/** A sheet file is a few KB (200 rows of ~60 characters is 12 KB): anything past this is not one. */
export const SHEET_FILE_MAX_BYTES = 256 * 1024;
/** Slack serves a file in well under a second; past this the agent is told and nothing was written. */
const SHEET_DOWNLOAD_TIMEOUT_MS = 15_000;

/** Checks shown and not yet run (an agent may back out): the oldest are dropped beyond this many. */
const KEPT_CHECKS = 50;

/** The checks on show, by view id (a check is too big for private_metadata); lost on a restart, and then nothing runs. */
class ShownChecks {
  private readonly checks = new Map<string, { userId: string; check: SheetCheck }>();

  keep(viewId: string, userId: string, check: SheetCheck): void {
    this.checks.set(viewId, { userId, check });
    for (const oldest of this.checks.keys()) {
      if (this.checks.size <= KEPT_CHECKS) break;
      this.checks.delete(oldest);
    }
  }

  /** The check shown in this view to this user, once: a second Run finds none. */
  take(viewId: string, userId: string): SheetCheck | undefined {
    const shown = this.checks.get(viewId);
    this.checks.delete(viewId);
    return shown?.userId === userId ? shown.check : undefined;
  }
}

export function registerSheet(app: App, deps: ListenerDeps): void {
  const shown = new ShownChecks();

  app.view(CALLBACK.sheetForm, onceView(deps, async ({ ack, body, view, client }) => {
    const { origin } = decodeMetadata(SheetMetaSchema, view.private_metadata);
    const text = readInputs(view.state.values)[BLOCK.sheet];
    const files = (view.state.values[BLOCK.sheetFile]?.[ACTION.value]?.files ?? []) as SlackFileRef[];
    const file = files[0];
    const errorUnder = (field: SheetField, message: string) => ack({ response_action: 'errors', errors: { [SHEET_FIELD_BLOCK[field]]: message } });
    if (file && text) return void (await errorUnder('paste', 'A file is chosen too: clear these lines to check the file, or remove the file to check these lines.'));
    if (!file && !text) return void (await errorUnder('file', "Choose the sheet's CSV file, or paste its lines below."));
    const logger = deps.logger.child({ flow: 'sheet', userId: body.user.id });
    const shownAgain = (field: SheetField, problem: string) => sheetForm(origin, field === 'paste' ? text : undefined, problem, field);
    let rows: SheetRow[] | undefined;
    if (file) {
      const refused = fileRefusal(file, SHEET_FILE_MAX_BYTES);
      if (refused) return void (await errorUnder('file', `Could not read ${file.name}: ${refused}.`));
      await ack({ response_action: 'update', view: sheetReading(file.name) });
      rows = await rowsOfFile(client, view.id, file, (problem) => shownAgain('file', problem), logger);
      if (!rows) return;
    } else {
      const sheet = readSheet(text!);
      if (!sheet.ok) return void (await errorUnder('paste', `Not an install sheet: ${fileProblemSentence(sheet.problem)}`));
      await ack({ response_action: 'update', view: sheetChecking(sheet.rows.length) });
      rows = sheet.rows;
    }
    let check: SheetCheck;
    try {
      check = await deps.services.sheets.check(rows);
    } catch (error) {
      const failure = describeFailure(error);
      if (!failure.expected) logger.error({ err: error }, 'install sheet check failed');
      await updateView(client, { viewId: view.id, view: shownAgain(file ? 'file' : 'paste', failure.message) }, logger);
      return;
    }
    shown.keep(view.id, body.user.id, check);
    await updateView(client, { viewId: view.id, view: sheetCheckView(origin, check, needingApproval(deps, check)) }, logger);
  }));

  app.view(CALLBACK.sheetCheck, onceView(deps, async ({ ack, body, view }) => {
    const { origin } = decodeMetadata(SheetMetaSchema, view.private_metadata);
    const check = shown.take(view.id, body.user.id);
    if (!check) return void (await ack({ response_action: 'update', view: sheetCheckLost() }));
    await ack({ response_action: 'update', view: sheetStarted(origin, rowsToRun(check.totals)) });
    // Approving a sheet is not in Slack yet: a row whose deletes or moves need approval runs with nothing confirmed, so it stops before any write.
    const needsApproval = needingApproval(deps, check);
    const confirmed = { ...check, rows: check.rows.map((row) => (row.kind === 'plan' && needsApproval.has(row.row) ? { ...row, confirm: null } : row)) };
    await runSheet(deps, { origin: { ...origin, userId: body.user.id }, check: confirmed });
  }));
}

/**
 * The rows of the form's file, downloaded after the ack (the modal says it is reading): shown as being
 * checked, or undefined once the form is shown again (`again`) saying why it could not be read.
 */
async function rowsOfFile(client: webApi.WebClient, viewId: string, file: SlackFileRef, again: (problem: string) => ModalView, logger: Logger): Promise<SheetRow[] | undefined> {
  const download = await downloadSlackFile(file, { token: client.token ?? '', apiUrl: client.slackApiUrl, maxBytes: SHEET_FILE_MAX_BYTES, timeoutMs: SHEET_DOWNLOAD_TIMEOUT_MS });
  if (!download.ok) {
    logger.warn({ file: file.name, problem: download.problem }, 'could not download the install sheet file');
    await updateView(client, { viewId, view: again(`Could not read ${file.name}: ${download.problem}. Nothing was written.`) }, logger);
    return undefined;
  }
  const sheet = readSheet(download.text);
  if (!sheet.ok) {
    await updateView(client, { viewId, view: again(`${file.name} is not an install sheet: ${fileProblemSentence(sheet.problem)}`) }, logger);
    return undefined;
  }
  await updateView(client, { viewId, view: sheetChecking(sheet.rows.length) }, logger);
  return sheet.rows;
}

/** The rows whose deletes or moves the approval rule (APPROVAL_REQUIRED_FOR) covers. */
const needingApproval = (deps: ListenerDeps, check: SheetCheck): ReadonlySet<number> => new Set(rowsNeedingApproval(deps.approvals.settings, check).keys());
