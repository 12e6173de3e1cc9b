import { terminalSafe } from './terminal.js';

/** What a CLI run may touch: the process I/O every entry point shares. */
export { EXIT, UsageError, untilSignal, writeLine, type ProcessIo as CliIo } from '../process/io.js';

/** Human output, one argument per line, with control characters escaped: lines may carry UISP text. */
export function writeText(stream: NodeJS.WritableStream, ...lines: string[]): void {
  for (const line of lines) stream.write(`${terminalSafe(line)}\n`);
}

/** Outputs whose reader has gone away. (process.stdout is never `destroyed`, even after EPIPE.) */
const closedOutputs = new WeakSet<NodeJS.WritableStream>();

/** True once the reader of this output has gone away (a closed pipe): long outputs stop early. */
export function outputClosed(stream: NodeJS.WritableStream): boolean {
  return closedOutputs.has(stream) || (stream as Partial<{ destroyed: boolean }>).destroyed === true;
}

/**
 * When the reader of the output goes away (`subops payments --csv | head -1`), writes fail with EPIPE.
 * That is how pipes end, not a failure: the error is absorbed (without a listener Node would crash with
 * a stack trace), `outputClosed` turns true, and the run ends quietly. Returns the first other write
 * error, to be reported once the command ends.
 */
export function guardOutput(stream: NodeJS.WritableStream): () => Error | undefined {
  let failure: Error | undefined;
  stream.on('error', (error: NodeJS.ErrnoException) => {
    closedOutputs.add(stream);
    if (error.code !== 'EPIPE') failure ??= error;
  });
  return () => failure;
}

/**
 * Lines that leave in one write (a page of 500 payments is one system call to the pipe, not 500).
 * Returns false when the output is full (wait with whenWritable).
 */
export function writeLines(stream: NodeJS.WritableStream, lines: string[]): boolean {
  return lines.length === 0 || stream.write(`${lines.join('\n')}\n`);
}

/**
 * Resolves once a stream whose buffer is full (write() returned false) can take more, or its reader has
 * gone away: a long export waits for a slow reader instead of buffering everything in memory.
 */
export function whenWritable(stream: NodeJS.WritableStream): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      for (const event of ['drain', 'error', 'close']) stream.off(event, done);
      resolve();
    };
    for (const event of ['drain', 'error', 'close']) stream.on(event, done);
  });
}
