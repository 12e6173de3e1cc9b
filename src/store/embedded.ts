/**
 * The embedded store: PGlite (PostgreSQL compiled to WebAssembly, no native code, nothing to install),
 * its files in one directory. One process at a time may open a directory: a lock file names the process
 * holding it, and a second process is refused with a line that says so (several processes share a
 * store through DATABASE_URL). Without a directory the database lives in memory (trials, the demo).
 */
import { mkdir, open, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Sql, SqlQueries } from './sql.js';
import { StoreError } from './errors.js';

const LOCK_FILE = 'subops.lock';
/** Folders this process holds: a lock naming our own pid is ours only if listed here (in a container, every run is pid 1). */
const heldHere = new Set<string>();

export async function openEmbedded(dir: string | undefined): Promise<Sql> {
  const unlock = dir ? await lock(dir) : async () => undefined;
  try {
    const { PGlite } = await import('@electric-sql/pglite');
    const db = await PGlite.create(dir ? { dataDir: join(dir, 'pgdata') } : {});
    const queries = (on: Pick<typeof db, 'query'>): SqlQueries => ({
      async query<Row>(text: string, params?: readonly unknown[]) {
        return (await on.query<Row>(text, params as unknown[] | undefined)).rows;
      },
    });
    return {
      ...queries(db),
      async exec(script) {
        await db.exec(script);
      },
      transaction: (work) => db.transaction((tx) => work(queries(tx))),
      async close() {
        await db.close();
        await unlock();
      },
    };
  } catch (error) {
    await unlock();
    if (error instanceof StoreError) throw error;
    throw new StoreError(`Could not open the embedded store${dir ? ` in ${dir}` : ''}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** Takes the directory's lock file, or says which live process holds it; a dead holder's lock is taken over. */
async function lock(dir: string): Promise<() => Promise<void>> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const path = join(dir, LOCK_FILE);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const file = await open(path, 'wx', 0o600);
      await file.writeFile(String(process.pid));
      await file.close();
      heldHere.add(path);
      return async () => {
        heldHere.delete(path);
        await rm(path, { force: true });
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw new StoreError(`Could not open the embedded store in ${dir}: ${(error as Error).message}`);
    }
    const holder = Number((await readFile(path, 'utf8').catch(() => '')).trim());
    if (Number.isInteger(holder) && holder > 0 && (holder === process.pid ? heldHere.has(path) : alive(holder))) {
      throw new StoreError(
        `The embedded store in ${dir} is in use by process ${holder}: one process at a time may open it. Stop that process, or set DATABASE_URL so that several processes share a PostgreSQL store.`,
      );
    }
    await rm(path, { force: true });
  }
  throw new StoreError(`Could not take the lock of the embedded store in ${dir}`);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
