/**
 * A payment history generated from a small spec instead of thousands of committed records: the file stays
 * readable, and the history always ends yesterday, so "payments in the last 30 days" shows something on
 * any day the demo runs. The same seed and day give the same payments.
 */
import { z } from 'zod';
import { seededRandom } from './prng.js';
import { uispDateTime } from './records.js';

export const PaymentHistorySchema = z.object({
  seed: z.number().int(),
  count: z.number().int().min(0).max(100_000),
  /** Payments fall on the `days` days before today (UTC), between 08:00 and 18:00. */
  days: z.number().int().positive(),
  /** Each payment's amount is one of these, drawn uniformly (repeat a value to weight it). */
  amounts: z.array(z.number().positive()).min(1),
  notes: z.array(z.string()).default(() => []),
  /** Share of payments that carry one of `notes`. */
  noteRate: z.number().min(0).max(1).default(0.1),
});
export type PaymentHistory = z.output<typeof PaymentHistorySchema>;

export interface GeneratedPayment {
  id: number;
  clientId: number;
  methodId: string;
  amount: number;
  createdDate: string;
  note: string | null;
}

const DAY_MS = 86_400_000;

export interface Payer {
  id: number;
  /** Epoch ms of the client's registration: no payment before it. */
  since: number;
}

/** `count` payments spread over the clients and methods, oldest first, with ids from `firstId`. */
export function generatePayments(
  history: PaymentHistory,
  payers: readonly Payer[],
  methodIds: readonly string[],
  firstId: number,
  now: Date,
): GeneratedPayment[] {
  const random = seededRandom(history.seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const registered = new RegisteredPayers(payers);
  const payments = Array.from({ length: history.count }, () => {
    const daysAgo = 1 + Math.floor(random() * history.days);
    const minute = 8 * 60 + Math.floor(random() * 10 * 60);
    const at = today - daysAgo * DAY_MS + minute * 60_000;
    // The payer is drawn among the clients registered by then (all of them when none was), in their order.
    const count = registered.countBy(at);
    const rank = Math.floor(random() * (count > 0 ? count : payers.length));
    return {
      at,
      payer: count > 0 ? { rank } : { index: rank },
      methodId: pick(methodIds),
      amount: pick(history.amounts),
      note: history.notes.length > 0 && random() < history.noteRate ? pick(history.notes) : null,
    };
  });
  registered.resolve(payments.map(({ at, payer }) => ({ at, payer })));
  payments.sort((a, b) => a.at - b.at);
  return payments.map(({ at, payer, ...payment }, index) => ({ id: firstId + index, createdDate: uispDateTime(new Date(at)), clientId: payers[payer.index!]!.id, ...payment }));
}

/**
 * "The rank-th client registered by `at`, in the clients' order", for every payment at once: the
 * payments sorted by time, the clients added in registration order to a Fenwick tree over their
 * positions, each rank found in log time. A filter per payment made 30,000 clients' history quadratic.
 */
class RegisteredPayers {
  private readonly since: number[];

  constructor(private readonly payers: readonly Payer[]) {
    this.since = payers.map((payer) => payer.since).sort((a, b) => a - b);
  }

  countBy(at: number): number {
    let low = 0;
    let high = this.since.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.since[middle]! <= at) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  /** Sets `index` on every payer drawn by rank. */
  resolve(draws: { at: number; payer: { rank?: number; index?: number } }[]): void {
    const size = this.payers.length;
    const tree = new Int32Array(size + 1);
    const byRegistration = this.payers.map((payer, index) => ({ since: payer.since, index })).sort((a, b) => a.since - b.since);
    let added = 0;
    for (const draw of draws.filter((d) => d.payer.rank !== undefined).sort((a, b) => a.at - b.at)) {
      for (; added < size && byRegistration[added]!.since <= draw.at; added++) {
        for (let i = byRegistration[added]!.index + 1; i <= size; i += i & -i) tree[i]!++;
      }
      let position = 0;
      let remaining = draw.payer.rank! + 1;
      for (let step = 1 << Math.floor(Math.log2(size)); step > 0; step >>= 1) {
        if (position + step <= size && tree[position + step]! < remaining) {
          position += step;
          remaining -= tree[position]!;
        }
      }
      draw.payer.index = position;
    }
  }
}
