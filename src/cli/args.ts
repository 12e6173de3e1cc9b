/**
 * Flag parsing on node:util parseArgs, with errors that name the flag. Values are read by the services'
 * input grammar (src/services/input/grammar.ts), the same rules as the Slack forms; a bad value is a
 * usage error (exit 2) raised before anything connects.
 */
import type { Read } from '../services/input/grammar.js';
import { UsageError } from './io.js';

export { parseFlags, type FlagSpec } from '../process/flags.js';

/** The flag that carries each field the services name in their problems. */
export const FIELD_FLAGS: Record<string, string> = { service: '--service-id', client: '--client-id', reason: '--reason', method: '--method', amount: '--amount', note: '--note', key: '--key', from: '--from', to: '--to' };

/** A flag's value as the input grammar read it; a problem becomes a usage error naming the flag. */
export function flagValue<T>(flag: string, read: Read<T>): T {
  if (!read.ok) throw new UsageError(`${flag}: ${read.problem}`);
  return read.value;
}

/** Problems keyed by field, as one usage error with a line per flag ("--amount: Amount must be …"). */
export function flagProblems(problems: Partial<Record<string, string>>, flagOf: Record<string, string> = FIELD_FLAGS): UsageError {
  return new UsageError(
    Object.entries(problems)
      .map(([field, problem]) => `${flagOf[field] ?? field}: ${problem}`)
      .join('\n'),
  );
}
