/**
 * /activate sheet: the install sheet, a CSV file picked in the form (downloaded from Slack after the
 * ack, ../../slack/file-download.ts) or pasted lines, is read (a file that is not a sheet: the problem
 * under its field, nothing sent), checked (reads only), kept in the store (../../slack/sheet-records.ts) and
 * shown with Run; Run, on whichever replica, runs exactly that check once, its
 * deletes and moves confirmed as shown (`shown`), in one thread: a parent with the counts and one reply
 * listing every row, updated as rows end. Each row is audited as a single activation is. A sheet with
 * rows whose deletes or moves need approval asks one approval for the whole sheet instead (Approve runs
 * it: ../approvals/run-approved.ts). The services' SheetService decides all of it; this file only renders.
 */
import type { App, webApi } from '@slack/bolt';
import type { Logger } from 'pino';
import { fileProblemSentence } from '../../render/sheet.js';
import { rowsNeedingApproval, sheetApprovalReasons } from '../../services/sheets/approval.js';
import { readSheet, type SheetRow } from '../../services/sheets/sheet.js';
import type { SheetCheck } from '../../services/sheets/types.js';
import { onceView } from '../../slack/deliveries.js';
import type { ListenerDeps } from '../../slack/deps.js';
import { describeFailure, errorSummary } from '../../slack/errors.js';
import { downloadSlackFile, fileRefusal, type SlackFileRef } from '../../slack/file-download.js';
import { decodeMetadata, SheetMetaSchema } from '../../slack/metadata.js';
import { SHEET_KEEP_MS } from '../../slack/sheet-records.js';
import { updateView } from '../../slack/modals.js';
import { requestApproval } from '../approvals/index.js';
import { runSheet } from './sheet-run.js';
import { readInputs } from '../../slack/state.js';
import { ACTION, BLOCK, CALLBACK } from '../../views/ids.js';
import type { ModalView } from '../../views/kit.js';
import { rowsToRun, SHEET_FIELD_BLOCK, SHEET_TITLE, sheetAskingApproval, sheetChecking, sheetCheckView, sheetForm, sheetNotRun, sheetReading, sheetStarted, type SheetField, type SheetNotRun } from '../../views/sheet.js';

/** A sheet file is a few KB (200 rows of ~60 characters is 12 KB): anything past this is not one. */
export const SHEET_FILE_MAX_BYTES = 256 * 1024;
/** Slack serves a file in well under a second; past this the agent is told and nothing was written. */
const SHEET_DOWNLOAD_TIMEOUT_MS = 15_000;

export function registerSheet(app: App, deps: ListenerDeps): void {
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
    let sheetId: string;
    try {
      // Kept in the store, sealed: Run may reach another replica, or come after a restart.
      sheetId = await deps.sheets.keep(body.user.id, origin, check);
    } catch (error) {
      logger.error({ err: errorSummary(error) }, 'could not keep an install sheet check in the store');
      await updateView(client, { viewId: view.id, view: shownAgain(file ? 'file' : 'paste', 'SubOps could not keep the check in its store. Nothing was written; press Check again.') }, logger);
      return;
    }
    await updateView(client, { viewId: view.id, view: sheetCheckView(origin, sheetId, check, needingApproval(deps, check)) }, logger);
  }));

  app.view(CALLBACK.sheetCheck, onceView(deps, async ({ ack, body, view, client }) => {
    const { origin, sheetId } = decodeMetadata(SheetMetaSchema, view.private_metadata);
    const logger = deps.logger.child({ flow: 'sheet', userId: body.user.id, sheetId });
    const taken = sheetId ? await takeShown(deps, sheetId, body.user.id, logger) : { notRun: 'lost' as const };
    if ('notRun' in taken) return void (await ack({ response_action: 'update', view: sheetNotRun(taken.notRun) }));
    const { check } = taken;
    const actor = { ...origin, userId: body.user.id };
    // Rows whose deletes or moves need approval: the whole sheet, as shown, waits for one approval and then runs in one thread.
    const needsApproval = rowsNeedingApproval(deps.approvals.settings, check);
    if (needsApproval.size) {
      await ack({ response_action: 'update', view: sheetAskingApproval() });
      const operation = { kind: 'sheet' as const, sheetId: sheetId!, check, approvalRows: [...needsApproval.keys()] };
      await requestApproval(deps, client, { viewId: view.id, title: SHEET_TITLE, origin: actor, reasons: sheetApprovalReasons(needsApproval), operation, logger });
      return;
    }
    await ack({ response_action: 'update', view: sheetStarted(origin, rowsToRun(check.totals)) });
    await runSheet(deps, { origin: actor, startedBy: actor.userId, sheetId: sheetId!, check });
  }));
}

/**
 * The check this Run shows, as the store keeps it, once: the first Run of it claims it (two presses, or
 * two replicas, run it once), and only the agent it was shown to runs it.
 */
async function takeShown(deps: ListenerDeps, sheetId: string, userId: string, logger: Logger): Promise<{ check: SheetCheck } | { notRun: SheetNotRun }> {
  try {
    const read = await deps.sheets.read(sheetId);
    if (read.kind === 'tampered') logger.warn('an install sheet in the store does not verify (SubOps did not keep it as it stands): nothing ran');
    if (read.kind !== 'kept' || read.sheet.userId !== userId) return { notRun: read.kind === 'tampered' ? 'tampered' : 'lost' };
    const claimed = await deps.store.claims.claim(`sheet-run:${sheetId}`);
    if (!claimed.won) return { notRun: 'running' };
    await claimed.claim.done(SHEET_KEEP_MS);
    return { check: read.sheet.check };
  } catch (error) {
    logger.error({ err: errorSummary(error) }, 'could not read an install sheet from the store');
    return { notRun: 'store-failed' };
  }
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
