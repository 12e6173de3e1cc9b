/**
 * Commands load only what they use (issue 11 §6): `subops --help` loads none of the heavy modules, and
 * a command's own help loads neither Bolt nor the simulator. Each heavy module is wrapped so the test
 * sees when something imports it; the tests run in order, so "not loaded yet" means "not loaded by this".
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import { main } from '../../src/cli/main.js';

const loaded = vi.hoisted(() => new Set<string>());
vi.mock('@slack/bolt', async (original) => (loaded.add('@slack/bolt'), original()));
vi.mock('undici', async (original) => (loaded.add('undici'), original()));
vi.mock('zod', async (original) => (loaded.add('zod'), original()));
vi.mock('pino', async (original) => (loaded.add('pino'), original()));
vi.mock('../../src/simulator/index.js', async (original) => (loaded.add('simulator'), original()));
// SubOps' store and its engines: `subops --help` must not touch them (issue #28).
vi.mock('../../src/store/index.js', async (original) => (loaded.add('store'), original()));
vi.mock('lmdb', async (original) => (loaded.add('lmdb'), original()));
vi.mock('pg', async (original) => (loaded.add('pg'), original()));

async function run(...argv: string[]): Promise<{ code: number; out: string }> {
  const stdout = new PassThrough();
  let out = '';
  stdout.on('data', (chunk) => (out += chunk));
  const code = await main(argv, { env: { UISP_URL: 'http://127.0.0.1:9', UISP_TOKEN: 't' }, stdout, stderr: new PassThrough(), stdin: new PassThrough() });
  return { code, out };
}

describe('lazy loading of commands', () => {
  it('`subops --help` loads no dependency, not the simulator and not the store', async () => {
    const { code, out } = await run('--help');
    expect(code).toBe(0);
    expect(out).toContain('Commands:');
    expect([...loaded]).toEqual([]);
  });

  it('`subops payments --help` loads the services layer but neither Bolt nor the simulator', async () => {
    const { code, out } = await run('payments', '--help');
    expect(code).toBe(0);
    expect(out).toContain('Usage: subops payments');
    // The services layer (its zod schemas); undici itself loads with the first UISP request.
    expect(loaded.has('zod')).toBe(true);
    expect(loaded.has('undici')).toBe(false);
    expect(loaded.has('@slack/bolt')).toBe(false);
    expect(loaded.has('simulator')).toBe(false);
  });

  it('`subops activate --help` and `subops suspend --help` do not load Bolt or the simulator either', async () => {
    expect((await run('activate', '--help')).code).toBe(0);
    expect((await run('suspend', '--help')).code).toBe(0);
    expect(loaded.has('@slack/bolt')).toBe(false);
    expect(loaded.has('simulator')).toBe(false);
  });
});
