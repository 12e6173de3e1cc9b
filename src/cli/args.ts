/** Flag parsing on node:util parseArgs, with errors that name the flag. */
import { parseArgs } from 'node:util';
import { UsageError } from './io.js';

export type FlagSpec = Record<string, { type: 'string' | 'boolean'; short?: string }>;

export function parseFlags<T extends FlagSpec>(argv: string[], spec: T, positionals = 0) {
  try {
    const parsed = parseArgs({ args: argv, options: { ...spec, help: { type: 'boolean', short: 'h' } }, strict: true, allowPositionals: positionals > 0 });
    if (parsed.positionals.length > positionals) throw new UsageError(`Unexpected argument "${parsed.positionals[positionals]}".`);
    return parsed;
  } catch (error) {
    if (error instanceof UsageError) throw error;
    // parseArgs messages already name the flag ("Unknown option '--x'", "Option '--y <value>' argument missing").
    throw new UsageError((error as Error).message.split('\n')[0]);
  }
}

export function positiveInt(flag: string, value: string | undefined, required: true): number;
export function positiveInt(flag: string, value: string | undefined, required?: false): number | undefined;
export function positiveInt(flag: string, value: string | undefined, required = false): number | undefined {
  if (value === undefined || value.trim() === '') {
    if (required) throw new UsageError(`${flag} is required.`);
    return undefined;
  }
  const number = Number(value);
  if (!Number.isInteger(number) || number <= 0) throw new UsageError(`${flag} must be a positive whole number (got "${value}").`);
  return number;
}
