/**
 * SubOps' check on the operations it records in flight (./in-flight.ts): an HMAC, keyed from the bot's
 * secret (./record-seal.ts `botSecretOf`) with a label of its own, over the row's id, its thread (channel
 * and ts), when it started and its notice. The process that records an operation makes the check at that
 * moment; the sweep posts from a row only when it verifies. A row written into the store by anyone else,
 * or one of SubOps' moved to another thread or given another notice, never does.
 */
import { keyedMac } from './keyed-mac.js';

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

export function operationCheck(secret: string): OperationCheck {
  // A label of its own, so the check never doubles as the record seal, a request signature or a token.
  const mac = keyedMac(secret, 'subops operation check v1');
  const facts = ({ id, channel, threadTs, startedAt, notice }: CheckedOperation) => [id, channel, threadTs, startedAt, notice];
  return {
    make: (operation) => mac.make(facts(operation)),
    verifies: (operation, check) => mac.verifies(facts(operation), check),
  };
}
