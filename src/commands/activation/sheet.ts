/**
 * /activate sheet: the pasted install sheet is read (a file that is not a sheet: the problem under the
 * field, nothing sent), checked (reads only) and shown with Run; Run runs exactly that check, its
 * deletes and moves confirmed as shown (`shown`), in one thread: a parent with the counts and one reply
 * listing every row, updated as rows end. Each row is audited as a single activation is. A sheet with
 * rows whose deletes or moves need approval asks one approval for the whole sheet instead (Approve runs
 * it: ../approvals/run-approved.ts). The services' SheetService decides all of it; this file only renders.
 */
import type { App } from '@slack/bolt';
import { fileProblemSentence } from '../../render/sheet.js';
import { rowsNeedingApproval, sheetApprovalReasons } from '../../services/sheets/approval.js';
import { readSheet } from '../../services/sheets/sheet.js';
import type { SheetCheck } from '../../services/sheets/types.js';
import { onceView } from '../../slack/deliveries.js';
import type { ListenerDeps } from '../../slack/deps.js';
import { describeFailure } from '../../slack/errors.js';
import { decodeMetadata, SheetMetaSchema } from '../../slack/metadata.js';
import { updateView } from '../../slack/modals.js';
import { requestApproval } from '../approvals/index.js';
import { runSheet } from './sheet-run.js';
import { readInputs } from '../../slack/state.js';
import { BLOCK, CALLBACK } from '../../views/ids.js';
import { rowsToRun, SHEET_TITLE, sheetAskingApproval, sheetChecking, sheetCheckLost, sheetCheckView, sheetForm, sheetStarted } from '../../views/sheet.js';

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
    const text = readInputs(view.state.values)[BLOCK.sheet] ?? '';
    const sheet = readSheet(text);
    if (!sheet.ok) {
      await ack({ response_action: 'errors', errors: { [BLOCK.sheet]: `Not an install sheet: ${fileProblemSentence(sheet.problem)}` } });
      return;
    }
    await ack({ response_action: 'update', view: sheetChecking(sheet.rows.length) });
    const logger = deps.logger.child({ flow: 'sheet', userId: body.user.id });
    let check: SheetCheck;
    try {
      check = await deps.services.sheets.check(sheet.rows);
    } catch (error) {
      const failure = describeFailure(error);
      if (!failure.expected) logger.error({ err: error }, 'install sheet check failed');
      await updateView(client, { viewId: view.id, view: sheetForm(origin, text, failure.message) }, logger);
      return;
    }
    shown.keep(view.id, body.user.id, check);
    await updateView(client, { viewId: view.id, view: sheetCheckView(origin, check, needingApproval(deps, check)) }, logger);
  }));

  app.view(CALLBACK.sheetCheck, onceView(deps, async ({ ack, body, view, client }) => {
    const { origin } = decodeMetadata(SheetMetaSchema, view.private_metadata);
    const check = shown.take(view.id, body.user.id);
    if (!check) return void (await ack({ response_action: 'update', view: sheetCheckLost() }));
    const actor = { ...origin, userId: body.user.id };
    // Rows whose deletes or moves need approval: the whole sheet, as shown, waits for one approval and then runs in one thread.
    const needsApproval = rowsNeedingApproval(deps.approvals.settings, check);
    if (needsApproval.size) {
      await ack({ response_action: 'update', view: sheetAskingApproval() });
      const operation = { kind: 'sheet' as const, check, approvalRows: [...needsApproval.keys()] };
      const logger = deps.logger.child({ flow: 'sheet', userId: actor.userId });
      await requestApproval(deps, client, { viewId: view.id, title: SHEET_TITLE, origin: actor, reasons: sheetApprovalReasons(needsApproval), operation, logger });
      return;
    }
    await ack({ response_action: 'update', view: sheetStarted(origin, rowsToRun(check.totals)) });
    await runSheet(deps, { origin: actor, check });
  }));
}

/** The rows whose deletes or moves the approval rule (APPROVAL_REQUIRED_FOR) covers. */
const needingApproval = (deps: ListenerDeps, check: SheetCheck): ReadonlySet<number> => new Set(rowsNeedingApproval(deps.approvals.settings, check).keys());
