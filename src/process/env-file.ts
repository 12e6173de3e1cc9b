/**
 * `.env` at process start. The process entry (bin/subops.js, for every command, `serve` included) reads
 * the file once, with SubOps' own parser (src/process/env-syntax.ts), into process.env before anything
 * reads the configuration, and names it on stderr. Variables already in the environment win: the file
 * only fills in what is not set. Nothing else loads it, so tests, which pass env objects of their own,
 * never see a developer's `.env`.
 *
 * The file is read from the working directory, so it may be one a cloned repository brought along. It
 * therefore sets only SubOps' settings (src/config-variables.ts; others are named and ignored), and it
 * is refused, nothing applied, when:
 * - a line is none of the forms the syntax allows (each is named by its number);
 * - every user of the machine may change it (world-writable; a group-writable one is warned about:
 *   with per-user groups, the common umask 002 makes files so), or it belongs to another account
 *   (root's is accepted: root may change any file anyway);
 * - it would aim a secret from the environment at an address of its own (UISP_URL while UISP_TOKEN, or
 *   UISP_TOKEN_FILE, comes from the environment: src/config-variables.ts, SECRET_DESTINATIONS), or set DATABASE_URL
 *   without its password (the driver would send the one in ~/.pgpass).
 * A file holding secrets (src/config-variables.ts, SECRET_SETTINGS) that its group or every user may
 * read is read, with a warning naming the secrets (never their values) and the fix, `chmod 600`.
 *
 * SUBOPS_ENV_FILE (from the environment only) names another file; set to nothing, no file is read.
 */
import { closeSync, fstatSync, openSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Env } from '../config.js';
import { isConfigVariable, isSecretSetting, SECRET_DESTINATIONS, type ConfigVariable } from '../config-variables.js';
import { secretFileVariable, secretGiven } from '../secret-files.js';
import { parseDatabaseUrl } from '../store/database-url.js';
import { parseEnvText } from './env-syntax.js';
import { refuseToStart } from './start-refusal.js';
import { writeLine, type EnvFileInfo, type ProcessIo } from './io.js';

export const ENV_FILE_VARIABLE = 'SUBOPS_ENV_FILE';
export const DEFAULT_ENV_FILE = '.env';

export type EnvTextOutcome = { applied: string[]; shadowed: string[]; ignored: string[]; problem?: undefined } | { problem: string };

/**
 * What the file holds, applied to `env`: only SubOps' settings, and of those only the ones `env` does
 * not have yet. An empty value (`AUDIT_CHANNEL_ID=`, as .env.example leaves them) is a setting left
 * out, so it sets nothing. A problem (which names `path`) means nothing was applied.
 */
export function applyEnvText(env: Env, text: string, path: string): EnvTextOutcome {
  const parsed = parseEnvText(text);
  if (parsed.problems.length) {
    return { problem: `${path} was not read: fix ${parsed.problems.length === 1 ? 'this line' : 'these lines'} (NAME=value, one a line):\n${parsed.problems.map((p) => `  ${p}`).join('\n')}` };
  }
  const values = new Map<ConfigVariable, string>();
  const ignored = new Set<string>();
  for (const { name, value } of parsed.assignments) {
    if (!isConfigVariable(name)) ignored.add(name);
    else if (value.trim() !== '') values.set(name, value);
  }
  // A secret the environment gives by file (NAME_FILE) is the environment's too.
  const inEnvironment = (name: ConfigVariable) => env[name] !== undefined || secretGiven(env, name);
  const applying = [...values.keys()].filter((name) => !inEnvironment(name));
  const shadowed = [...values].filter(([name, value]) => inEnvironment(name) && env[name] !== value).map(([name]) => name);
  const redirect = secretRedirect(env, applying) ?? passwordlessDatabase(values, applying);
  if (redirect) return { problem: `${path} was not read: ${redirect}` };
  for (const name of applying) env[name] = values.get(name);
  return { applied: applying.sort(), shadowed: shadowed.sort(), ignored: [...ignored].sort() };
}

/** An address the file would set while a secret sent to it comes from the environment: the sentence saying so. */
function secretRedirect(env: Env, applying: readonly ConfigVariable[]): string | undefined {
  for (const address of applying) {
    const fromEnvironment = (SECRET_DESTINATIONS[address] ?? []).flatMap((secret) => (isSecretSetting(secret) ? [secret, secretFileVariable(secret)] : [secret])).filter((name) => env[name]?.trim());
    if (!fromEnvironment.length) continue;
    const secrets = fromEnvironment.join(' and ');
    // A secret's file (NAME_FILE) is named in the environment only: the file cannot take it over.
    const inFile = fromEnvironment.some((name) => name.endsWith('_FILE')) ? '' : `, or ${secrets} in the file`;
    return `it sets ${address} while ${secrets} ${fromEnvironment.length === 1 ? 'comes' : 'come'} from the environment, and SubOps does not send the environment's secrets to an address a file names. Set ${address} in the environment too${inFile}; or set ${ENV_FILE_VARIABLE} to nothing to read no file.`;
  }
  return undefined;
}

/**
 * A DATABASE_URL the file sets without a password: the driver would fill one in from the environment or
 * ~/.pgpass (which src/store/postgres.ts never reads; refused here too, before anything connects).
 */
function passwordlessDatabase(values: ReadonlyMap<ConfigVariable, string>, applying: readonly ConfigVariable[]): string | undefined {
  const url = values.get('DATABASE_URL');
  // An unreadable URL is the configuration's to report: nothing connects to it.
  const address = url === undefined || !applying.includes('DATABASE_URL') ? undefined : parseDatabaseUrl(url.trim());
  if (!address || address.hasPassword) return undefined;
  return `it sets DATABASE_URL without a password, and SubOps sends no password from the environment or ~/.pgpass to a database a file names. Put the password in the file's DATABASE_URL (postgres://user:password@host/database), or set DATABASE_URL in the environment; or set ${ENV_FILE_VARIABLE} to nothing to read no file.`;
}

export type EnvFileOutcome = { file: EnvFileInfo | undefined; warnings: string[]; problem?: undefined } | { problem: string };

/**
 * Reads `.env` in `cwd` (or SUBOPS_ENV_FILE) into `env`. No `.env` is fine (file undefined); a file
 * that cannot be read, or a SUBOPS_ENV_FILE naming none, is a problem that names the file and the
 * variable, and nothing is applied.
 */
export function loadEnvFile(env: Env, cwd: string): EnvFileOutcome {
  const named = env[ENV_FILE_VARIABLE];
  const path = envFileLocation(env, cwd);
  if (path === undefined) return { file: undefined, warnings: [] };
  let text: string;
  let mode: number;
  let owner: number;
  try {
    const fd = openSync(path, 'r');
    try {
      ({ mode, uid: owner } = fstatSync(fd));
      text = readFileSync(fd, 'utf8');
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    if (named === undefined && code === 'ENOENT') return { file: undefined, warnings: [] };
    return {
      problem:
        named === undefined
          ? `Could not read ${path} (${code}): fix or remove it, or set ${ENV_FILE_VARIABLE} to another file (empty: read none).`
          : `${ENV_FILE_VARIABLE} names ${path}, which could not be read (${code}): set it to a readable file, or to nothing to read none.`,
    };
  }
  if (ownedByAnother(owner)) {
    return { problem: `${path} was not read: it belongs to another account (uid ${owner}), which may change it, and with it where SubOps sends its tokens. Use a file of your own (chown or copy it), or set ${ENV_FILE_VARIABLE} to nothing to read none.` };
  }
  const writable = writableBy(mode);
  const fix = `chmod go-w ${path}`;
  if (writable === 'every user') return { problem: `${path} was not read: every user of this machine may change it (mode ${octal(mode)}), and with it where SubOps sends its tokens. Run ${fix}.` };
  const outcome = applyEnvText(env, text, path);
  if (outcome.problem !== undefined) return outcome;
  const warnings = writable === 'its group' ? [`${path} may be changed by its group (mode ${octal(mode)}), and with it where SubOps sends its tokens: run ${fix} unless that group is yours alone.`] : [];
  const exposed = exposedSecrets(text, mode);
  if (exposed) warnings.push(`${path} holds secrets (${exposed.secrets.join(', ')}) and may be read by ${exposed.readers} (mode ${octal(mode)}): run chmod 600 ${path}.`);
  if (outcome.ignored.length) warnings.push(`${path} sets ${outcome.ignored.join(', ')}, which ${outcome.ignored.length === 1 ? 'is not a SubOps setting' : 'are not SubOps settings'}: ignored (a .env sets only what .env.example lists).`);
  return { file: { path, ...outcome }, warnings };
}

/** The file a run reads: SUBOPS_ENV_FILE's, else `.env` in `cwd`; undefined when SUBOPS_ENV_FILE is set to nothing. */
export function envFileLocation(env: Env, cwd: string): string | undefined {
  const named = env[ENV_FILE_VARIABLE];
  if (named !== undefined && named.trim() === '') return undefined;
  return resolve(cwd, named?.trim() ?? DEFAULT_ENV_FILE);
}

/** Another account than this process's and root's (which may change any file anyway); POSIX only, as `writableBy`. */
function ownedByAnother(owner: number): boolean {
  const self = process.getuid?.();
  return self !== undefined && owner !== self && owner !== 0;
}

/** Windows reports no group or other bits worth the name: the check is for POSIX systems. */
function writableBy(mode: number): 'every user' | 'its group' | undefined {
  if (process.platform === 'win32') return undefined;
  if (mode & 0o002) return 'every user';
  return mode & 0o020 ? 'its group' : undefined;
}

/** The secret settings a file others may read holds (names only), and who may read it; undefined when none or nobody. */
function exposedSecrets(text: string, mode: number): { secrets: string[]; readers: string } | undefined {
  if (process.platform === 'win32' || !(mode & 0o044)) return undefined;
  const secrets = parseEnvText(text).assignments.filter(({ name, value }) => isSecretSetting(name) && value.trim() !== '').map(({ name }) => name);
  if (!secrets.length) return undefined;
  return { secrets: [...new Set(secrets)].sort(), readers: mode & 0o004 ? 'every user of this machine' : 'its group' };
}

const octal = (mode: number) => `0${(mode & 0o777).toString(8)}`;

/** The one stderr line every command run with a `.env` starts with: which file, how many settings came from it. */
export function envFileNotice(file: EnvFileInfo): string {
  const { path, applied, shadowed } = file;
  const kept = shadowed.length ? `; the environment's ${shadowed.join(', ')} ${shadowed.length === 1 ? 'wins' : 'win'} over the file's` : '';
  return `SubOps: settings from ${path} (${applied.length})${kept}`;
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
 * The process entry: `.env` into the environment, named on stderr with any warning about it, then the
 * command with the process's own streams. A `.env` that is refused ends the run with its reason and
 * exit code 2, before anything runs.
 */
export async function runProcess(main: (argv: string[], io: ProcessIo) => Promise<number>, proc: EntryProcess = process): Promise<number> {
  const loaded = loadEnvFile(proc.env, proc.cwd());
  if (loaded.problem !== undefined) return refuseToStart(proc.argv.slice(2), proc, loaded.problem);
  if (loaded.file) writeLine(proc.stderr, envFileNotice(loaded.file));
  for (const warning of loaded.warnings) writeLine(proc.stderr, `SubOps: ${warning}`);
  return main(proc.argv.slice(2), { env: proc.env, envFile: loaded.file, stdout: proc.stdout, stderr: proc.stderr, stdin: proc.stdin });
}
