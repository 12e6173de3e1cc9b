/**
 * `.env` at process start. The process entry (bin/subops.js, for every command, `serve` included) reads
 * the file once, with Node's own parser (util.parseEnv, the one behind `node --env-file` and
 * process.loadEnvFile), into process.env before anything reads the configuration. Variables already in
 * the environment win: the file only fills in what is not set. Nothing else loads it, so tests, which
 * pass env objects of their own, never see a developer's `.env`.
 *
 * SUBOPS_ENV_FILE (from the environment only) names another file; set to nothing, no file is read.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseEnv } from 'node:util';
import type { Env } from '../config.js';
import { EXIT, writeLine, type EnvFileInfo, type ProcessIo } from './io.js';

export const ENV_FILE_VARIABLE = 'SUBOPS_ENV_FILE';
export const DEFAULT_ENV_FILE = '.env';

/**
 * What the file holds, applied to `env`: only the variables `env` does not have yet are set. An empty
 * value (`AUDIT_CHANNEL_ID=`, as .env.example leaves them) is a setting left out, so it sets nothing.
 */
export function applyEnvText(env: Env, text: string): Pick<EnvFileInfo, 'applied' | 'shadowed'> {
  const applied: string[] = [];
  const shadowed: string[] = [];
  for (const [name, value] of Object.entries(parseEnv(text))) {
    if (value === undefined || value.trim() === '') continue;
    if (env[name] === undefined) {
      env[name] = value;
      applied.push(name);
    } else if (env[name] !== value) shadowed.push(name);
  }
  return { applied: applied.sort(), shadowed: shadowed.sort() };
}

export type EnvFileOutcome = { file: EnvFileInfo | undefined; problem?: undefined } | { problem: string };

/**
 * Reads `.env` in `cwd` (or SUBOPS_ENV_FILE) into `env`. No `.env` is fine (file undefined); a file
 * that cannot be read, or a SUBOPS_ENV_FILE naming none, is a problem that names the file and the
 * variable, and nothing is applied.
 */
export function loadEnvFile(env: Env, cwd: string): EnvFileOutcome {
  const named = env[ENV_FILE_VARIABLE];
  if (named !== undefined && named.trim() === '') return { file: undefined };
  const path = resolve(cwd, named?.trim() ?? DEFAULT_ENV_FILE);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    if (named === undefined && code === 'ENOENT') return { file: undefined };
    return {
      problem:
        named === undefined
          ? `Could not read ${path} (${code}): fix or remove it, or set ${ENV_FILE_VARIABLE} to another file (empty: read none).`
          : `${ENV_FILE_VARIABLE} names ${path}, which could not be read (${code}): set it to a readable file, or to nothing to read none.`,
    };
  }
  return { file: { path, ...applyEnvText(env, text) } };
}

/** What the process entry takes from Node's `process` (a test passes its own). */
export interface EntryProcess {
  env: Env;
  argv: string[];
  cwd(): string;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  stdin: NodeJS.ReadableStream;
}

/**
 * The process entry: `.env` into the environment, then the command with the process's own streams.
 * A `.env` that cannot be read ends the run with one line and exit code 2, before anything runs.
 */
export async function runProcess(main: (argv: string[], io: ProcessIo) => Promise<number>, proc: EntryProcess = process): Promise<number> {
  const loaded = loadEnvFile(proc.env, proc.cwd());
  if (loaded.problem !== undefined) {
    writeLine(proc.stderr, loaded.problem);
    return EXIT.usage;
  }
  return main(proc.argv.slice(2), { env: proc.env, envFile: loaded.file, stdout: proc.stdout, stderr: proc.stderr, stdin: proc.stdin });
}
