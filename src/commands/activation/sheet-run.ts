/**
 * An install sheet's run in Slack: one thread in the channel the sheet came from, a parent with the
 * counts and one reply listing every row, updated in place as rows end; each row audited as a single
 * activation is, linked to the thread. The SheetService runs it; this renders its events.
 */
import { resultSentence } from '../../render/activation.js';
import { countsSentence, rowOutcomeSentence } from '../../render/sheet.js';
import { activationAudit } from '../../services/audit-records.js';
import type { SheetCheck } from '../../services/sheets/types.js';
import type { ListenerDeps } from '../../slack/deps.js';
import { escapeMrkdwn } from '../../slack/escape.js';
import type { Origin } from '../../slack/metadata.js';
import { notice } from '../../views/help.js';
import { sheetParent, sheetRowsReply, type SheetRowLine } from '../../views/sheet.js';

export interface SheetRun {
  /** Where the sheet runs (its thread's channel) and who runs it: the agent who pressed Run (or whose request was approved). */
  origin: Origin;
  /** The check as shown, each row's deletes and moves confirmed as it showed them (`shown`). */
  check: SheetCheck;
  /** Who approved the sheet, when it needed approval: named in each row's audit record. */
  approvedBy?: string | undefined;
}

/** Runs the check as shown, in one thread of the channel the command came from. */
export async function runSheet(deps: ListenerDeps, { origin, check, approvedBy }: SheetRun): Promise<void> {
  const logger = deps.logger.child({ flow: 'sheet', userId: origin.userId });
  const report = deps.reporter.start({ origin, parent: sheetParent(origin.userId, check.totals), logger });
  const rows: SheetRowLine[] = check.rows.map(({ row, line, request }) => ({ row, line, request }));
  report.live(sheetRowsReply(rows));
  let summary = 'the sheet stopped before its end';
  try {
    for await (const event of deps.services.sheets.run(check, 'shown')) {
      if (event.type === 'row') {
        rows[event.row - 1] = { ...rows[event.row - 1]!, outcome: event.outcome, sentence: rowOutcomeSentence(event) };
        report.live(sheetRowsReply(rows));
        if (event.result && event.request) {
          if (event.result.duplicates?.length) deps.lateDuplicates.post(event.result.duplicates, 'activation');
          // Each row is a single activation's record, linked to the sheet's thread.
          const thread = await report.posted();
          await deps.audit.record({ actorId: origin.userId, approvedBy, ...activationAudit(event.request, event.result, resultSentence(event.result)), thread });
        }
      } else if (event.type === 'sheet-done') {
        summary = countsSentence(event.counts);
        report.update(sheetParent(origin.userId, check.totals, event.counts));
      }
    }
  } catch (error) {
    // The sheet promises never to throw (each row's failure is its event); if it does, say so rather than end silently.
    logger.error({ err: error }, 'the install sheet threw');
  }
  await report.finish({
    whenSlackRefused: (problems) => notice(`:warning: Slack did not show the whole install sheet thread (${escapeMrkdwn(problems.join(', '))}). Sheet: ${escapeMrkdwn(summary)}.`),
  });
}
