/**
 * An install sheet's public shapes: the check (each row's plan or why it cannot run, and the totals)
 * and the run's typed events, one row at a time. Facts only: front ends word them (src/render/sheet.ts),
 * the CLI today and Slack's thread later, from the same decisions.
 */
import type { ActivationError, ActivationPlan, ActivationRequest, ActivationResult, DeviceMove, ServiceRef } from '../activation/types.js';
import type { SheetPlace } from './sheet.js';

/** Why a row of the sheet does not run, before the activation is asked: its fields, or its device again. */
export type SheetRowProblem =
  /** The activation's input grammar refused these fields (a name that is not a name, a bad client id). */
  | { code: 'invalid'; problems: { column: string; problem: string }[] }
  /** The row's device is an earlier row's (`firstRow`): one device is activated once. */
  | { code: 'duplicate-device'; firstRow: number };

/** One row as the check found it. Every kind but `plan` is a row in error. */
export type RowCheck = SheetPlace &
  (
    | { kind: 'problem'; request: ActivationRequest | null; problem: SheetRowProblem }
    /** The activation refuses it (device not found, unknown client id…), or reading UISP for it failed. */
    | { kind: 'refused'; request: ActivationRequest; error: ActivationError }
    /**
     * What the row's activation will do. `confirm`: the deletes and the move it needs confirmed, as the
     * single activation names them (null: none). `alreadyDone`: it writes nothing (already activated).
     */
    | { kind: 'plan'; request: ActivationRequest; plan: ActivationPlan; confirm: { deletes: ServiceRef[]; move: DeviceMove | null } | null; alreadyDone: boolean }
  );

export interface SheetTotals {
  rows: number;
  /** Rows with a plan that writes: `needConfirmation` of them delete or move something. */
  toRun: number;
  needConfirmation: number;
  alreadyDone: number;
  inError: number;
}

export interface SheetCheck {
  rows: RowCheck[];
  totals: SheetTotals;
}

/**
 * What the agent confirmed for the sheet's rows that delete or move: `shown`, exactly what the check
 * showed (those service ids, that site); `any` (CLI --yes); `none`: such rows stop before any write.
 */
export type SheetConfirmation = 'shown' | 'any' | 'none';

/** done: activated now; already-done: nothing needed writing; failed: UISP failed; refused: nothing was written. */
export type RowOutcome = 'done' | 'already-done' | 'failed' | 'refused';

/** A row's final event: its activation's result (`result`: absent for a row the sheet itself refused). */
export type RowEvent = SheetPlace & {
  type: 'row';
  outcome: RowOutcome;
  request: ActivationRequest | null;
  /** How many times the row was run (a throttled row runs again). 0: it never ran. */
  attempts: number;
} & ({ result: ActivationResult; problem?: never } | { result?: never; problem: SheetRowProblem });

export type SheetEvent =
  | (SheetPlace & { type: 'row-started'; request: ActivationRequest; attempt: number })
  /**
   * UISP throttled the row (429 or 503): the whole sheet slows down to `concurrency` rows at a time and
   * waits `waitMs` before the next row starts; this row runs again (attempt `attempt + 1`).
   */
  | (SheetPlace & { type: 'row-throttled'; attempt: number; status: number; waitMs: number; concurrency: number })
  | RowEvent
  | { type: 'sheet-done'; counts: Record<RowOutcome, number> };
