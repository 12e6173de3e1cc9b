/**
 * `subops config check`'s look at the store, without changing it: a PostgreSQL store is connected to and
 * asked its schema version (never migrated here: the bot does that at start); the embedded one is looked
 * at on disk (whether its folder can be written and is this account's alone, and whether a bot holds
 * it), never created here.
 */
import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { whereIs } from './database-url.js';
import { StoreError } from './errors.js';
import { folderHolder } from './folder-guard.js';
import { folderProblem } from './private-folder.js';
import { SCHEMA_VERSION } from './migrations.js';
import { openPostgres } from './postgres.js';
import type { StoreSettings } from './index.js';

export interface StoreVerdict {
  status: 'ok' | 'warning' | 'failed';
  message: string;
}

export async function checkStore(settings: StoreSettings): Promise<StoreVerdict> {
  if (settings.engine === 'memory') return { status: 'ok', message: 'in memory (--simulator): nothing is kept' };
  return settings.engine === 'postgres' ? checkPostgres(settings.url) : checkEmbedded(settings.dir);
}

async function checkPostgres(url: string): Promise<StoreVerdict> {
  let sql;
  try {
    sql = await openPostgres({ url, maxConnections: 1 });
  } catch (error) {
    return { status: 'failed', message: error instanceof StoreError ? error.message : String(error) };
  }
  try {
    const where = `PostgreSQL at ${whereIs(url)} (DATABASE_URL)`;
    const [table] = await sql.query<{ name: string | null }>(`SELECT to_regclass('subops_migrations')::text AS name`);
    const [row] = table?.name ? await sql.query<{ version: number | null }>('SELECT max(version) AS version FROM subops_migrations') : [];
    const version = Number(row?.version ?? 0);
    if (version === 0) return { status: 'ok', message: `${where} answered; not set up yet: the bot creates SubOps' tables at start` };
    if (version > SCHEMA_VERSION) return { status: 'warning', message: `${where} answered; its schema (version ${version}) is newer than this SubOps knows (${SCHEMA_VERSION}): run the newer SubOps` };
    return { status: 'ok', message: `${where} answered; schema version ${version}${version < SCHEMA_VERSION ? ` (the bot brings it to ${SCHEMA_VERSION} at start)` : ''}` };
  } catch (error) {
    return { status: 'failed', message: `PostgreSQL at ${whereIs(url)} (DATABASE_URL) answered the connection but not a query: ${error instanceof Error ? error.message : String(error)}` };
  } finally {
    await sql.close();
  }
}

async function checkEmbedded(dir: string): Promise<StoreVerdict> {
  const where = `embedded store in ${dir} (STORE_DIR)`;
  const found = await stat(dir).catch(() => undefined);
  const exists = found?.isDirectory() ?? false;
  const problem = found && exists ? folderProblem(dir, found) : undefined;
  if (problem) return { status: 'failed', message: problem };
  // The folder, or the nearest existing one above it, must be writable by this user.
  let writable = dir;
  while (!(await stat(writable).then(() => true, () => false)) && dirname(writable) !== writable) writable = dirname(writable);
  if (!(await access(writable, constants.W_OK).then(() => true, () => false))) return { status: 'failed', message: `${where}: ${writable} cannot be written by this user; set STORE_DIR to a folder it can write, or DATABASE_URL` };
  if (!exists) return { status: 'ok', message: `${where}: not created yet; the bot creates it at start` };
  const holder = await folderHolder(dir);
  return { status: 'ok', message: holder ? `${where}: the bot's (${holder}); CLI runs on this machine share it` : `${where}: no bot holds it now` };
}
