/**
 * Progress of long work on a terminal: one status line on stderr (pages read, rows written, elapsed),
 * redrawn in place with \r at most every `intervalMs`, and first drawn only once the work has taken that
 * long, so a quick command shows nothing. When it was shown, the last state stays on screen as a line of
 * its own. Nothing at all when stderr is not a terminal (a pipe, a file, cron, CI), and nothing while
 * stdout is the same terminal and the command streams rows to it (the rows are the progress there).
 */
import { performance } from 'node:perf_hooks';
import { isTerminal } from '../process/io.js';
import type { CliIo } from './io.js';
import { terminalSafe } from './terminal.js';

/** How often the line is redrawn at most, and how long work runs before it is first drawn. */
export const PROGRESS_INTERVAL_MS = 500;

/** A test seam: a CLI io may carry the clock progress reads (milliseconds); default performance.now. */
export type ClockedIo = CliIo & { now?: () => number };

export interface ProgressOptions {
  /** Whether the stream is a terminal (default: its own isTTY). */
  isTTY?: boolean;
  /** Milliseconds; default performance.now. */
  now?: () => number;
  intervalMs?: number;
}

export interface Progress {
  /** The work's state now; `describe` is called (and the line drawn) only when an update is due. */
  update(describe: () => string): void;
  /** The work ended: the last state stays as a line of its own when the line was shown; else nothing. */
  done(describe: () => string): void;
  /** Elapsed time as shown, e.g. "3.2 s". */
  elapsed(): string;
}

/**
 * The progress line for a command run with `io` (which streams are terminals: `io.terminal`, else their
 * isTTY). `streamsToStdout`: the command writes its rows to stdout as it goes (--csv, --json), so a
 * terminal there already shows the work.
 */
export function progressFor(io: ClockedIo, { streamsToStdout }: { streamsToStdout: boolean }): Progress {
  const shown = isTerminal(io, 'stderr') && !(streamsToStdout && isTerminal(io, 'stdout'));
  return progressLine(io.stderr, { isTTY: shown, ...(io.now && { now: io.now }) });
}

export function progressLine(stream: NodeJS.WritableStream, { isTTY = (stream as Partial<{ isTTY: boolean }>).isTTY === true, now = () => performance.now(), intervalMs = PROGRESS_INTERVAL_MS }: ProgressOptions = {}): Progress {
  const started = now();
  let drawnAt = started;
  let drawn = false;
  let finished = false;
  const elapsed = () => `${((now() - started) / 1000).toFixed(1)} s`;
  // Clear to the end of the line: a shorter text must not leave the end of a longer one behind.
  const draw = (text: string) => stream.write(`\r${terminalSafe(text)}\x1b[K`);
  return {
    elapsed,
    update(describe) {
      if (!isTTY || finished) return;
      const at = now();
      if (at - drawnAt < intervalMs) return;
      drawnAt = at;
      drawn = true;
      draw(describe());
    },
    done(describe) {
      if (finished) return;
      finished = true;
      if (!isTTY || !drawn) return;
      draw(describe());
      stream.write('\n');
    },
  };
}
