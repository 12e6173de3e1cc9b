/**
 * One bot per state folder: the bot holds an operating-system lock on `subops.lock` in the folder (an
 * open-file-description lock, F_OFD_SETLK) for as long as it runs. The kernel keeps it, so it holds
 * across containers sharing the folder on a volume, whatever their process ids; it ends with the
 * process, however that ends, and nothing ever deletes the file. CLI runs share the store and never
 * take it. The file names its holder (host and process id), for the message a second bot is given.
 */
import { open, readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { StoreError } from './errors.js';

const LOCK_FILE = 'subops.lock';
/** `config check` looks at the lock for an instant (a shared lock): a bot starting then asks again. */
const ATTEMPTS = 5;

export interface FolderGuard {
  release(): Promise<void>;
}

export async function guardFolder(dir: string): Promise<FolderGuard> {
  const { tryLock } = await import('fs-native-extensions');
  const path = join(dir, LOCK_FILE);
  const file = await open(path, 'a+', 0o600);
  let granted = false;
  try {
    for (let attempt = 1; !granted && attempt <= ATTEMPTS; attempt++) {
      granted = tryLock(file.fd);
      if (!granted && attempt < ATTEMPTS) await delay(20);
    }
  } finally {
    if (!granted) await file.close();
  }
  if (!granted) {
    const holder = (await readFile(path, 'utf8').catch(() => '')).trim();
    throw new StoreError(
      `The embedded store in ${dir} (STORE_DIR) is in use by another SubOps bot${holder ? ` (${holder})` : ''}: one bot per state folder. Stop that bot first; several replicas share a PostgreSQL store (DATABASE_URL).`,
    );
  }
  await file.truncate(0);
  await file.write(`process ${process.pid} on ${hostname()}\n`, 0);
  return { release: () => file.close() };
}

/** Whether a bot holds the folder now (for `config check`): a shared lock is refused while it does. */
export async function folderHolder(dir: string): Promise<string | undefined> {
  const { tryLock, unlock } = await import('fs-native-extensions');
  const path = join(dir, LOCK_FILE);
  const file = await open(path, 'r').catch(() => undefined);
  if (!file) return undefined;
  try {
    if (tryLock(file.fd, { shared: true })) {
      unlock(file.fd);
      return undefined;
    }
    return (await readFile(path, 'utf8')).trim() || 'a running bot';
  } finally {
    await file.close();
  }
}
