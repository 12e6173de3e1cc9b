/**
 * An install sheet: each row one activation (../activation/workflow.ts), checked first and then run a
 * few at a time. The sheet adds only what a batch needs: the same device twice, the totals, and a pace
 * that follows UISP — a row throttled with 429 or 503 slows the whole sheet to one row at a time, waits
 * what UISP's Retry-After asks before the next row starts, and runs that row again (it converges, as any
 * re-run does). Rows on the same device or client never run at once: the activation's own locks make
 * the second wait for the first. Re-running a finished sheet says "already activated" row by row.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { asFailure } from '../activation/failure.js';
import { parseDeviceQuery } from '../activation/device-match.js';
import type { ActivationConfirmation, ActivationPlan, ActivationResult, ActivationStop } from '../activation/types.js';
import type { ActivationService, ReadDecision } from '../activation/workflow.js';
import type { SheetRow } from './sheet.js';
import type { RowCheck, RowEvent, RowOutcome, SheetCheck, SheetConfirmation, SheetEvent, SheetTotals } from './types.js';

/** How many times a throttled row runs before its failure counts: the first run and three more. */
export const THROTTLED_ROW_TRIES = 4;
/** The check reads this many times as many rows at once as the run runs (8 at the default): it writes nothing. */
const CHECK_PACE = 4;
/** The wait after a 429 or 503 that named none; and the longest Retry-After honoured. */
const THROTTLE_WAIT_MS = 1_000;
const MAX_THROTTLE_WAIT_MS = 60_000;

/** Activation failures where UISP or the run failed (the row failed); every other code is a refusal, nothing written. */
const FAILURES: ReadonlySet<ActivationStop['code']> = new Set(['uisp-error', 'service-changed', 'lease-lost', 'stopped']);

export interface SheetDeps {
  activation: ActivationService;
  /** Rows run (and read) at once (SHEET_CONCURRENCY). */
  concurrency: number;
  /** How the sheet waits for UISP's Retry-After (tests pass their own). */
  wait?: (ms: number) => Promise<void>;
}

/** A plan whose run writes nothing: the device is already on the client's site with an Active service. */
const writesNothing = (plan: ActivationPlan) =>
  plan.client.action === 'reuse' && plan.service.action === 'reuse' && plan.site.action === 'reuse' && plan.authorize.action === 'skip';

function deviceKey(text: string): string {
  const query = parseDeviceQuery(text);
  return query.kind === 'ip' ? `ip:${query.ip}` : query.kind === 'mac' ? `mac:${query.mac}` : `name:${query.name}`;
}

/** Runs `task` on each item, at most `limit` at once, keeping the items' order in the answers. */
async function mapLimited<T, R>(items: readonly T[], limit: number, task: (item: T) => Promise<R>): Promise<R[]> {
  const answers: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      answers[index] = await task(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return answers;
}

export class SheetService {
  private readonly wait: (ms: number) => Promise<void>;

  constructor(private readonly deps: SheetDeps) {
    this.wait = deps.wait ?? ((ms) => delay(ms));
  }

  /** Reads only: each row's plan as a dry run would make it, the rows in error and the totals. */
  async check(rows: readonly SheetRow[]): Promise<SheetCheck> {
    const firstRowOf = new Map<string, number>();
    const byText = rows.map((row): RowCheck | SheetRow & { ok: true } => {
      if (!row.ok) return { row: row.row, line: row.line, kind: 'problem', request: null, problem: { code: 'invalid', problems: row.problems } };
      const key = deviceKey(row.request.device);
      const first = firstRowOf.get(key);
      if (first !== undefined) return { row: row.row, line: row.line, kind: 'problem', request: row.request, problem: { code: 'duplicate-device', firstRow: first } };
      firstRowOf.set(key, row.row);
      return row;
    });
    // Reads only, so four times the rows' pace: the HTTP core already waits out a 429 on a read (Retry-After).
    const checked = await mapLimited(byText, CHECK_PACE * this.deps.concurrency, async (row) => ('kind' in row ? row : this.checkRow(row)));
    // The same device typed two ways (its IP and its name) is found only once both are read.
    const firstRowOfDevice = new Map<string, number>();
    const rowsChecked = checked.map((row): RowCheck => {
      if (row.kind !== 'plan') return row;
      const first = firstRowOfDevice.get(row.plan.device.id);
      if (first !== undefined) return { row: row.row, line: row.line, kind: 'problem', request: row.request, problem: { code: 'duplicate-device', firstRow: first } };
      firstRowOfDevice.set(row.plan.device.id, row.row);
      return row;
    });
    return { rows: rowsChecked, totals: totalsOf(rowsChecked) };
  }

  private async checkRow(row: SheetRow & { ok: true }): Promise<RowCheck> {
    const place = { row: row.row, line: row.line, request: row.request };
    let decision: ReadDecision;
    try {
      decision = await this.deps.activation.decide(row.request);
    } catch (error) {
      return { ...place, kind: 'refused', error: asFailure(error, true).error };
    }
    if (decision.kind === 'refused') return { ...place, kind: 'refused', error: decision.refusal };
    return { ...place, kind: 'plan', plan: decision.plan, confirm: decision.kind === 'needs-confirmation' ? decision.confirm : null, alreadyDone: writesNothing(decision.plan) };
  }

  /**
   * Runs the checked sheet: a `row-started` per run of a row, a `row-throttled` when UISP slowed it down,
   * one `row` event per row with its outcome, then `sheet-done`. Every row is read again
   * when it runs: what the check showed is only confirmed, never written blindly.
   */
  async *run(check: SheetCheck, confirmation: SheetConfirmation): AsyncGenerator<SheetEvent> {
    const events: SheetEvent[] = [];
    let wake: (() => void) | undefined;
    const emit = (event: SheetEvent) => {
      events.push(event);
      wake?.();
    };
    let finished = false;
    const driving = this.drive(check, confirmation, emit).finally(() => {
      finished = true;
      wake?.();
    });
    const counts: Record<RowOutcome, number> = { done: 0, 'already-done': 0, failed: 0, refused: 0 };
    for (;;) {
      const event = events.shift();
      if (event) {
        if (event.type === 'row') counts[event.outcome]++;
        yield event;
        continue;
      }
      if (finished) break;
      await new Promise<void>((resolve) => (wake = resolve));
      wake = undefined;
    }
    await driving;
    yield { type: 'sheet-done', counts };
  }

  /** The rows in sheet order, `concurrency` at a time until UISP throttles, then one at a time after its wait. */
  private async drive(check: SheetCheck, confirmation: SheetConfirmation, emit: (event: SheetEvent) => void): Promise<void> {
    const queue = check.rows.map((row) => ({ row, attempt: 1 }));
    const running = new Set<Promise<void>>();
    let limit = this.deps.concurrency;
    let paused: Promise<void> | undefined;
    const start = (item: (typeof queue)[number]) => this.runRow(item.row, item.attempt, confirmation, emit);
    while (queue.length || running.size) {
      while (queue.length && running.size < limit) {
        if (paused) {
          const waiting = paused;
          await waiting;
          if (paused === waiting) paused = undefined;
          continue;
        }
        const item = queue.shift()!;
        const task: Promise<void> = start(item).then((throttled) => {
          running.delete(task);
          if (!throttled) return;
          limit = 1;
          const waitMs = Math.min(throttled.retryAfterMs ?? THROTTLE_WAIT_MS, MAX_THROTTLE_WAIT_MS);
          emit({ type: 'row-throttled', row: item.row.row, line: item.row.line, attempt: item.attempt, status: throttled.status, waitMs, concurrency: limit });
          const before = paused;
          paused = Promise.all([before, this.wait(waitMs)]).then(() => undefined);
          queue.unshift({ row: item.row, attempt: item.attempt + 1 });
        });
        running.add(task);
      }
      if (running.size) await Promise.race(running);
      else if (paused) await paused;
    }
  }

  /** One run of a row; its throttle when it is to run again, else its final event is emitted. */
  private async runRow(row: RowCheck, attempt: number, confirmation: SheetConfirmation, emit: (event: SheetEvent) => void): Promise<{ status: number; retryAfterMs: number | null } | undefined> {
    const place = { row: row.row, line: row.line };
    if (row.kind === 'problem') {
      emit({ type: 'row', ...place, outcome: 'refused', request: row.request, attempts: 0, problem: row.problem });
      return undefined;
    }
    emit({ type: 'row-started', ...place, request: row.request, attempt });
    let result: ActivationResult | undefined;
    // Read again, as a single activation run is (a row the check refused too: UISP may have changed, and its refusal is audited as one).
    for await (const event of this.deps.activation.run(row.request, { confirm: confirmOf(row, confirmation) })) if (event.type === 'result') result = event;
    // The activation always ends with exactly one result.
    if (!result) throw new Error('the activation ended without a result');
    if (result.outcome === 'failed' && result.error.code === 'uisp-error' && result.error.problem === 'request' && result.error.throttled && attempt < THROTTLED_ROW_TRIES) return result.error.throttled;
    emit({ type: 'row', ...place, outcome: outcomeOf(result), request: row.request, attempts: attempt, result } satisfies RowEvent);
    return undefined;
  }
}

/**
 * What Continue runs of a sheet some of whose rows ended before its process stopped: every row that did not
 * end, and those that failed (they run again, reading UISP first, as a re-run does). Rows that ended done,
 * already done or refused stay as they ended.
 */
export function restOf(check: SheetCheck, ended: ReadonlyMap<number, RowOutcome>): SheetCheck {
  const rows = check.rows.filter((row) => {
    const outcome = ended.get(row.row);
    return outcome === undefined || outcome === 'failed';
  });
  return { rows, totals: totalsOf(rows) };
}

function confirmOf(row: RowCheck, confirmation: SheetConfirmation): ActivationConfirmation {
  if (confirmation === 'any') return { deletes: 'any', moveFrom: 'any' };
  if (confirmation === 'none' || row.kind !== 'plan' || !row.confirm) return {};
  const { deletes, move } = row.confirm;
  return { deletes: deletes.map((s) => s.id), ...(move && { moveFrom: move.site.id }) };
}

function outcomeOf(result: ActivationResult): RowOutcome {
  if (result.outcome === 'activated') return 'done';
  if (result.outcome === 'already-activated') return 'already-done';
  return result.outcome === 'failed' && FAILURES.has(result.error.code) ? 'failed' : 'refused';
}

function totalsOf(rows: readonly RowCheck[]): SheetTotals {
  const plans = rows.filter((row) => row.kind === 'plan');
  return {
    rows: rows.length,
    toRun: plans.filter((row) => !row.alreadyDone).length,
    needConfirmation: plans.filter((row) => row.confirm).length,
    alreadyDone: plans.filter((row) => row.alreadyDone).length,
    inError: rows.length - plans.length,
  };
}
