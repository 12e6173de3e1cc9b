/**
 * What a process entry point may touch (the `subops` CLI, `serve`, `demo`): passed in, so tests run them
 * in-process with captured output. Shared by every entry point, so none of them imports another's module.
 */
import type { Env } from '../config.js';

export type StreamName = 'stdin' | 'stdout' | 'stderr';

/** The settings file the process entry read into the environment at start (src/process/env-file.ts). */
export interface EnvFileInfo {
  /** Absolute path of the file. */
  path: string;
  /** Variables taken from it (names only, never values). */
  applied: string[];
  /** Variables it sets that the environment already had: the environment's value is the one used. */
  shadowed: string[];
  /** Variables it sets that are not SubOps settings: left out of the environment. */
  ignored: string[];
}

export interface ProcessIo {
  env: Env;
  /** Set by the process entry when it read a `.env` file (bin/subops.js); tests pass env objects instead. */
  envFile?: EnvFileInfo | undefined;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  /** Where a person's answers come from (a y/N confirmation): read only when it is a terminal. */
  stdin: NodeJS.ReadableStream;
  /** Resolves when the user asks a long-running command (simulate, serve) to stop; defaults to SIGINT/SIGTERM. */
  untilStopped?: () => Promise<void>;
  /**
   * Which streams are terminals. Each defaults to the stream's own `isTTY` (process.stdin… on a
   * terminal); tests set it to run as a person at a terminal would (asked to confirm, the audit as a
   * human line) without one.
   */
  terminal?: Partial<Record<StreamName, boolean>>;
  /** `--log-json`: log lines (the CLI's audit record included) as JSON even when stderr is a terminal. */
  logJson?: boolean;
}

export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

/**
 * How `serve` ends, for its supervisor (systemd, Docker, Kubernetes: docs/running.md). Codes from
 * sysexits.h, apart from the CLI's 0/1/2 (which say how one operation went): `cannotStart` is a problem a
 * restart cannot fix (configuration, credentials Slack refused, a store held by another bot or a folder it
 * cannot use, a port in use), which the shipped unit's RestartPreventExitStatus= names; `tryAgain` is
 * Slack, the network or the database not answering, which a restart may well fix.
 */
export const SERVE_EXIT = { stopped: 0, failed: 1, tryAgain: 75, cannotStart: 78 } as const;

/** Bad flags or values: exit code 2, and nothing was sent to UISP. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
  /** The flag, argument or command the problem is about ("--device", "<command>"), when there is one. */
  readonly field: string | undefined;
  constructor(message: string, field?: string) {
    super(message);
    this.field = field;
  }
}

/** Exact output: JSON, CSV, and SubOps' own fixed texts (help, usage). */
export const writeLine = (stream: NodeJS.WritableStream, line = '') => stream.write(`${line}\n`);

/** Whether that stream is a terminal (a person reads it, or types into it). */
export function isTerminal(io: Pick<ProcessIo, StreamName | 'terminal'>, stream: StreamName): boolean {
  return io.terminal?.[stream] ?? (io[stream] as Partial<{ isTTY: boolean }>).isTTY === true;
}

/** A person can be asked: the answer comes from a terminal and the question is seen on one. */
export const canAsk = (io: Pick<ProcessIo, StreamName | 'terminal'>): boolean => isTerminal(io, 'stdin') && isTerminal(io, 'stderr');

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
