/**
 * A problem found before the command runs (the process entry's `.env`): the command does not start.
 * `serve` runs under a supervisor, so it says so as it says every fatal problem (src/serve.ts): one fatal
 * JSON log line on stdout, exit 78 (a restart does not fix it). Any other command: one line on stderr,
 * exit 2, as for bad input.
 */
import { EXIT, SERVE_EXIT, writeLine } from './io.js';

/** Whether the command line runs `serve` (its first word that is not an option). */
export const runsServe = (argv: readonly string[]): boolean => argv.find((arg) => !arg.startsWith('-')) === 'serve';

export async function refuseToStart(argv: readonly string[], out: { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream }, problem: string): Promise<number> {
  if (!runsServe(argv)) {
    writeLine(out.stderr, problem);
    return EXIT.usage;
  }
  // Loaded only here: a command that starts never loads pino before it needs it.
  const { createLogger } = await import('../logging.js');
  createLogger('info', out.stdout).fatal({ exitCode: SERVE_EXIT.cannotStart }, problem);
  return SERVE_EXIT.cannotStart;
}
