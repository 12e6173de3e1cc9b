/**
 * How writes converge on UISP, the only state every SubOps process (CLI runs, bot replicas) shares.
 * UISP has no unique key and no conditional write, so:
 *
 * - A write whose outcome is unknown (no answer, a reset, 5xx/429, a 2xx we could not read) is tried
 *   again, with backoff, but only after reading UISP: if the record is there, it is used, never created
 *   a second time.
 * - A created record is read back before anything is built on it or reported. When several records
 *   exist for the same thing (two processes raced), every process keeps the same one (`keep`: the
 *   oldest id where ids are in creation order). A call removes only records of its own (`isMine`: made
 *   by this call, or by an attempt of it whose answer was lost), never another process's: that one is
 *   removed by its own process, or, if that process gave up, shown to a person as a late duplicate.
 * - Every attempt of a delete (the first and each retry) goes out only after a read made for that
 *   attempt shows the record is still what was decided (`deleteChecked`). A refused delete (400, 409,
 *   422) is a fact, not a removal (`refused`); a record gone before this call sent anything was removed
 *   by someone else and is not claimed; one gone after a DELETE of this call whose answer was lost is
 *   this call's removal.
 * - Within one process, a keyed lock on resolved ids serializes runs on the same device or client, so the
 *   cross-process path is only needed across processes.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { UispError, UispNotFoundError, UispRejectedError, UispValidationError, UispWriteNotAppliedError } from './uisp/errors.js';

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

/** How to tell records of one kind apart, which to keep, and how to remove this call's own others. */
export interface ReconcileSpec<T> {
  /** Every record this write may already have produced, read fresh from UISP. */
  find(): Promise<T[]>;
  /** The record every process keeps among several: the same whichever process decides. */
  keep(records: T[]): T;
  /** Whether a record is this call's own, made by an attempt whose answer was lost (a marker says so). */
  isMine(record: T): boolean;
  /**
   * How to remove one of this call's own records that another's made redundant (read for each attempt,
   * then deleted only while it still is this call's and unused); absent: never removed.
   */
  removal?(record: T): CheckedDelete<unknown>;
  id(record: T): string | number;
}

export interface ConvergeSpec<T> extends ReconcileSpec<T> {
  create(): Promise<T>;
  /** The plan's read has just shown nothing exists: the first attempt may create without reading again. */
  freshlyRead?: boolean;
  /** Told of a created record as soon as UISP answers, before its read-back (work that needs only its id). */
  created?(record: T): void;
}

export interface Converged<T> {
  record: T;
  /** True when the kept record is the one this call created. */
  created: boolean;
  /** This call's own records it removed (its DELETE succeeded). */
  removed: T[];
  /** This call's own records UISP refused to remove, with UISP's reason: they are still there. */
  refused: { record: T; detail: string }[];
}

/** Finds or creates exactly one record, reconciling duplicates; see the module comment. */
export async function ensureOne<T>(spec: ConvergeSpec<T>, policy: WriteRetryPolicy): Promise<Converged<T>> {
  let mine: T | undefined;
  let attempts = 0;
  try {
    return await withRetries(policy, async (n) => {
      attempts = n;
      const found = n === 1 && spec.freshlyRead ? [] : await spec.find();
      if (found.length) return settle(spec, found, mine, policy);
      mine = await spec.create();
      spec.created?.(mine);
      const after = await spec.find();
      // A UISP that does not list a record right after creating it still has it.
      return settle(spec, after.some((r) => spec.id(r) === spec.id(mine!)) ? after : [...after, mine], mine, policy);
    });
  } catch (error) {
    if (error instanceof UispError && error.mayHaveApplied) {
      // The last write got no answer: read once more, so the report says what is there now.
      const found = await spec.find().catch(() => undefined);
      if (found?.length) return settle(spec, found, mine, policy);
      if (found && mine === undefined) throw new UispWriteNotAppliedError(error, attempts);
    }
    if (mine !== undefined) throw new UnconfirmedCreateError(mine, spec.id(mine), error);
    throw error;
  }
}

/**
 * A record was created, but what came after (its read-back, removing a duplicate) failed: it exists in
 * UISP, and the run's report must say so. A re-run finds it, and keeps it only if it is the one kept.
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

/** Keeps one of `records` (which must not be empty) and removes this call's own others. */
export function reconcile<T>(spec: ReconcileSpec<T>, records: T[], policy: WriteRetryPolicy): Promise<Converged<T>> {
  return settle(spec, records, undefined, policy);
}

async function settle<T>(spec: ReconcileSpec<T>, records: T[], mine: T | undefined, policy: WriteRetryPolicy): Promise<Converged<T>> {
  const record = spec.keep(records);
  const own = (r: T) => spec.isMine(r) || (mine !== undefined && spec.id(r) === spec.id(mine));
  const created = own(record);
  const removed: T[] = [];
  const refused: Converged<T>['refused'] = [];
  if (!spec.removal) return { record, created, removed, refused };
  for (const duplicate of records.filter((r) => spec.id(r) !== spec.id(record) && own(r))) {
    const outcome = await deleteChecked(policy, spec.removal(duplicate));
    if (outcome.kind === 'deleted') removed.push(duplicate);
    if (outcome.kind === 'refused') refused.push({ record: duplicate, detail: outcome.detail });
    if (outcome.kind === 'changed') refused.push({ record: duplicate, detail: outcome.why });
  }
  return { record, created, removed, refused };
}

/** One delete, as `deleteChecked` sends it: each attempt reads first, and deletes only what is unchanged. */
export interface CheckedDelete<T> {
  /**
   * Resolves while the run still holds what it locked (LockHold.confirm); called before each attempt's
   * read, so no store query lies between the read that decides the DELETE and the DELETE.
   */
  confirm?(): Promise<void>;
  /** The record as UISP has it now (null: gone), read for this attempt. */
  read(): Promise<T | null>;
  /** Why the record as read may not be deleted (it is no longer what was decided), or null when it may. */
  changed(now: T): string | null;
  remove(): Promise<void>;
}

export type DeleteOutcome<T> =
  /** This call removed it: its DELETE succeeded, or got no answer and the next read found it gone. */
  | { kind: 'deleted' }
  /** Gone before this call sent anything: someone else removed it, and the removal is not claimed. */
  | { kind: 'gone' }
  /** It is not what was decided any more (`why`): nothing was sent. */
  | { kind: 'changed'; now: T; why: string }
  /** UISP refused (400, 404 aside, 409, 422…): it is still there. `detail`: UISP's answer. */
  | { kind: 'refused'; detail: string };

/**
 * Deletes one record, each attempt (retries included) only after a read made for it shows the record
 * is still what was decided. Transient failures are retried as `withRetries` does; a DELETE that got no
 * answer is settled by the next read (gone: this call's removal; there: tried again, read first).
 */
export async function deleteChecked<T>(policy: WriteRetryPolicy, spec: CheckedDelete<T>): Promise<DeleteOutcome<T>> {
  /** A DELETE of this call went out and got no answer: it may have been applied. */
  let sent = false;
  let attempts = 0;
  const gone = (): DeleteOutcome<T> => (sent ? { kind: 'deleted' } : { kind: 'gone' });
  try {
    return await withRetries(policy, async (n) => {
      attempts = n;
      // Never the plan's read, even the first time: a confirmation's read may come from before this run
      // held its keys (a slow store, another run), and a person may have changed the record since.
      await spec.confirm?.();
      const now = await spec.read();
      if (now === null) return gone();
      const why = spec.changed(now);
      if (why !== null) return { kind: 'changed', now, why };
      try {
        await spec.remove();
        return { kind: 'deleted' };
      } catch (error) {
        // Between this read and the DELETE someone removed it (or this call's unanswered DELETE had).
        if (error instanceof UispNotFoundError) return gone();
        if (error instanceof UispRejectedError || error instanceof UispValidationError) return { kind: 'refused', detail: error.message };
        if (error instanceof UispError && error.mayHaveApplied) sent = true;
        throw error;
      }
    });
  } catch (error) {
    if (!sent || !(error instanceof UispError)) throw error;
    // No attempt is left and the last DELETE got no answer: one more read says whether it landed.
    const now = await spec.read().catch(() => undefined);
    if (now === null) return { kind: 'deleted' };
    if (now === undefined) throw error;
    throw new UispWriteNotAppliedError(error, attempts);
  }
}

/**
 * Per-process locks on resolved ids (device, client). Runs holding any common key run one after the
 * other; keys are taken in sorted order, so two runs never wait on each other.
 */
/** Turns on keys: in one process (KeyedLock), or across processes sharing a store (./shared-locks.ts). */
export interface Locks {
  /** Resolves once every key is held; `waited` says whether another run held one first. */
  acquire(keys: string[]): Promise<LockHold>;
}

export interface LockHold {
  release: () => void;
  /** Another run held a key first, or the store was slow or failed: what was read before may be stale. */
  waited: boolean;
  /**
   * Resolves while every key is still this run's, renewing each lease (a whole lease is ahead); rejects with
   * LeaseLostError (./errors.ts) once one may not be (its lease ran out, or the store cannot say). Called
   * right before each write that cannot be taken back, or before the read that decides a delete.
   */
  confirm: () => Promise<void>;
}


export class KeyedLock implements Locks {
  private readonly tails = new Map<string, Promise<void>>();

  /** Resolves once every key is held; `waited` says whether another run held one first. */
  async acquire(keys: string[]): Promise<LockHold> {
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
      // In one process nothing else can take a key while it is held.
      confirm: async () => undefined,
      release: () => {
        if (released) return;
        released = true;
        releases.forEach((release) => release());
      },
    };
  }
}

/** Whether `marker` is a whole word of a note: client 12's marker is not inside client 120's. */
export function noteHas(note: string | null | undefined, marker: string): boolean {
  return (note ?? '').split(/\s+/).includes(marker);
}

/** A note with SubOps' markers appended on their own line, after whatever a person wrote. */
export function withMarkers(note: string | undefined, ...markers: string[]): string {
  return [note, markers.join(' ')].filter(Boolean).join('\n');
}
