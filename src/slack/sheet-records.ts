/**
 * The install sheets the bot keeps in the store (src/store/sheets.ts): each check as it was shown, so that
 * Run runs exactly that on whichever replica Slack reaches, or after a restart; and each row's end as it
 * ran, so that Continue, after a process stopped mid-sheet, runs only the rest. The process that writes a
 * sheet or a row's end seals it (a MAC keyed from the bot's secret, ./keyed-mac.ts); read back, a sheet
 * counts only when its seal verifies for its id, and a row's end only when its own does. Anything else in
 * the store is data SubOps did not write as it stands: a sheet is refused ('tampered'), a row's end left
 * out (that row runs again, reading UISP first, as any re-run does).
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { SHEET_MAX_ROWS } from '../services/sheets/sheet.js';
import type { RowOutcome, SheetCheck } from '../services/sheets/types.js';
import type { SheetBook } from '../store/index.js';
import { keyedMac, type KeyedMac } from './keyed-mac.js';
import { OriginSchema, type Origin } from './metadata.js';

/** How long a sheet is kept for Run and Continue: a working day and the night after it. */
export const SHEET_KEEP_MS = 24 * 3_600_000;

/** The sheet as this version of SubOps writes it; another version's is not run (paste it again). */
const SheetRecordSchema = z.object({
  v: z.literal(1),
  /** The agent the check was shown to: only they run it. */
  userId: z.string().min(1),
  origin: OriginSchema,
  check: z.object({
    rows: z.array(z.object({ row: z.number().int().positive(), kind: z.enum(['plan', 'problem', 'refused']) }).passthrough()).max(SHEET_MAX_ROWS),
    totals: z.object({ rows: z.number(), toRun: z.number(), needConfirmation: z.number(), alreadyDone: z.number(), inError: z.number() }),
  }),
});

const OutcomeSchema = z.enum(['done', 'already-done', 'failed', 'refused']);

export interface KeptSheet {
  id: string;
  userId: string;
  origin: Origin;
  check: SheetCheck;
  /** The rows that ended in any run of it so far, as their sealed ends say. */
  ended: ReadonlyMap<number, RowOutcome>;
}

export type SheetRead = { kind: 'kept'; sheet: KeptSheet } | { kind: 'lost' } | { kind: 'tampered' };

export class SheetRecords {
  private readonly mac: KeyedMac;

  constructor(
    private readonly book: SheetBook,
    secret: string,
    private readonly now: () => number = Date.now,
  ) {
    // A label of its own: a sheet's MAC never verifies as another record's, a signature or a token.
    this.mac = keyedMac(secret, 'subops install sheet v1');
  }

  /** Keeps the check shown to `userId`; its id, for the view to name. */
  async keep(userId: string, origin: Origin, check: SheetCheck): Promise<string> {
    const id = randomUUID();
    const sheet = { v: 1, userId, origin, check };
    await this.book.add({ id, sheet, seal: this.mac.make({ id, sheet }), expiresAt: this.now() + SHEET_KEEP_MS });
    return id;
  }

  /** The sheet of this id as SubOps kept it, with its rows' ends; 'lost' when not kept (expired), 'tampered' when its seal does not verify. */
  async read(id: string): Promise<SheetRead> {
    const row = await this.book.byId(id);
    if (!row) return { kind: 'lost' };
    if (!this.mac.verifies({ id, sheet: row.sheet }, row.seal)) return { kind: 'tampered' };
    const parsed = SheetRecordSchema.safeParse(row.sheet);
    // Sealed but not this version's shape: kept by another SubOps version, so not run by this one.
    if (!parsed.success) return { kind: 'lost' };
    const ended = new Map<number, RowOutcome>();
    for (const end of row.ended) {
      const outcome = OutcomeSchema.safeParse(end.outcome);
      if (outcome.success && this.mac.verifies({ id, row: end.row, outcome: end.outcome }, end.seal)) ended.set(end.row, outcome.data);
    }
    const { userId, origin, check } = parsed.data;
    // The seal vouches that SubOps wrote exactly this check from its own typed value.
    return { kind: 'kept', sheet: { id, userId, origin, check: check as unknown as SheetCheck, ended } };
  }

  /** Records how a row ended, sealed. */
  async rowEnded(id: string, row: number, outcome: RowOutcome): Promise<void> {
    await this.book.rowEnded(id, { row, outcome, seal: this.mac.make({ id, row, outcome }) });
  }
}
