/** `subops demo` in-process, as `npm run demo` runs it: the walkthrough script, and scripts that go wrong. */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';

async function subops(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  stderr.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
  const code = await main(argv, { env: { ISP_TIMEZONE: 'America/Guyana' }, stdout, stderr, stdin: new PassThrough() });
  return { code, out, err };
}

async function scriptFile(lines: string[]): Promise<string> {
  const path = join(await mkdtemp(join(tmpdir(), 'subops-demo-')), 'script.txt');
  await writeFile(path, `${lines.join('\n')}\n`);
  return path;
}

describe('subops demo --script', () => {
  it('runs the README walkthrough: a new customer, payments, suspend and unsuspend', async () => {
    const { code, out, err } = await subops(['demo', '--script', 'examples/walkthrough.txt']);
    expect(err).toBe('');
    expect(code).toBe(0);
    // The intro says what to try, from the simulator's data.
    expect(out).toContain('Try, from the sample data:');
    expect(out).toMatch(/\/activate 10\.20\.1\.51 Priya Ramnarine +LBE-Ramnarine → Priya Ramnarine \(#1002\), service 102 Quoted/);
    // Each command echoed after its prompt, then what SubOps did.
    expect(out).toContain('#support @agent> /activate 10.20.1.88 ada lovelace');
    expect(out).toMatch(/✅ Activated: client #\d+ Ada Lovelace, service #\d+, site "Ada Lovelace"\./);
    expect(out).toContain('#support @agent> /payments\n(only you) SubOps: Latest payments');
    expect(out).toMatch(/Totals\n {19}• GYD [\d,]+\.\d\d in \d+ payments/);
    expect(out).toContain('  Reason (1-4): Customer request');
    expect(out).toContain('✅ Done: service suspended.');
    expect(out).toContain('✅ Done: service unsuspended.');
    expect(out.match(/#subops-audit {2}SubOps: ✅/g)).toHaveLength(3);
    // No token or signing secret ever reaches the screen.
    expect(out).not.toMatch(/xox[a-z]-|[0-9a-f]{64}/);
  });

  it('plays an outage: a tower AP taken down gets its thread in the audit channel with the customers behind it, and its recovery', async () => {
    const { code, out, err } = await subops(['demo', '--script', 'examples/outage.txt']);
    expect(err).toBe('');
    expect(code).toBe(0);
    // The intro names the knobs and what to take down, from the sample data.
    expect(out).toContain('Demo commands (the simulated UISP, not SubOps):');
    expect(out).toMatch(/\/takedown diamond-ap1 +Diamond Tower's AP down: an outage thread in #subops-audit with its customers/);
    expect(out).toContain('#support @agent> /takedown diamond-ap1');
    // The watch's thread, posted by SubOps in the audit channel, names the device and whom it affects.
    const thread = out.slice(out.indexOf('#support @agent> /takedown diamond-ap1'), out.indexOf('#support @agent> /bringback diamond-ap1'));
    expect(thread).toMatch(/#subops-audit {2}SubOps: .*diamond-ap1/);
    expect(thread).toContain('Diamond Tower');
    expect(thread).toContain('Leon Hope');
    expect(thread).toContain('Marcus Baptiste');
    expect(thread).not.toContain('Ravi Persaud');
    // Acknowledged from the chat: said in the thread, once.
    expect(thread).toContain('#support @agent> /press Acknowledge');
    expect(thread.match(/@agent acknowledged: on it/g)).toHaveLength(1);
    // Back: said in the thread, and on the parent.
    const recovery = out.slice(out.indexOf('#support @agent> /bringback diamond-ap1'));
    expect(recovery).toMatch(/↳ SubOps: ✅ Back up .* after 3m\./);
    expect(recovery).toMatch(/#subops-audit {2}✎ updated: ✅ Outage: diamond-ap1 /);
    expect(out).not.toMatch(/xox[a-z]-|[0-9a-f]{48}/);
  });

  it('refuses to take down a device the simulated UISP does not have, naming the file and line', async () => {
    const { code, out } = await subops(['demo', '--script', await scriptFile(['/takedown no-such-ap'])]);
    expect(code).toBe(1);
    expect(out).toContain('✗ Script stopped at script.txt:1: No device “no-such-ap” in the simulated UISP: give an authorized device\'s name, e.g. diamond-ap1.');
  });

  it('stops with exit code 1 at a line the form cannot take, naming the file and line', async () => {
    const path = await scriptFile(['# a reason that does not exist', '/suspend 101', '/submit', 'Vacation', 'y']);
    const { code, out } = await subops(['demo', '--script', path]);
    expect(code).toBe(1);
    expect(out).toContain('✗ Script stopped at script.txt:4: Reason: Pick a number from 1 to 4, or type a choice.');
    expect(out).not.toContain('Confirm');
  });

  it('names links into its simulated UISP as the demo’s, without an address that stops answering with it', async () => {
    const { code, out } = await subops(['demo', '--script', await scriptFile(['/client 1005'])]);
    expect(code).toBe(0);
    expect(out).toContain("CRM: Open client #1005 (in the demo's simulated UISP: no page to open)");
    expect(out).not.toMatch(/http:\/\/127\.0\.0\.1:\d+\/crm/);
  });

  it('fails a script that ends while a form is still asking', async () => {
    const { code, out } = await subops(['demo', '--script', await scriptFile(['/payments add'])]);
    expect(code).toBe(1);
    expect(out).toContain('✗ Script stopped at script.txt:1: the script ended while the “Record payment” form asked for Client id.');
  });

  it('refuses what it cannot run before starting anything', async () => {
    expect(await subops(['demo', '--slow'])).toMatchObject({ code: 2, err: expect.stringContaining('--slow only applies to a --script.') });
    expect(await subops(['demo', '--script', 'no/such/file.txt'])).toMatchObject({ code: 2, err: expect.stringContaining('--script: cannot read no/such/file.txt (ENOENT).') });
    expect(await subops(['demo', '--help'])).toMatchObject({ code: 0, out: expect.stringContaining('Usage: subops demo') });
  });
});
