/**
 * Continue on an install sheet whose process stopped mid-sheet (its thread says so, ./sheet-run.ts): reads
 * the sheet as the store keeps it (sealed: src/slack/sheet-records.ts) with the rows that ended, and runs
 * the rest in the same thread, each row reading UISP again first. Pressed once: the first press of a stop
 * message claims it in the store, whichever replica Slack reaches; a later one is told it was pressed.
 * The button is replaced by who pressed it. Anything that is not the sheet SubOps kept, in the channel it
 * ran in, runs nothing.
 */
import type { App, BlockButtonAction } from '@slack/bolt';
import type { Logger } from 'pino';
import { withoutUnapproved } from '../../services/sheets/approval.js';
import { restOf } from '../../services/sheets/service.js';
import { markPressed } from '../../slack/button-marks.js';
import { onceButton } from '../../slack/deliveries.js';
import type { ListenerDeps } from '../../slack/deps.js';
import { errorSummary } from '../../slack/errors.js';
import type { Origin } from '../../slack/metadata.js';
import { tellAgent } from '../../slack/notify.js';
import { SHEET_KEEP_MS, type KeptSheet } from '../../slack/sheet-records.js';
import { mention } from '../../views/format.js';
import { notice } from '../../views/help.js';
import { ACTION, BLOCK } from '../../views/ids.js';
import { runSheet } from './sheet-run.js';

const NOT_CONTINUED = {
  lost: ':x: SubOps no longer keeps this sheet (it keeps one for 24 hours). Nothing was changed; run `/activate sheet` and paste it again: rows already activated say so, the others run.',
  tampered: ':x: The sheet the store holds for this thread is not the one SubOps kept (it does not verify). Nothing was changed.',
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
    const taken = await take(deps, action.value ?? '', { channelId, stopTs: stopMessage.ts }, logger);
    if (typeof taken === 'string') return void (await tellAgent(client, origin, notice(NOT_CONTINUED[taken]), logger));
    markPressed(deps, client, { channel: channelId, message: stopMessage, blockId: BLOCK.sheetContinue, fallbackText: 'SubOps stopped before the install sheet ended.' }, `:arrow_forward: Continued by ${mention(body.user.id)}`, logger);
    // Bolt types a message's extra fields as any: thread_ts is a string when the stop message is in a thread.
    const parentTs: string = typeof stopMessage.thread_ts === 'string' ? stopMessage.thread_ts : stopMessage.ts;
    const rest = restOf(taken.check, taken.ended);
    await runSheet(deps, {
      origin,
      startedBy: taken.userId,
      sheetId: taken.id,
      check: withoutUnapproved(deps.approvals.settings, rest),
      continued: { parentTs, all: taken.check, ended: taken.ended },
    });
  }));
}

/** The sheet to continue, claimed for this stop message; or why nothing runs. */
async function take(deps: ListenerDeps, sheetId: string, { channelId, stopTs }: { channelId: string; stopTs: string }, logger: Logger): Promise<KeptSheet | keyof typeof NOT_CONTINUED> {
  try {
    const read = await deps.sheets.read(sheetId);
    if (read.kind === 'tampered') logger.warn({ sheetId: sheetId.slice(0, 64) }, 'an install sheet in the store does not verify (SubOps did not keep it as it stands): Continue ran nothing');
    if (read.kind !== 'kept') return read.kind;
    // A sheet runs in the channel it was started in: a Continue anywhere else is not its thread's.
    if (read.sheet.origin.channelId !== channelId) return 'lost';
    const claimed = await deps.store.claims.claim(`sheet-continue:${sheetId}:${stopTs}`);
    if (!claimed.won) return 'pressed';
    await claimed.claim.done(SHEET_KEEP_MS);
    return read.sheet;
  } catch (error) {
    logger.error({ err: errorSummary(error) }, 'could not read an install sheet from the store to continue it');
    return 'store-failed';
  }
}
