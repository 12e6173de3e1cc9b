/**
 * What a process entry point may touch (the `subops` CLI, `serve`, `demo`): passed in, so tests run them
 * in-process with captured output. Shared by every entry point, so none of them imports another's module.
 */
import type { Env } from '../config.js';

export interface ProcessIo {
  env: Env;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  stdin: NodeJS.ReadableStream;
  /** Resolves when the user asks a long-running command (simulate, serve) to stop; defaults to SIGINT/SIGTERM. */
  untilStopped?: () => Promise<void>;
}

export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

/** Bad flags or values: exit code 2, and nothing was sent to UISP. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** Exact output: JSON, CSV, and SubOps' own fixed texts (help, usage). */
export const writeLine = (stream: NodeJS.WritableStream, line = '') => stream.write(`${line}\n`);

export function untilSignal(): Promise<void> {
  return new Promise((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}
