/**
 * A real pseudo-terminal: the built CLI (bin/subops.js → dist/) run under util-linux `script`, so that
 * stdin, stdout and stderr are a terminal as for a person typing. The question is answered as soon as
 * it shows. Skipped where `script` is not installed; the in-process tests (confirm.test.ts) drive the
 * same decisions through `io.terminal`.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';

const BIN = fileURLToPath(new URL('../../bin/subops.js', import.meta.url));
const BUILT = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));
const HAS_SCRIPT = spawnSync('script', ['--version'], { stdio: 'ignore' }).status === 0;

let sim: RunningSimulator;
beforeAll(async () => {
  sim = await startSimulator();
});
afterAll(async () => sim?.close());

/** Runs `subops <args>` on a pseudo-terminal; answers each "[y/N]" question with the next of `answers`. */
function onTerminal(args: string[], answers: string[]): Promise<{ code: number | null; screen: string }> {
  const command = [process.execPath, BIN, ...args].map((word) => `'${word.replace(/'/g, `'\\''`)}'`).join(' ');
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['--quiet', '--flush', '--return', '--command', command, '/dev/null'], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', SHELL: '/bin/sh', TERM: 'dumb', UISP_URL: sim.url, UISP_TOKEN: sim.token, ISP_TIMEZONE: 'America/Guyana', SUBOPS_ENV_FILE: '' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let screen = '';
    let asked = 0;
    child.stdout.on('data', (chunk: Buffer) => {
      screen += chunk.toString('utf8');
      while (screen.split('[y/N] ').length - 1 > asked) child.stdin.write(`${answers[asked++] ?? ''}\n`);
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, screen: screen.replace(/\r\n/g, '\n') }));
  });
}

it.skipIf(!HAS_SCRIPT)('on a real terminal, activate asks before deleting the Quoted service, then deletes it on "y"', { timeout: 60_000 }, async () => {
  expect(existsSync(BUILT), 'dist/ is missing: run `npm run build` (npm ci does it)').toBe(true);
  const { code, screen } = await onTerminal(['activate', '--device', '10.20.1.51', '--first-name', 'priya', '--last-name', 'ramnarine'], ['y']);
  expect(screen).toContain('Delete Quoted service #102 and activate? [y/N] y\n');
  expect(screen).toMatch(/^OK: Activated Priya Ramnarine/m);
  // The audit record is a short line on a terminal, not pino's JSON.
  expect(screen).toMatch(/^Audit: activate by \S+ \(CLI\): activated$/m);
  expect(screen).not.toContain('"audit":true');
  expect(code).toBe(0);
  expect(sim.requests.filter((r) => r.method === 'DELETE').map((r) => r.path)).toEqual(['/crm/api/v1.0/clients/services/102']);
});
