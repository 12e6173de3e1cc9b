/**
 * A reader that stops early (`subops payments --csv | head -1`) ends the CLI quietly with exit 0: no
 * EPIPE stack trace, and no more pages read from UISP for output nobody reads. In-process with a stream
 * that fails like a closed pipe, and for real: bin/subops.js piped into `head -1`.
 */
import { execFile } from 'node:child_process';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../support/subops-process.js';
import { main } from '../../src/cli/main.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

let sim: RunningSimulator;
beforeEach(async () => {
  sim = await startSimulator();
});
afterEach(async () => sim.close());

const paymentPages = () => sim.requests.filter((r) => r.path === '/crm/api/v1.0/payments').length;

/** Runs the CLI with a stdout whose reader goes away after the first chunk, failing with `error`. */
async function runWithClosingReader(argv: string[], error: NodeJS.ErrnoException) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.once('data', (chunk) => {
    out += chunk;
    stdout.destroy(error);
  });
  stderr.on('data', (chunk) => (err += chunk));
  const code = await main(argv, { env: { UISP_URL: sim.url, UISP_TOKEN: sim.token }, stdout, stderr, stdin: new PassThrough() });
  return { code, out, err };
}

const closedPipe = () => Object.assign(new Error('write EPIPE'), { code: 'EPIPE', errno: -32, syscall: 'write' });

describe('a closed pipe, in-process', () => {
  it('--csv ends quietly with exit 0 and stops reading UISP', async () => {
    const all = sim.data.payments.length;
    expect(all).toBeGreaterThan(1_000); // several pages of 500
    const { code, out, err } = await runWithClosingReader(['payments', '--csv', '--from', '2000-01-01'], closedPipe());
    expect(code).toBe(0);
    expect(out.split('\n')[0]).toBe('id,createdDate,clientId,clientName,amount,currencyCode,methodId,methodName,note');
    expect(err).toBe('');
    expect(paymentPages()).toBeLessThan(Math.ceil(all / 500));
  });

  it('--json too', async () => {
    const { code, err } = await runWithClosingReader(['payments', '--json', '--from', '2000-01-01'], closedPipe());
    expect(code).toBe(0);
    expect(err).toBe('');
  });

  it('an output that fails for another reason is reported in one line, exit 1, without a stack trace', async () => {
    const full = Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
    const { code, err } = await runWithClosingReader(['payments', '--csv', '--from', '2000-01-01'], full);
    expect(code).toBe(1);
    expect(err).toBe('Could not write the output: no space left on device\n');
  });
});


describe('a closed pipe, for real', () => {
  it('`subops payments --csv | head -1` prints the header and exits 0 without a word on stderr', { timeout: 120_000 }, async () => {
    ensureBuilt();
    const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', SUBOPS_ENV_FILE: '', UISP_URL: sim.url, UISP_TOKEN: sim.token };
    const result = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      execFile('bash', ['-o', 'pipefail', '-c', `"${process.execPath}" bin/subops.js payments --csv --from 2000-01-01 | head -1`], { cwd: ROOT, env }, (error, stdout, stderr) =>
        resolve({ code: error ? ((error as { code?: number }).code ?? null) : 0, stdout, stderr }),
      );
    });
    expect(result.stderr).toBe('');
    expect(result.stdout).toBe('id,createdDate,clientId,clientName,amount,currencyCode,methodId,methodName,note\n');
    expect(result.code).toBe(0);
    expect(paymentPages()).toBeLessThan(Math.ceil(sim.data.payments.length / 500));
  });
});
