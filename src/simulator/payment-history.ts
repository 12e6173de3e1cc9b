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
  const payments = Array.from({ length: history.count }, () => {
    const daysAgo = 1 + Math.floor(random() * history.days);
    const minute = 8 * 60 + Math.floor(random() * 10 * 60);
    const at = today - daysAgo * DAY_MS + minute * 60_000;
    const registered = payers.filter((payer) => payer.since <= at);
    return {
      at,
      clientId: pick(registered.length > 0 ? registered : payers).id,
      methodId: pick(methodIds),
      amount: pick(history.amounts),
      note: history.notes.length > 0 && random() < history.noteRate ? pick(history.notes) : null,
    };
  });
  payments.sort((a, b) => a.at - b.at);
  return payments.map(({ at, ...payment }, index) => ({ id: firstId + index, createdDate: uispDateTime(new Date(at)), ...payment }));
}
