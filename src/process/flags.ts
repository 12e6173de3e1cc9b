/**
 * Flag parsing on node:util parseArgs, with errors that name the flag (a UsageError: exit 2) and, for a
 * mistyped one, the flag it most likely meant. Shared by every process entry point (the CLI's commands,
 * serve, demo).
 */
import { parseArgs } from 'node:util';
import { UsageError } from './io.js';
import { closest } from './suggest.js';

export type FlagSpec = Record<string, { type: 'string' | 'boolean'; short?: string }>;

/** `--yes` (`-y`): confirms what a writing command would otherwise ask about on a terminal. */
export const YES_FLAG = { yes: { type: 'boolean', short: 'y' } } as const satisfies FlagSpec;

export function parseFlags<T extends FlagSpec>(argv: string[], spec: T, positionals = 0) {
  const options = { ...spec, help: { type: 'boolean' as const, short: 'h' } };
  try {
    const parsed = parseArgs({ args: attachNegativeNumbers(argv, spec), options, strict: true, allowPositionals: positionals > 0 });
    if (parsed.positionals.length > positionals) throw new UsageError(`Unexpected argument "${parsed.positionals[positionals]}".`);
    return parsed;
  } catch (error) {
    if (error instanceof UsageError) throw error;
    const { code, message } = error as Error & { code?: string };
    // parseArgs messages already name the flag ("Unknown option '--x'", "Option '--y <value>' argument missing").
    const flag = /'(-{1,2}[^'\s=<]+)/.exec(message)?.[1];
    if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && flag) throw unknownFlag(flag, Object.keys(options));
    throw new UsageError(message.replace(/\n/g, ' '), flag);
  }
}

function unknownFlag(flag: string, known: string[]): UsageError {
  const meant = flag.startsWith('--') ? closest(flag.slice(2), known) : undefined;
  return new UsageError(`Unknown option '${flag}'.${meant ? ` Did you mean --${meant}?` : ''}`, flag);
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
