/**
 * The embedded store's engine: LMDB (through `lmdb`, whose prebuilt binary installs as an npm optional
 * dependency: nothing is compiled), its files in one folder. LMDB lets every process on the machine read
 * and write one database at once: the bot and each CLI run share it, and its writer lock (held only for
 * a transaction's few microseconds) makes them take turns. Opening takes milliseconds and a few MB.
 */
import { join } from 'node:path';
import { StoreError } from './errors.js';
import { guardFolder, type FolderGuard } from './folder-guard.js';
import { privateContents, privateFolder } from './private-folder.js';
import { bufferedWriter, isRemoval, TABLES, type Kv, type KvReader, type Table } from './kv.js';

/**
 * The store in `dir`, made if missing, this account's alone (./private-folder.ts). `guard`: the bot's open, which holds the folder against a second
 * bot (./folder-guard.ts) until the store is closed.
 */
export async function openLmdb(dir: string, { guard = false }: { guard?: boolean } = {}): Promise<Kv> {
  let held: FolderGuard | undefined;
  try {
    await privateFolder(dir);
    if (guard) held = await guardFolder(dir);
    const lmdb = await import('lmdb');
    const root = lmdb.open({ path: join(dir, 'lmdb'), maxDbs: TABLES.length + 2 });
    // Out of other accounts' reach already (the folder is 0700), and private in themselves too.
    await privateContents(dir);
    const tables = new Map(TABLES.map((table) => [table, root.openDB<unknown, string>(table, { encoding: 'json', keyEncoding: 'ordered-binary' })]));
    const db = (table: Table) => tables.get(table)!;
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
        await root.close();
        await held?.release();
      },
    };
  } catch (error) {
    await held?.release();
    if (error instanceof StoreError) throw error;
    throw new StoreError(`Could not open the embedded store in ${dir} (STORE_DIR): ${error instanceof Error ? error.message : String(error)}`);
  }
}
