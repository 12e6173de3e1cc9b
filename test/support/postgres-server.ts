/**
 * Vitest global set-up: a throwaway PostgreSQL cluster for the test run (issue #28: the store is tested
 * against a real server, not only the embedded engine). initdb and pg_ctl (Debian's, else the PATH's), a data
 * directory under the system's temp folder, loopback on a free port, fsync off; stopped and removed at
 * the end. PostgreSQL refuses to run as root: as root the cluster is made and run as the `postgres`
 * system user (runuser). Tests get its URL with inject('postgresUrl').
 */
import { execFile } from 'node:child_process';
import { access, chmod, chown, mkdtemp, readdir, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { TestProject } from 'vitest/node';

const run = promisify(execFile);

declare module 'vitest' {
  export interface ProvidedContext {
    postgresUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const dir = await mkdtemp(join(tmpdir(), 'subops-pg-'));
  const data = join(dir, 'data');
  const asRoot = process.getuid?.() === 0;
  const bin = await serverBin();
  const as = async (command: string, args: string[]) => {
    const path = bin ? join(bin, command) : command;
    try {
      return await run(asRoot ? 'runuser' : path, asRoot ? ['-u', 'postgres', '--', path, ...args] : args, { timeout: 60_000 });
    } catch (error) {
      const failure = error as NodeJS.ErrnoException & { stderr?: string };
      if (failure.code === 'ENOENT') throw new Error(`The tests need PostgreSQL's ${command} on the PATH (Debian: apt-get install postgresql); .ci/run installs it when missing.`, { cause: error });
      throw new Error(`${command} failed: ${failure.stderr || failure.message}`, { cause: error });
    }
  };
  if (asRoot) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: group } = await run('id', ['-g', 'postgres']);
    await chown(dir, Number(stdout.trim()), Number(group.trim()));
  }
  await chmod(dir, 0o700);
  await as('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '--no-instructions', '-E', 'UTF8']);
  const port = await freePort();
  await as('pg_ctl', ['-D', data, '-l', join(dir, 'server.log'), '-w', '-t', '60', '-o', `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=400`, 'start']);
  project.provide('postgresUrl', `postgres://postgres@127.0.0.1:${port}/postgres`);
  return async () => {
    await as('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']).catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  };
}

/** Debian keeps the server's programs in /usr/lib/postgresql/<version>/bin, off the PATH: the newest there, else the PATH's. */
async function serverBin(): Promise<string | undefined> {
  const versions = await readdir('/usr/lib/postgresql').catch(() => [] as string[]);
  for (const version of versions.sort((a, b) => Number(b) - Number(a))) {
    const bin = join('/usr/lib/postgresql', version, 'bin');
    if (await access(join(bin, 'initdb')).then(() => true, () => false)) return bin;
  }
  return undefined;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
