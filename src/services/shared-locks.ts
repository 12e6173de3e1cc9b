/**
 * Runs on the same device or client take turns across processes when they share a store (the embedded
 * one: the bot and CLI runs on one machine; DATABASE_URL: replicas and CLI runs anywhere), as they do
 * inside one process. A key is held in this process first
 * (KeyedLock), then in the store as a claim on a lease (`lock:<key>`, keys in sorted order, so two runs
 * never hold one each of the other's). A key another process holds is asked for again after a wait that
 * grows from `firstWaitMs` to `maxWaitMs`; a process that died holding one frees it when its lease runs
 * out, and a row no SubOps process wrote (a lease longer than the hold, a lock remembered as done) counts
 * as run out at once: the store takes it over and warns (src/store/claims.ts `isForeign`). A store that does not answer leaves the run to this process's lock: what UISP says is the backstop
 * (every write converges, src/services/converge.ts).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Claim, ClaimLedger } from '../store/index.js';
import { KeyedLock, type LockHold, type Locks } from './converge.js';
import { LeaseLostError } from './errors.js';

export interface SharedLockOptions {
  claims: ClaimLedger;
  /** How long a held key stays held if its process stops renewing it. Default 2 minutes. */
  holdMs?: number;
  /** Waits before asking again for a key another process holds (tests pass one they release themselves). */
  wait?: (attempt: number) => Promise<void>;
  /** Told when the store did not answer (the run then goes on under this process's lock alone). */
  onStoreError?: (error: unknown) => void;
  /**
   * Renews a run's leases every `everyMs` while it holds them; returns how to stop. Default a timer
   * (tests pass one they tick themselves).
   */
  renewals?: (everyMs: number, renew: () => Promise<void>) => () => void;
  /** The clock the store's answer time is judged on (tests move it). */
  now?: () => number;
  /** A store slower than this to hand over the keys makes the run read UISP again (default 1 s). */
  staleAfterMs?: number;
}

const backoff = (attempt: number) => sleep(Math.min(50 * 2 ** attempt, 1_000));

/** Renews on a timer every `everyMs` until stopped; the timer never keeps the process alive. */
export const timerRenewals = (everyMs: number, renew: () => Promise<void>): (() => void) => {
  const timer = setInterval(() => void renew(), everyMs);
  timer.unref();
  return () => clearInterval(timer);
};

/**
 * Keeps a won claim's lease renewed, three times a lease, until stopped: a live process never lets it
 * run out. `lost` turns true once a renewal finds it gone; a store that does not answer a renewal says
 * nothing either way (the check before the next irreversible write asks again).
 */
export function keepRenewed(claim: Claim, holdMs: number, renewals = timerRenewals): { stop: () => void; readonly lost: boolean } {
  let lost = false;
  const stop = renewals(Math.floor(holdMs / 3), async () => {
    if (!(await claim.renew(holdMs).catch(() => true))) lost = true;
  });
  return {
    stop,
    get lost() {
      return lost;
    },
  };
}

export class SharedLocks implements Locks {
  private readonly local = new KeyedLock();
  /** Releases sent to the store and not answered yet: a process waits for them before it closes its store. */
  private readonly releasing = new Set<Promise<void>>();

  constructor(private readonly options: SharedLockOptions) {}

  async acquire(keys: string[]): Promise<LockHold> {
    const local = await this.local.acquire(keys);
    const { claims, holdMs = 120_000, wait = backoff, renewals = timerRenewals, now = Date.now, staleAfterMs = 1_000 } = this.options;
    const sorted = [...new Set(keys)].sort();
    const held: Claim[] = [];
    const started = now();
    let waited = local.waited;
    try {
      for (const key of sorted) {
        for (let attempt = 0; ; attempt++) {
          const outcome = await claims.claim(`lock:${key}`, { holdMs, heldOnly: true });
          if (outcome.won) {
            held.push(outcome.claim);
            break;
          }
          waited = true;
          await wait(attempt);
        }
      }
    } catch (error) {
      // What was read before may have changed while the store did not answer: the run reads UISP again.
      waited = true;
      this.options.onStoreError?.(error);
    }
    // A slow store is a wait too: UISP may have changed meanwhile.
    if (now() - started > staleAfterMs) waited = true;
    const renewing = held.map((claim) => keepRenewed(claim, holdMs, renewals));
    let lost = false;
    return {
      waited,
      confirm: async () => {
        if (lost || renewing.some((renewal) => renewal.lost)) throw new LeaseLostError(sorted, 'lost');
        for (const claim of held) {
          let mine: boolean;
          try {
            // Renewed, not only checked: the run's next read and write have a whole lease ahead of them.
            mine = await claim.renew(holdMs);
          } catch (error) {
            throw new LeaseLostError(sorted, 'store', { cause: error });
          }
          if (!mine) {
            lost = true;
            throw new LeaseLostError(sorted, 'lost');
          }
        }
      },
      release: () => {
        renewing.forEach((renewal) => renewal.stop());
        for (const claim of held) {
          const released = claim.release().catch(() => undefined);
          this.releasing.add(released);
          void released.finally(() => this.releasing.delete(released));
        }
        local.release();
      },
    };
  }

  /** Resolves once every release sent has been answered (or failed): then closing the store loses none. */
  async settled(): Promise<void> {
    await Promise.all(this.releasing);
  }
}
