/**
 * How writes converge on UISP, the only state every SubOps process (CLI runs, bot replicas) shares:
 *
 * - A write whose outcome is unknown (no answer, a reset, 5xx/429, a 2xx we could not read) is tried
 *   again, with backoff, but only after reading UISP: if the record is there, it is used, never created
 *   a second time.
 * - A created record is read back. When several records exist for the same thing (two processes raced,
 *   or a lost write landed late), the oldest is kept and the others SubOps created are removed, so every
 *   process ends on the same record. Nobody builds on a record before it has been read back as the one
 *   to keep, so removing the others is safe.
 * - Within one process, a keyed lock on resolved ids serializes runs on the same device or client, so the
 *   cross-process path is only needed across processes.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { UispError, UispNotFoundError, UispWriteNotAppliedError } from './uisp/errors.js';

export interface WriteRetryPolicy {
  /** Extra attempts after a transient failure (UISP_WRITE_RETRIES). */
  retries: number;
  /** First delay; doubles each attempt (UISP_WRITE_BACKOFF_MS). */
  backoffMs: number;
  /** No attempt starts later than this after the first (UISP_RETRY_WINDOW_MS). */
  windowMs: number;
}

/** True when trying again, after reading UISP, may succeed: no answer, 5xx/429, or a write's unreadable 2xx. */
export function isTransient(error: unknown): boolean {
  return error instanceof UispError && (error.kind === 'unavailable' || (error.kind === 'bad_response' && error.method !== 'GET'));
}

/**
 * Runs `attempt` until it succeeds, a failure is not transient, the retries are spent or the window
 * has passed. `attempt` receives its number (1 first) so later attempts can read before writing.
 */
export async function withRetries<T>(policy: WriteRetryPolicy, attempt: (n: number) => Promise<T>): Promise<T> {
  const started = Date.now();
  for (let n = 1; ; n++) {
    try {
      return await attempt(n);
    } catch (error) {
      const wait = policy.backoffMs * 2 ** (n - 1);
      if (!isTransient(error) || n > policy.retries || Date.now() - started + wait > policy.windowMs) throw error;
      await delay(wait);
    }
  }
}

/** How to tell records of one kind apart, which to keep, and how to remove the others. */
export interface ReconcileSpec<T> {
  /** Every record this write may already have produced, read fresh from UISP. */
  find(): Promise<T[]>;
  /** The record every process keeps among several: the oldest (or one already in use). */
  keep(records: T[]): T;
  /** Whether a record other than the kept one is SubOps' own duplicate, safe to remove. */
  isDuplicate(record: T): boolean;
  /** Removes a duplicate; one already gone (404, another process removed it) counts as removed. */
  remove(record: T): Promise<void>;
  id(record: T): string | number;
}

export interface ConvergeSpec<T> extends ReconcileSpec<T> {
  create(): Promise<T>;
  /** The plan's read has just shown nothing exists: the first attempt may create without reading again. */
  freshlyRead?: boolean;
  /**
   * False when the caller holds the activation lease (activation/lease.ts): nobody else creates this
   * record meanwhile, so a record created at the first attempt is the one, without a read-back. After
   * a failed attempt (which may land late) it reads first and back as usual.
   */
  readBack?: boolean;
  /** Whether a record is this call's own, created by an attempt whose answer was lost (a marker says so). */
  isMine?(record: T): boolean;
}

export interface Converged<T> {
  record: T;
  /** True when the kept record is the one this call created. */
  created: boolean;
  /** Duplicates this call removed (its own, or leftovers of lost writes); not those another process removed first. */
  removed: T[];
}

/** Finds or creates exactly one record, reconciling duplicates; see the module comment. */
export async function ensureOne<T>(spec: ConvergeSpec<T>, policy: WriteRetryPolicy): Promise<Converged<T>> {
  let mine: T | undefined;
  let attempts = 0;
  try {
    return await withRetries(policy, async (n) => {
      attempts = n;
      const found = n === 1 && spec.freshlyRead ? [] : await spec.find();
      if (found.length) return settle(spec, found, mine ?? found.find((r) => spec.isMine?.(r)), policy);
      mine = await spec.create();
      // Without a lease, or after an attempt that may have landed (late), the read-back finds the duplicates.
      if (spec.readBack === false && n === 1) return { record: mine, created: true, removed: [] };
      const after = await spec.find();
      // A UISP that does not list a record right after creating it still has it.
      return settle(spec, after.some((r) => spec.id(r) === spec.id(mine!)) ? after : [...after, mine], mine, policy);
    });
  } catch (error) {
    if (error instanceof UispError && error.mayHaveApplied) {
      // The last write got no answer: read once more, so the report says what is really there.
      const found = await spec.find().catch(() => undefined);
      if (found?.length) return settle(spec, found, mine ?? found.find((r) => spec.isMine?.(r)), policy);
      if (found && mine === undefined) throw new UispWriteNotAppliedError(error, attempts);
    }
    if (mine !== undefined) throw new UnconfirmedCreateError(mine, spec.id(mine), error);
    throw error;
  }
}

/**
 * A record was created, but what came after (its read-back, removing a duplicate) failed: it exists in
 * UISP, and the run's report must say so. A re-run finds it, and keeps it only if it is the oldest.
 */
export class UnconfirmedCreateError<T = unknown> extends Error {
  override readonly name = 'UnconfirmedCreateError';
  constructor(
    readonly record: T,
    readonly id: string | number,
    readonly failure: unknown,
  ) {
    super(failure instanceof Error ? failure.message : String(failure), { cause: failure });
  }
}

/** Keeps one of `records` (which must not be empty) and removes SubOps' duplicates of it. */
export function reconcile<T>(spec: ReconcileSpec<T>, records: T[], policy: WriteRetryPolicy): Promise<Converged<T>> {
  return settle(spec, records, undefined, policy);
}

async function settle<T>(spec: ReconcileSpec<T>, records: T[], mine: T | undefined, policy: WriteRetryPolicy): Promise<Converged<T>> {
  const record = spec.keep(records);
  const duplicates = records.filter((r) => spec.id(r) !== spec.id(record) && (spec.isDuplicate(r) || (mine !== undefined && spec.id(r) === spec.id(mine))));
  const removed: T[] = [];
  for (const duplicate of duplicates) if (await withRetries(policy, () => ignoreNotFound(spec.remove(duplicate)))) removed.push(duplicate);
  return { record, created: mine !== undefined && spec.id(record) === spec.id(mine), removed };
}

/** Runs a delete; false when the record was already gone (404), which is the outcome wanted anyway. */
export async function ignoreNotFound(write: Promise<void>): Promise<boolean> {
  try {
    await write;
    return true;
  } catch (error) {
    if (!(error instanceof UispNotFoundError)) throw error;
    return false;
  }
}

/**
 * Per-process locks on resolved ids (device, client). Runs holding any common key run one after the
 * other; keys are taken in sorted order, so two runs never wait on each other.
 */
export class KeyedLock {
  private readonly tails = new Map<string, Promise<void>>();

  /** Resolves once every key is held; `waited` says whether another run held one first. */
  async acquire(keys: string[]): Promise<{ release: () => void; waited: boolean }> {
    const sorted = [...new Set(keys)].sort();
    const releases: (() => void)[] = [];
    let waited = false;
    for (const key of sorted) {
      const previous = this.tails.get(key);
      let release!: () => void;
      const done = new Promise<void>((resolve) => (release = resolve));
      const tail = (previous ?? Promise.resolve()).then(() => done);
      this.tails.set(key, tail);
      releases.push(() => {
        release();
        // The last holder cleans up, so idle keys do not accumulate.
        void tail.then(() => this.tails.get(key) === tail && this.tails.delete(key));
      });
      if (previous) {
        waited = true;
        await previous;
      }
    }
    let released = false;
    return {
      waited,
      release: () => {
        if (released) return;
        released = true;
        releases.forEach((release) => release());
      },
    };
  }
}

let lastStamp = 0;
/**
 * Date.now(), but strictly increasing within this process: two records stamped in the same millisecond
 * by two runs still have an order, so every run agrees on which is the oldest.
 */
export function creationStamp(): number {
  lastStamp = Math.max(Date.now(), lastStamp + 1);
  return lastStamp;
}

/** Whether `marker` is a whole word of a note: client 12's marker is not inside client 120's. */
export function noteHas(note: string | null | undefined, marker: string): boolean {
  return (note ?? '').split(/\s+/).includes(marker);
}

/** A note with SubOps' markers appended on their own line, after whatever a person wrote. */
export function withMarkers(note: string | undefined, ...markers: string[]): string {
  return [note, markers.join(' ')].filter(Boolean).join('\n');
}
