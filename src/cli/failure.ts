/**
 * How a CLI run that threw ends: expected failures as one or a few lines with their exit code, never a
 * stack trace, and with `--json` one error object on stdout as well. Loaded by main.ts only when a
 * command failed, so a run that succeeds never loads it.
 */
import { ConfigError } from '../config.js';
import { InputError, LeaseLostError } from '../services/errors.js';
import { leaseLostSentence } from '../render/lease.js';
import { changeNotice, UispError } from '../services/uisp/errors.js';
import { FIELD_FLAGS } from './args.js';
import { EXIT, UsageError, writeLine, writeText, type CliIo } from './io.js';
import { errorJson, jsonLine, type ProblemJson } from './json.js';

/** Messages may carry UISP text, so they are escaped on the terminal (and exact in JSON). */
export function reportFailure(error: unknown, io: CliIo, help: string | undefined, json = false): number {
  const { code, problems } = classify(error, io, help);
  if (json) writeLine(io.stdout, jsonLine(io, errorJson(problems)));
  return code;
}

function classify(error: unknown, io: CliIo, help: string | undefined): { code: number; problems: [ProblemJson, ...ProblemJson[]] } {
  if (error instanceof UsageError) {
    // One line per problem (several flags can be wrong at once).
    writeText(io.stderr, ...`Error: ${error.message}`.split('\n'));
    if (help) writeLine(io.stderr, `\n${help.split('\n\n')[0]}`);
    return { code: EXIT.usage, problems: usageProblems(error) };
  }
  if (error instanceof ConfigError) {
    writeText(io.stderr, ...error.message.split('\n'));
    return { code: EXIT.usage, problems: nonEmpty(error.problems.map((problem) => ({ field: /^[A-Z][A-Z0-9_]*[A-Z0-9]\b/.exec(problem)?.[0] ?? null, message: problem })), error.message) };
  }
  if (error instanceof InputError) {
    const problem = { field: flagFor(error.field), message: `${error.message} Nothing was changed.` };
    writeText(io.stderr, `Error: ${problem.field}: ${problem.message}`);
    return { code: EXIT.usage, problems: [problem] };
  }
  if (error instanceof LeaseLostError) {
    const message = leaseLostSentence(error.reason);
    writeText(io.stderr, `Failed: ${message}`);
    return { code: EXIT.failed, problems: [{ field: null, message }] };
  }
  if (error instanceof UispError) {
    writeText(io.stderr, `Failed: ${error.message}`, changeNotice(error));
    return { code: EXIT.failed, problems: [{ field: null, message: `${error.message} ${changeNotice(error)}` }] };
  }
  const message = `Unexpected error: ${error instanceof Error ? error.message : String(error)}`;
  writeText(io.stderr, message);
  return { code: EXIT.failed, problems: [{ field: null, message }] };
}

/** "--amount: Amount must be …" lines (the CLI's own wording, src/cli/args.ts) back into their flag and problem. */
function usageProblems(error: UsageError): [ProblemJson, ...ProblemJson[]] {
  const problems = error.message.split('\n').map((line) => {
    const named = /^(--[\w-]+|<[^>]+>): (.+)$/.exec(line);
    return named ? { field: named[1]!, message: named[2]! } : { field: error.field ?? null, message: line };
  });
  return nonEmpty(problems, error.message);
}

const nonEmpty = (problems: ProblemJson[], message: string): [ProblemJson, ...ProblemJson[]] => (problems.length ? (problems as [ProblemJson, ...ProblemJson[]]) : [{ field: null, message }]);

const flagFor = (field: string) => FIELD_FLAGS[field] ?? field;
