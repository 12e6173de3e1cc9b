/**
 * Tests that start real `subops` processes run bin/subops.js, which runs dist/ (`npm ci` builds it):
 * rebuilt here only when a source file is newer. Type errors are `npm run typecheck`'s to report: tsc
 * writes dist/ all the same.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export function ensureBuilt(): void {
  const newest = (dir: string): number =>
    Math.max(...readdirSync(dir, { withFileTypes: true }).map((entry) => (entry.isDirectory() ? newest(join(dir, entry.name)) : statSync(join(dir, entry.name)).mtimeMs)));
  let built = 0;
  try {
    built = statSync(join(ROOT, 'dist/cli/main.js')).mtimeMs;
  } catch {
    // not built yet
  }
  if (built < newest(join(ROOT, 'src'))) spawnSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(ROOT, 'tsconfig.build.json')], { cwd: ROOT, stdio: 'ignore' });
  expect(existsSync(join(ROOT, 'dist/cli/main.js')), 'dist/ could not be built: run npm run build').toBe(true);
}

const BIN = join(ROOT, 'bin/subops.js');

/** `subops <args>` as a real process with exactly `env` (and PATH), its output collected. */
export function runSubops(args: string[], env: Record<string, string | undefined>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { PATH: process.env.PATH, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
