/**
 * Runs the `subops` CLI in-process as a person at a terminal would: `io.terminal` says which streams
 * are terminals (the same decision process.stdin.isTTY… makes for real), and every y/N question the
 * CLI asks on stderr is answered on stdin as soon as it is asked — never after a pause.
 */
import { PassThrough } from 'node:stream';
import { main } from '../../src/cli/main.js';
import type { StreamName } from '../../src/process/io.js';

export interface TerminalRun {
  code: number;
  out: string;
  err: string;
  /** Each question as asked, e.g. "Delete Quoted service #102 and activate? [y/N]". */
  questions: string[];
}

export interface TerminalOptions {
  /** Which streams are terminals; all three by default. */
  terminal?: Partial<Record<StreamName, boolean>>;
  /** The answer to the n-th question (0-based); undefined ends stdin (Ctrl-D). May change UISP first. */
  answer?: (question: string, index: number) => string | undefined;
}

export async function runAtTerminal(argv: string[], env: Record<string, string>, { terminal = { stdin: true, stdout: true, stderr: true }, answer = () => undefined }: TerminalOptions = {}): Promise<TerminalRun> {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  const questions: string[] = [];
  stdout.on('data', (chunk) => (out += chunk));
  stderr.on('data', (chunk) => {
    err += chunk;
    // A question ends with "[y/N] " and waits on the same line.
    const asked = err.split('[y/N] ').length - 1;
    while (questions.length < asked) {
      const before = err.split('[y/N] ').slice(0, questions.length + 1).join('[y/N] ');
      const question = `${before.slice(before.lastIndexOf('\n') + 1)}[y/N]`;
      questions.push(question);
      const reply = answer(question, questions.length - 1);
      if (reply === undefined) stdin.end();
      else stdin.write(`${reply}\n`);
    }
  });
  const code = await main(argv, { env: { ISP_TIMEZONE: 'America/Guyana', ...env }, stdout, stderr, stdin, terminal });
  return { code, out, err, questions };
}
