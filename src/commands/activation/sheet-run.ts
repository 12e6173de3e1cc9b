/**
 * An install sheet's run in Slack: one thread in the channel the sheet came from, a parent with the
 * counts and one reply listing every row, updated in place as rows end; each row audited as a single
 * activation is, linked to the thread. Each row's end is recorded in the store as it ends, and the run is
 * recorded as an operation in flight: if its process stops hard, the next one says so in the thread with
 * Continue (./sheet-continue.ts). The SheetService runs it; this renders its events.
 */
import { resultSentence } from '../../render/activation.js';
import { countsSentence, rowOutcomeSentence } from '../../render/sheet.js';
import { activationAudit } from '../../services/audit-records.js';
import type { ActivationResult } from '../../services/activation/types.js';
import type { SheetPlace } from '../../services/sheets/sheet.js';
import type { RowOutcome, SheetCheck } from '../../services/sheets/types.js';
import type { ListenerDeps } from '../../slack/deps.js';
import { errorSummary } from '../../slack/errors.js';
import { escapeMrkdwn } from '../../slack/escape.js';
import type { Origin } from '../../slack/metadata.js';
import type { ThreadReport } from '../../slack/thread-reporter.js';
import { approvedNote } from '../../views/approvals.js';
import { notice } from '../../views/help.js';
import { rowLines, sheetContinued, sheetLinkReminders, sheetParent, sheetRowsReply, type SheetRowLine } from '../../views/sheet.js';

export interface SheetRun {
  /** Where the sheet runs (its thread's channel) and who runs it now: who pressed Run or Continue (or whose request was approved). */
  origin: Origin;
  /** Who started the sheet: its parent names them. */
  startedBy: string;
  /** The sheet's id in the store (src/slack/sheet-records.ts): each row's end is recorded there as it ends. */
  sheetId: string;
  /** The rows to run, each one's deletes and moves confirmed as the check showed them (`shown`). */
  check: SheetCheck;
  /** Who approved the sheet, when it needed approval: named in its thread and each row's audit record. */
  approvedBy?: string | undefined;
  /** The approval request it runs under: Continue after a stop runs its rows under approval only while it stands. */
  approvalId?: string | undefined;
  /** Set by Continue: the sheet's thread (its parent), its rows as they stood (those that ended before the stop marked), and its approval then. */
  continued?: { parentTs: string; all: SheetCheck; ended: ReadonlyMap<number, RowOutcome>; approval?: { approvedBy: string } | 'lapsed' | undefined } | undefined;
}

/** Runs the check as shown, in one thread of the channel the command came from. */
export async function runSheet(deps: ListenerDeps, { origin, startedBy, sheetId, check, approvedBy, approvalId, continued }: SheetRun): Promise<void> {
  const logger = deps.logger.child({ flow: 'sheet', userId: origin.userId, sheetId });
  const all = continued?.all ?? check;
  const report = deps.reporter.start({ origin, parent: sheetParent(startedBy, all.totals), parentTs: continued?.parentTs, logger, ifStopped: { kind: 'sheet', continueWith: { sheetId, ...(approvalId && { approvalId }) }, startedBy } });
  if (approvedBy && !continued) report.reply(approvedNote(approvedBy));
  if (continued) report.reply(sheetContinued(origin.userId, check.rows.length, continued.approval));
  // The rows still to run wait; the rows that ended before a stop say how they ended.
  const rows: SheetRowLine[] = rowLines(all, continued?.ended);
  const place = new Map(rows.map((row, index) => [row.row, index]));
  report.live(sheetRowsReply(rows));
  let summary = 'the sheet stopped before its end';
  const links: LeftLink[] = [];
  try {
    for await (const event of deps.services.sheets.run(check, 'shown')) {
      if (event.type === 'row') {
        // Recorded as it ends, before the thread shows it: Continue after a hard stop runs only the rest.
        await deps.sheets.rowEnded(sheetId, event.row, event.outcome).catch((error: unknown) => logger.warn({ err: errorSummary(error), row: event.row }, 'could not record in the store how an install sheet row ended: a Continue would run it again (it converges)'));
        const index = place.get(event.row)!;
        rows[index] = { ...rows[index]!, outcome: event.outcome, sentence: rowOutcomeSentence(event) };
        report.live(sheetRowsReply(rows));
        if (event.result && event.request) {
          if (event.result.outcome !== 'failed' && event.result.client) links.push({ place: event, result: event.result });
          if (event.result.duplicates?.length) deps.lateDuplicates.post(event.result.duplicates, 'activation');
          // Each row is a single activation's record, linked to the sheet's thread.
          const thread = await report.posted();
          await deps.audit.record({ actorId: origin.userId, approvedBy, ...activationAudit(event.request, event.result, resultSentence(event.result)), thread });
        }
      } else if (event.type === 'sheet-done') {
        const counts = countsOf(rows);
        summary = countsSentence(counts);
        report.update(sheetParent(startedBy, all.totals, counts));
      }
    }
    if (links.length) await remindLinks(deps, report, links);
  } catch (error) {
    // The sheet promises never to throw (each row's failure is its event); if it does, say so rather than end silently.
    logger.error({ err: error }, 'the install sheet threw');
  }
  await report.finish({
    whenSlackRefused: (problems) => notice(`:warning: Slack did not show the whole install sheet thread (${escapeMrkdwn(problems.join(', '))}). Sheet: ${escapeMrkdwn(summary)}.`),
  });
}

/** The sheet's counts over every run of it: its rows as they ended (a Continue's include those that ended before the stop). */
function countsOf(rows: readonly SheetRowLine[]): Record<RowOutcome, number> {
  const counts: Record<RowOutcome, number> = { done: 0, 'already-done': 0, failed: 0, refused: 0 };
  for (const { outcome } of rows) if (outcome) counts[outcome]++;
  return counts;
}

type LeftLink = { place: SheetPlace; result: ActivationResult };

/** The manual CRM–NMS links the rows left, in one reply, each watched from here as a single activation's is (src/commands/link-watch). */
async function remindLinks(deps: ListenerDeps, report: ThreadReport, links: readonly LeftLink[]): Promise<void> {
  report.reply(sheetLinkReminders(links));
  const thread = await report.posted();
  if (!thread) return;
  for (const { result } of links) if (result.site && result.client) deps.events?.links.watch({ siteId: result.site.id, siteName: result.site.name, clientId: result.client.id, thread });
}
