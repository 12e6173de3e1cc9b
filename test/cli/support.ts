/** Runs the `subops` CLI in-process with captured output, and checks no secret reached either stream. */
import { PassThrough } from 'node:stream';
import { expect } from 'vitest';
import { main } from '../../src/cli/main.js';

export interface CliRun {
  code: number;
  out: string;
  err: string;
}

export async function runCli(argv: string[], env: Record<string, string>, secrets: string[]): Promise<CliRun> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (chunk) => (out += chunk));
  stderr.on('data', (chunk) => (err += chunk));
  const code = await main(argv, { env: { ISP_TIMEZONE: 'America/Guyana', ...env }, stdout, stderr, stdin: new PassThrough() });
  for (const secret of secrets) expect(out + err).not.toContain(secret);
  return { code, out, err };
}

/** The audit lines the CLI logged on stderr, parsed. */
export function auditLines(err: string): Record<string, unknown>[] {
  return err
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => line.audit === true);
}
