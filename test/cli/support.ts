/** Runs the `subops` CLI in-process with captured output, and checks no secret reached either stream. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import type { ProcessIo } from '../../src/process/io.js';
import { afterAll, expect } from 'vitest';
import { main } from '../../src/cli/main.js';

export interface CliRun {
  code: number;
  out: string;
  err: string;
}

/** This test file's folder for embedded-simulator state files, removed after its tests. */
let stateFolder: string | undefined;
let stateFiles = 0;
afterAll(() => {
  if (stateFolder) rmSync(stateFolder, { recursive: true, force: true });
  stateFolder = undefined;
});

/**
 * A state file of its own for the embedded simulator (SUBOPS_SIMULATOR_STATE): a run on the simulator
 * starts from the sample data, as a fresh simulator, and never reads or writes the real home folder.
 * Give the same path to several runs to have them share one embedded simulator's state.
 */
export function freshSimulatorState(): string {
  stateFolder ??= mkdtempSync(join(tmpdir(), 'subops-cli-state-'));
  return join(stateFolder, `simulator-${++stateFiles}.json`);
}

/**
 * Without UISP_URL in `env`, the run asks for the embedded simulator (SUBOPS_SIMULATOR=1, as a person
 * would with --simulator; `env` may say otherwise); without SUBOPS_SIMULATOR_STATE, each run has a fresh
 * one (`freshSimulatorState`).
 */
export async function runCli(argv: string[], env: Record<string, string>, secrets: string[], io: Partial<Pick<ProcessIo, 'envFile'>> = {}): Promise<CliRun> {
  const simulator: Record<string, string> = env.UISP_URL === undefined ? { SUBOPS_SIMULATOR: '1' } : {};
  const run = await runMain(argv, { ISP_TIMEZONE: 'America/Guyana', SUBOPS_SIMULATOR_STATE: freshSimulatorState(), ...simulator, ...env }, io);
  for (const secret of secrets) expect(run.out + run.err).not.toContain(secret);
  return run;
}

/** `main` with exactly the environment given, its output captured. */
export async function runMain(argv: string[], env: Record<string, string>, io: Partial<Pick<ProcessIo, 'envFile'>> = {}): Promise<CliRun> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (chunk) => (out += chunk));
  stderr.on('data', (chunk) => (err += chunk));
  const code = await main(argv, { env, stdout, stderr, stdin: new PassThrough(), ...io });
  return { code, out, err };
}

/** The audit lines the CLI logged on stderr, parsed. */
export function auditLines(err: string): Record<string, unknown>[] {
  return err
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => line.audit === true);
}
