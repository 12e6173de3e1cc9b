/**
 * SubOps' check on the operations it records in flight (./in-flight.ts): an HMAC, keyed from the bot's
 * secret (./record-seal.ts `botSecretOf`) with a label of its own, over the row's id, its thread (channel
 * and ts), when it started and its notice. The process that records an operation makes the check at that
 * moment; the sweep posts from a row only when it verifies. A row written into the store by anyone else,
 * or one of SubOps' moved to another thread or given another notice, never does.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** What the check covers: everything a row says about where and what is posted. */
export interface CheckedOperation {
  id: string;
  channel: string;
  threadTs: string;
  startedAt: number;
  notice: unknown;
}

export interface OperationCheck {
  make(operation: CheckedOperation): string;
  verifies(operation: CheckedOperation, check: string): boolean;
}

/** Objects as sorted [key, value] pairs: the order a store hands keys back in (PostgreSQL's jsonb reorders them) does not matter. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value !== null && typeof value === 'object') {
    const object = value as Record<string, unknown>;
    return Object.keys(object)
      .filter((key) => object[key] !== undefined)
      .sort()
      .map((key) => [key, canonical(object[key])]);
  }
  return value;
}

export function operationCheck(secret: string): OperationCheck {
  // A key of its own, so the check never doubles as the record seal, a request signature or a token.
  const key = createHmac('sha256', secret).update('subops operation check v1').digest();
  const mac = ({ id, channel, threadTs, startedAt, notice }: CheckedOperation) => createHmac('sha256', key).update(JSON.stringify(canonical([id, channel, threadTs, startedAt, notice]))).digest();
  return {
    make: (operation) => mac(operation).toString('base64url'),
    verifies(operation, check) {
      const expected = mac(operation);
      const given = Buffer.from(check, 'base64url');
      return given.length === expected.length && timingSafeEqual(given, expected);
    },
  };
}
