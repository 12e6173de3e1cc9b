/**
 * Asking the person at the terminal: a question on stderr (stdout stays the command's output), one
 * line read from stdin. Callers ask only when `canAsk(io)`: anywhere else a confirmation is a flag
 * (`--yes`), never a wait for input that cannot come.
 */
import type { ProcessIo } from './io.js';

/** One line typed on stdin (without its line break), or undefined when stdin ends first (Ctrl-D). */
export function readLine(input: NodeJS.ReadableStream): Promise<string | undefined> {
  return new Promise((resolve) => {
    let typed = '';
    const finish = (line: string | undefined) => {
      input.off('data', onData);
      input.off('end', onEnd);
      input.off('error', onEnd);
      // Stop reading, so the process can end once the command is done.
      input.pause();
      resolve(line);
    };
    const onData = (chunk: Buffer | string) => {
      typed += chunk.toString();
      const end = typed.indexOf('\n');
      if (end >= 0) finish(typed.slice(0, end).replace(/\r$/, ''));
    };
    const onEnd = () => finish(typed === '' ? undefined : typed);
    input.on('data', onData);
    input.once('end', onEnd);
    input.once('error', onEnd);
    input.resume();
  });
}

/** Asks a yes/no question, No by default: true only for y or yes (any case). */
export async function confirm(io: Pick<ProcessIo, 'stdin' | 'stderr'>, question: string): Promise<boolean> {
  io.stderr.write(`${question} [y/N] `);
  const answer = await readLine(io.stdin);
  if (answer === undefined) io.stderr.write('\n');
  return /^\s*y(es)?\s*$/i.test(answer ?? '');
}
