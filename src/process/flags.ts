/**
 * Flag parsing on node:util parseArgs, with errors that name the flag (a UsageError: exit 2). Shared by
 * every process entry point (the CLI's commands, serve, demo).
 */
import { parseArgs } from 'node:util';
import { UsageError } from './io.js';

export type FlagSpec = Record<string, { type: 'string' | 'boolean'; short?: string }>;

export function parseFlags<T extends FlagSpec>(argv: string[], spec: T, positionals = 0) {
  try {
    const options = { ...spec, help: { type: 'boolean' as const, short: 'h' } };
    const parsed = parseArgs({ args: attachNegativeNumbers(argv, spec), options, strict: true, allowPositionals: positionals > 0 });
    if (parsed.positionals.length > positionals) throw new UsageError(`Unexpected argument "${parsed.positionals[positionals]}".`);
    return parsed;
  } catch (error) {
    if (error instanceof UsageError) throw error;
    // parseArgs messages already name the flag ("Unknown option '--x'", "Option '--y <value>' argument missing").
    throw new UsageError((error as Error).message.replace(/\n/g, ' '));
  }
}

/**
 * parseArgs takes the "-5" of `--amount -5` for an option of its own and calls the value ambiguous. A
 * value that starts with a dash and a digit is a (negative) number meant for the flag before it: it is
 * attached (`--amount=-5`) so it reaches the input grammar, which says what is wrong with it.
 */
function attachNegativeNumbers(argv: string[], spec: FlagSpec): string[] {
  const args: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') return [...args, ...argv.slice(i)];
    const next = argv[i + 1];
    if (arg.startsWith('--') && spec[arg.slice(2)]?.type === 'string' && next !== undefined && /^-[\d.,]/.test(next)) {
      args.push(`${arg}=${next}`);
      i++;
    } else args.push(arg);
  }
  return args;
}
