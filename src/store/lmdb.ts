/**
 * The embedded store's engine: LMDB (through `lmdb`, whose prebuilt binary installs as an npm optional
 * dependency: nothing is compiled), its files in one folder. LMDB lets every process on the machine read
 * and write one database at once: the bot and each CLI run share it, and its writer lock (held only for
 * a transaction's few microseconds) makes them take turns. Opening takes milliseconds and a few MB.
 */
import { join, resolve } from 'node:path';
import type { Database, RootDatabase } from 'lmdb';
import { StoreError } from './errors.js';
import { guardFolder, type FolderGuard } from './folder-guard.js';
import { privateContents, privateFolder } from './private-folder.js';
import { bufferedWriter, isRemoval, TABLES, type Kv, type KvReader, type Table } from './kv.js';

/** An LMDB environment opened in this process, and how many open stores use it. */
interface OpenEnvironment {
  root: RootDatabase;
  tables: Map<Table, Database<unknown, string>>;
  users: number;
}

/**
 * LMDB must not be opened twice in one process: its locks are the process's, so closing one handle drops
 * the other's, and two handles' writers can wait on each other for good. Every store of one folder in a
 * process (tests play several processes in one) shares one environment, closed with the last of them.
 */
const environments = new Map<string, Promise<OpenEnvironment>>();

async function environmentOf(path: string): Promise<OpenEnvironment> {
  let opening = environments.get(path);
  if (!opening) {
    opening = (async () => {
      const lmdb = await import('lmdb');
      const root = lmdb.open({ path, maxDbs: TABLES.length + 2 });
      const tables = new Map(TABLES.map((table) => [table, root.openDB<unknown, string>(table, { encoding: 'json', keyEncoding: 'ordered-binary' })]));
      return { root, tables, users: 0 };
    })();
    environments.set(path, opening);
    opening.catch(() => environments.delete(path));
  }
  const environment = await opening;
  environment.users++;
  return environment;
}

async function leave(path: string, environment: OpenEnvironment): Promise<void> {
  if (--environment.users > 0) return;
  environments.delete(path);
  await environment.root.close();
}

/**
 * The store in `dir`, made if missing, this account's alone (./private-folder.ts). `guard`: the bot's open, which holds the folder against a second
 * bot (./folder-guard.ts) until the store is closed.
 */
export async function openLmdb(dir: string, { guard = false }: { guard?: boolean } = {}): Promise<Kv> {
  let held: FolderGuard | undefined;
  try {
    await privateFolder(dir);
    if (guard) held = await guardFolder(dir);
    const path = resolve(join(dir, 'lmdb'));
    const environment = await environmentOf(path);
    const { root, tables } = environment;
    // Out of other accounts' reach already (the folder is 0700), and private in themselves too.
    await privateContents(dir).catch(async (error: unknown) => {
      await leave(path, environment);
      throw error;
    });
    const db = (table: Table) => tables.get(table)!;
    let closed = false;
    const reader: KvReader = {
      get: <T>(table: Table, key: string) => db(table).get(key) as T | undefined,
      entries: <T>(table: Table) => {
        const range = db(table).getRange({});
        return (function* () {
          for (const { key, value } of range) yield [key, value as T] as [string, T];
        })();
      },
    };
    return {
      // LMDB's write transaction: the callback runs while this process alone may write, then commits.
      transaction: (work) =>
        root.transaction(() => {
          const writer = bufferedWriter(reader);
          const result = work(writer);
          for (const write of writer.writes()) {
            if (isRemoval(write)) void db(write.table).remove(write.key);
            else void db(write.table).put(write.key, write.value);
          }
          return result;
        }),
      read: async (work) => {
        // A read may be served from a snapshot kept since an earlier read: start from what is committed now.
        root.resetReadTxn();
        return work(reader);
      },
      async close() {
        if (closed) return;
        closed = true;
        await leave(path, environment);
        await held?.release();
      },
    };
  } catch (error) {
    await held?.release();
    if (error instanceof StoreError) throw error;
    throw new StoreError(`Could not open the embedded store in ${dir} (STORE_DIR): ${error instanceof Error ? error.message : String(error)}`);
  }
}
