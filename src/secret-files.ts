/**
 * Secrets from files, for Docker and Kubernetes secrets: each secret setting NAME (src/config-variables.ts,
 * SECRET_SETTINGS) may instead be given as NAME_FILE, the path of a file holding the value (a trailing
 * newline is not part of it). One rule for all of them, applied wherever the configuration is read
 * (src/config.ts): NAME and NAME_FILE both set is a problem naming both; a file that cannot be read, or is
 * empty, is a problem naming the variable and the path. Neither message ever holds a value.
 *
 * NAME_FILE is read from the environment only, never from a `.env` (src/process/env-file.ts): a file from
 * a cloned repository naming a path would send any file of the user's to the address it also names.
 */
import { readFileSync } from 'node:fs';
import { isSecretSetting, SECRET_SETTINGS, type SecretSetting } from './config-variables.js';

type Env = Record<string, string | undefined>;

/** The variable naming the file a secret setting may be read from. */
export const secretFileVariable = (name: SecretSetting) => `${name}_FILE` as const;

/** Set, as the configuration reads it: a value that is empty or only spaces is a setting left out. */
const isSet = (value: string | undefined): value is string => value !== undefined && value.trim() !== '';

/** Whether the setting is given at all: by value, or (a secret) by file. */
export const secretGiven = (env: Env, name: string): boolean => isSet(env[name]) || (isSecretSetting(name) && isSet(env[secretFileVariable(name)]));

/**
 * `env` with every secret given by file filled in from it (a copy; `env` is untouched), and the
 * problems found. A secret with a problem is left out of the copy, so nothing goes on with a value
 * nobody meant.
 */
export function withSecretFiles(env: Env): { env: Env; problems: string[] } {
  const resolved: Env = { ...env };
  const problems: string[] = [];
  for (const name of SECRET_SETTINGS) {
    const fileVariable = secretFileVariable(name);
    const path = env[fileVariable];
    delete resolved[fileVariable];
    if (!isSet(path)) continue;
    if (isSet(env[name])) {
      problems.push(`${name} and ${fileVariable} are both set: set only one (${fileVariable} names a file holding the value)`);
      delete resolved[name];
      continue;
    }
    const read = readSecret(path.trim());
    if (read.problem !== undefined) {
      problems.push(`${fileVariable} names ${path.trim()}, which ${read.problem}`);
      delete resolved[name];
    } else resolved[name] = read.value;
  }
  return { env: resolved, problems };
}

function readSecret(path: string): { value: string; problem?: undefined } | { problem: string } {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    return { problem: `could not be read (${(error as NodeJS.ErrnoException).code ?? 'unreadable'}): set it to a file this user may read` };
  }
  const value = text.replace(/\r?\n$/, '');
  return value.trim() === '' ? { problem: 'is empty: it must hold the value' } : { value };
}
