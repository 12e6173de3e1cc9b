/**
 * `subops activate --sheet installs.csv`: a day's installs from one CSV file (examples/install-sheet.csv).
 * The sheet is read (a file that is not a sheet: exit 2, nothing connects), checked (reads only: each
 * row's plan, the rows in error, the totals), confirmed, and run a few rows at a time (the services'
 * SheetService decides all of it; this file only words and prints). Exit 0 only when every row ends
 * activated or already activated.
 */
import { readFile } from 'node:fs/promises';
import { connectCli } from '../connection.js';
import { EXIT, UsageError, writeLine, writeText, type CliIo } from '../io.js';
import { canAsk } from '../../process/io.js';
import { confirm } from '../../process/prompt.js';
import { openCliAudit } from '../audit.js';
import { errorJson, jsonLine, sheetCheckJson, sheetRowJson } from '../json.js';
import { resultSentence } from '../../render/activation.js';
import { countsSentence, fileProblemSentence, rowCandidates, rowCheckSentence, rowConfirmation, rowOutcomeSentence, rowPlace, totalsSentence } from '../../render/sheet.js';
import { activationAudit } from '../../services/audit-records.js';
import { readSheet } from '../../services/sheets/sheet.js';
import type { RowCheck, RowOutcome, SheetCheck, SheetConfirmation, SheetEvent } from '../../services/sheets/types.js';

export interface SheetOptions {
  dryRun: boolean;
  yes: boolean;
  json: boolean;
}

const NOT_CONFIRMED = 'Not confirmed: nothing was changed.';

const MARK: Record<RowOutcome, string> = { done: '✓', 'already-done': '↷', failed: '✗', refused: '✗' };

/** The file's rows, or a usage error (exit 2) saying why it is not a sheet, before anything connects. */
async function rowsOf(path: string) {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new UsageError(`--sheet: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? 'unreadable'}).`);
  }
  const sheet = readSheet(text);
  if (!sheet.ok) throw new UsageError(`--sheet: ${path} is not an install sheet: ${fileProblemSentence(sheet.problem)}`);
  return sheet.rows;
}

const rowHead = (row: RowCheck) => `${rowPlace(row)}${row.request ? ` ${row.request.device}` : ''}`;

function checkLines(check: SheetCheck): string[] {
  const lines = [`Install sheet: ${totalsSentence(check.totals)}`];
  for (const row of check.rows) {
    const mark = row.kind === 'plan' ? (row.alreadyDone ? '↷' : '•') : '✗';
    lines.push(`${mark} ${rowHead(row)}: ${rowCheckSentence(row)}`);
    const confirming = rowConfirmation(row);
    if (confirming) lines.push(`    to confirm: ${confirming}`);
    for (const candidate of rowCandidates(row)) lines.push(`    - ${candidate}`);
  }
  return lines;
}

export async function activateSheet(path: string, options: SheetOptions, io: CliIo): Promise<number> {
  const rows = await rowsOf(path);
  const connection = await connectCli(io, options.json ? 'json' : 'text');
  try {
    const { sheets, numbering } = connection.services;
    const check = await sheets.check(rows);
    if (options.dryRun) {
      if (options.json) {
        for (const row of check.rows) writeLine(io.stdout, jsonLine(io, sheetCheckJson(row)));
        writeLine(io.stdout, jsonLine(io, { type: 'sheet-totals', ...check.totals }));
      } else writeText(io.stdout, ...checkLines(check), 'Dry run: nothing was written.');
      return check.totals.inError ? EXIT.failed : EXIT.ok;
    }
    const confirmation = await confirmSheet(check, options, io);
    if (!confirmation) {
      writeText(io.stderr, NOT_CONFIRMED);
      if (options.json) writeLine(io.stdout, jsonLine(io, errorJson([{ field: '--yes', message: NOT_CONFIRMED }])));
      return EXIT.failed;
    }
    const audit = await openCliAudit(io, connection.config.logLevel);
    const label = (status: number) => numbering.label(status);
    let succeeded = false;
    for await (const event of sheets.run(check, confirmation)) {
      if (event.type === 'row' && event.result && event.request) await audit.record(activationAudit(event.request, event.result, resultSentence(event.result)));
      if (event.type === 'row' && options.json) writeLine(io.stdout, jsonLine(io, sheetRowJson(event, label)));
      else if (event.type === 'sheet-done' && options.json) writeLine(io.stdout, jsonLine(io, { type: 'sheet-done', counts: event.counts, message: countsSentence(event.counts) }));
      else writeEvent(event, io);
      if (event.type === 'sheet-done') succeeded = event.counts.failed + event.counts.refused === 0;
    }
    return succeeded ? EXIT.ok : EXIT.failed;
  } finally {
    await connection.close();
  }
}

/** Text lines of the run: a line per row as it ends; throttling on stderr (it is about UISP, not a row's outcome). */
function writeEvent(event: SheetEvent, io: CliIo): void {
  switch (event.type) {
    case 'row':
      return writeText(io.stdout, `${MARK[event.outcome]} ${rowPlace(event)}${event.request ? ` ${event.request.device}` : ''}: ${rowOutcomeSentence(event)}`, ...rowCandidates(event).map((candidate) => `    - ${candidate}`));
    case 'row-throttled':
      return writeText(io.stderr, `UISP answered HTTP ${event.status} during ${rowPlace(event)}: the sheet goes on one row at a time, after ${Math.ceil(event.waitMs / 1000)} s; the row runs again.`);
    case 'sheet-done':
      return writeText(io.stdout, `Sheet: ${countsSentence(event.counts)}.`);
    case 'row-started':
      return;
  }
}

/**
 * What the agent confirmed. --yes: every delete and move (`any`, as the single activation's --yes). On a
 * terminal, the check is shown and asked about once; the rows then run with exactly what was shown
 * confirmed. Elsewhere rows that delete or move stop before any write (`none`) and the others run.
 * undefined: declined.
 */
async function confirmSheet(check: SheetCheck, options: SheetOptions, io: CliIo): Promise<SheetConfirmation | undefined> {
  if (options.yes) return 'any';
  if (!canAsk(io)) return 'none';
  writeText(io.stderr, ...checkLines(check));
  const { toRun, needConfirmation } = check.totals;
  if (!toRun) return 'shown';
  const question = needConfirmation ? `Activate ${toRun} row${toRun === 1 ? '' : 's'}, with the deletes and moves listed above?` : `Activate ${toRun} row${toRun === 1 ? '' : 's'}?`;
  return (await confirm(io, question)) ? 'shown' : undefined;
}
