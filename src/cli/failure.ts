/**
 * How a CLI run that threw ends: expected failures as one or a few lines with their exit code, never a
 * stack trace. Loaded by main.ts only when a command failed, so a run that succeeds never loads it.
 */
import { ConfigError } from '../config.js';
import { InputError } from '../services/errors.js';
import { changeNotice, UispError } from '../services/uisp/errors.js';
import { FIELD_FLAGS } from './args.js';
import { EXIT, UsageError, writeLine, writeText, type CliIo } from './io.js';

/** Messages may carry UISP text, so they are escaped. */
export function reportFailure(error: unknown, io: CliIo, help: string | undefined): number {
  if (error instanceof UsageError) {
    // One line per problem (several flags can be wrong at once).
    writeText(io.stderr, ...`Error: ${error.message}`.split('\n'));
    if (help) writeLine(io.stderr, `\n${help.split('\n\n')[0]}`);
    return EXIT.usage;
  }
  if (error instanceof ConfigError) {
    writeText(io.stderr, ...error.message.split('\n'));
    return EXIT.usage;
  }
  if (error instanceof InputError) {
    writeText(io.stderr, `Error: ${flagFor(error.field)}: ${error.message} Nothing was changed.`);
    return EXIT.usage;
  }
  if (error instanceof UispError) {
    writeText(io.stderr, `Failed: ${error.message}`, changeNotice(error));
    return EXIT.failed;
  }
  writeText(io.stderr, `Unexpected error: ${error instanceof Error ? error.message : String(error)}`);
  return EXIT.failed;
}

const flagFor = (field: string) => FIELD_FLAGS[field] ?? field;
