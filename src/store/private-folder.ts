/**
 * The embedded store's folder is this account's alone (issue #37 §6): whoever may change its files may
 * forge what SubOps reads back (audit records, approvals, operations in flight). A folder SubOps makes
 * is 0700; one that exists already is taken only when this account owns it and no other may change it
 * (it is then made 0700, as a folder made by `install -d` is 0755); otherwise it is refused, naming the
 * fix. The engine creates its files with the umask's modes: each is made 0600 (folders 0700) once open.
 * Windows has no such modes: nothing is checked there.
 */
import type { Stats } from 'node:fs';
import { chmod, mkdir, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { StoreError } from './errors.js';

/** What is wrong with the folder `dir` whose stat is `found` (for `config check` too), or undefined. */
export function folderProblem(dir: string, found: Pick<Stats, 'uid' | 'mode'>): string | undefined {
  const self = process.getuid?.();
  if (self === undefined) return undefined;
  const where = `The embedded store's folder ${dir} (STORE_DIR)`;
  if (found.uid !== self) return `${where} belongs to another account (uid ${found.uid}), who could forge what SubOps reads back from it. Set STORE_DIR to a folder of this account's (uid ${self}), or run SubOps as the folder's owner.`;
  if (found.mode & 0o022) return `${where} may be changed by other accounts (mode 0${(found.mode & 0o777).toString(8)}), who could forge what SubOps reads back from it. Run chmod 700 ${dir} if you trust what it holds, or set STORE_DIR to a new folder.`;
  return undefined;
}

/** `dir` made if missing, checked, and made 0700. */
export async function privateFolder(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const found = await stat(dir);
  const problem = folderProblem(dir, found);
  if (problem) throw new StoreError(problem);
  if (process.getuid && found.mode & 0o077) await chmod(dir, 0o700);
}

/** Every file below `dir` 0600 and every folder 0700, whatever the umask made them. */
export async function privateContents(dir: string): Promise<void> {
  if (!process.getuid) return;
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      await chmod(path, 0o700);
      await privateContents(path);
    } else if (entry.isFile()) {
      await chmod(path, 0o600);
    }
  }
}
