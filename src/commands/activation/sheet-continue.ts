/**
 * Continue on an install sheet whose process stopped mid-sheet (its thread says so, ./sheet-run.ts): reads
 * the sheet as the store keeps it (sealed: src/slack/sheet-records.ts) with the rows that ended, and runs
 * the rest in the same thread, each row reading UISP again first. Pressed once: the first press of a stop
 * message claims it in the store, whichever replica Slack reaches; a later one is told it was pressed.
 * The button is replaced by who pressed it. Anything that is not the sheet SubOps kept, in the channel it
 * ran in, runs nothing. A sheet that ran under an approval runs its rows under approval only while that
 * approval stands (approved, not expired, its seal verified, given for this sheet); otherwise they stop
 * before any write, and the thread says why.
 */
import type { App, BlockButtonAction } from '@slack/bolt';
import type { Logger } from 'pino';
import { continuedUnder, type SheetApproval } from '../../services/sheets/approval.js';
import { restOf } from '../../services/sheets/service.js';
import { isTampered, readRequestById } from '../../slack/approval-requests.js';
import { markPressed } from '../../slack/button-marks.js';
import { onceButton } from '../../slack/deliveries.js';
import type { ListenerDeps } from '../../slack/deps.js';
import { errorSummary } from '../../slack/errors.js';
import { readMetadata, SheetContinueSchema, type Origin, type SheetContinue } from '../../slack/metadata.js';
import { tellAgent } from '../../slack/notify.js';
import { SHEET_KEEP_MS, type KeptSheet } from '../../slack/sheet-records.js';
import { mention } from '../../views/format.js';
import { notice } from '../../views/help.js';
import { ACTION, BLOCK } from '../../views/ids.js';
import { logTampered } from '../approvals/index.js';
import { runSheet } from './sheet-run.js';

const NOT_CONTINUED = {
  lost: ':x: SubOps no longer keeps this sheet (it keeps one for 24 hours). Nothing was changed; run `/activate sheet` and paste it again: rows already activated say so, the others run.',
  tampered: ':x: The sheet or its approval, as the store holds them for this thread, is not what SubOps kept (it does not verify). Nothing was changed.',
  pressed: ':information_source: Continue was already pressed on this message: the sheet goes on in this thread.',
  'store-failed': ':x: SubOps could not read its store to continue this sheet. Nothing was changed; press Continue again.',
} as const;

export function registerSheetContinue(app: App, deps: ListenerDeps): void {
  app.action<BlockButtonAction>(ACTION.sheetContinue, onceButton(deps, async ({ ack, body, action, client }) => {
    await ack();
    const channelId = body.channel?.id;
    const stopMessage = body.message;
    if (!channelId || !stopMessage) throw new Error('Continue clicked outside a message');
    const origin: Origin = { channelId, userId: body.user.id, ...(body.response_url && { responseUrl: body.response_url }) };
    const logger = deps.logger.child({ flow: 'sheet', userId: body.user.id, continued: true });
    const pressed = readMetadata(SheetContinueSchema, action.value);
    const taken = pressed ? await take(deps, pressed, { channelId, stopTs: stopMessage.ts }, logger) : 'lost';
    if (typeof taken === 'string') return void (await tellAgent(client, origin, notice(NOT_CONTINUED[taken]), logger));
    const { sheet, approval } = taken;
    markPressed(deps, client, { channel: channelId, message: stopMessage, blockId: BLOCK.sheetContinue, fallbackText: 'SubOps stopped before the install sheet ended.' }, `:arrow_forward: Continued by ${mention(body.user.id)}`, logger);
    // Bolt types a message's extra fields as any: thread_ts is a string when the stop message is in a thread.
    const parentTs: string = typeof stopMessage.thread_ts === 'string' ? stopMessage.thread_ts : stopMessage.ts;
    // Rows under approval run as shown only while the sheet's approval stands, as a Retry's would.
    const under = continuedUnder(deps.approvals.settings, restOf(sheet.check, sheet.ended), approval, deps.approvals.now());
    await runSheet(deps, {
      origin,
      startedBy: sheet.userId,
      sheetId: sheet.id,
      check: under.check,
      approvedBy: under.approvedBy,
      ...(under.approvedBy && { approvalId: pressed?.approvalId }),
      continued: { parentTs, all: sheet.check, ended: sheet.ended, approval: under.approvedBy ? { approvedBy: under.approvedBy } : under.lapsed ? 'lapsed' : undefined },
    });
  }));
}

/**
 * The sheet to continue, claimed for this stop message, with the approval it ran under as the store holds
 * it now (its seal verified, and given for this sheet); or why nothing runs.
 */
async function take(deps: ListenerDeps, { sheetId, approvalId }: SheetContinue, { channelId, stopTs }: { channelId: string; stopTs: string }, logger: Logger): Promise<{ sheet: KeptSheet; approval: SheetApproval | undefined } | keyof typeof NOT_CONTINUED> {
  try {
    const read = await deps.sheets.read(sheetId);
    if (read.kind === 'tampered') logger.warn({ sheetId }, 'an install sheet in the store does not verify (SubOps did not keep it as it stands): Continue ran nothing');
    if (read.kind !== 'kept') return read.kind;
    // A sheet runs in the channel it was started in: a Continue anywhere else is not its thread's.
    if (read.sheet.origin.channelId !== channelId) return 'lost';
    const approval = approvalId ? await readRequestById(deps.store.approvals, deps.approvals.seal, approvalId) : undefined;
    if (approval && isTampered(approval)) {
      logTampered(logger, approval);
      return 'tampered';
    }
    // An approval given for another operation vouches for nothing here.
    const forThisSheet = approval?.request.operation.kind === 'sheet' && approval.request.operation.sheetId === sheetId ? approval : undefined;
    const claimed = await deps.store.claims.claim(`sheet-continue:${sheetId}:${stopTs}`);
    if (!claimed.won) return 'pressed';
    await claimed.claim.done(SHEET_KEEP_MS);
    return { sheet: read.sheet, approval: forThisSheet && { decision: forThisSheet.decision?.decision, by: forThisSheet.decision?.by ?? '', expiresAt: forThisSheet.request.expiresAt } };
  } catch (error) {
    logger.error({ err: errorSummary(error) }, 'could not read an install sheet from the store to continue it');
    return 'store-failed';
  }
}
