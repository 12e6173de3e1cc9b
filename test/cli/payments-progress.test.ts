/**
 * Progress of long payment reads on a terminal: the line itself (throttled by an injected clock, \r on a
 * terminal, nothing elsewhere), then `subops payments` listing and exporting with stderr as a terminal
 * (an injected isTTY flag) and a clock that moves only when read.
 */
import { PassThrough, Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { progressLine, PROGRESS_INTERVAL_MS } from '../../src/cli/progress.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';

/** A stream that keeps what it is given as it is written; `isTTY` as injected. */
function capture(isTTY: boolean): Writable & { text: () => string; isTTY: boolean } {
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString('utf8');
      done();
    },
  });
  return Object.assign(stream, { isTTY, text: () => text });
}

describe('progressLine', () => {
  it('on a terminal: nothing before the interval, then one \\r-redrawn line at most every interval, kept as a line at the end', () => {
    const stream = capture(true);
    let t = 10_000;
    const progress = progressLine(stream, { now: () => t });
    let n = 0;
    const text = () => `step ${++n}`;
    t += PROGRESS_INTERVAL_MS - 1;
    progress.update(text);
    expect(stream.text()).toBe('');
    t += 1;
    progress.update(text);
    t += 100;
    progress.update(text);
    progress.update(text);
    t += PROGRESS_INTERVAL_MS - 100;
    progress.update(text);
    progress.done(() => `done after ${progress.elapsed()}`);
    // Each drawn state starts with \r and clears what a longer one left; describe runs only when drawn.
    expect(stream.text()).toBe('\rstep 1\x1b[K\rstep 2\x1b[K\rdone after 1.0 s\x1b[K\n');
  });

  it('a quick piece of work shows nothing, not even at the end', () => {
    const stream = capture(true);
    let t = 0;
    const progress = progressLine(stream, { now: () => t });
    t += 499;
    progress.update(() => 'reading');
    progress.done(() => 'read');
    expect(stream.text()).toBe('');
  });

  it('not on a terminal: nothing, however long it takes', () => {
    const stream = capture(false);
    let t = 0;
    const progress = progressLine(stream, { now: () => t });
    for (let i = 0; i < 10; i++) {
      t += 1_000;
      progress.update(() => 'reading');
    }
    progress.done(() => 'read');
    expect(stream.text()).toBe('');
  });

  it('text from elsewhere is shown escaped: it cannot move the cursor', () => {
    const stream = capture(true);
    let t = 0;
    const progress = progressLine(stream, { now: () => t });
    t += 1_000;
    progress.update(() => 'a\nb\x1b[2J');
    expect(stream.text()).toBe('\ra\\nb\\x1b[2J\x1b[K');
  });
});

describe('subops payments on a terminal', () => {
  let sim: RunningSimulator;
  beforeAll(async () => {
    sim = await startSimulator();
  });
  afterAll(async () => sim?.close());

  /** Runs the CLI with stdout and stderr as terminals or not, and a clock that moves 600 ms at every reading. */
  async function run(argv: string[], terminal: { stdout: boolean; stderr: boolean }, step = 600) {
    const stdout = capture(terminal.stdout);
    const stderr = capture(terminal.stderr);
    let t = 0;
    const io = { env: { UISP_URL: sim.url, UISP_TOKEN: sim.token, ISP_TIMEZONE: 'America/Guyana' }, stdout, stderr, stdin: new PassThrough(), now: () => (t += step) };
    const code = await main(argv, io);
    return { code, out: stdout.text(), err: stderr.text() };
  }

  const pages = () => Math.ceil(sim.data.payments.length / 500);
  const count = () => sim.data.payments.length.toLocaleString('en-US');

  it('a listing with totals shows pages read and payments counted on stderr, then the final state as a line; stdout is the listing alone', async () => {
    const { code, out, err } = await run(['payments', '--from', '2000-01-01', '--limit', '2'], { stdout: true, stderr: true });
    expect(code).toBe(0);
    expect(err).toMatch(new RegExp(`^\\rReading payments: 1 page read, 500 payments counted, \\d+\\.\\d s\\x1b\\[K`));
    expect(err).toContain('\rReading payments: 2 pages read, 1,000 payments counted, ');
    expect(err).toMatch(new RegExp(`\\rReading payments: ${pages()} pages read, ${count()} payments counted, \\d+\\.\\d s\\x1b\\[K\\n$`));
    expect(out).toMatch(/^Payments for all clients, 2000-01-01 to \d{4}-\d\d-\d\d: \d+ payments\n/);
    expect(out).not.toContain('Reading');
  });

  it('a quick listing shows nothing (the clock does not reach the interval)', async () => {
    const { code, err } = await run(['payments', '--from', '2000-01-01', '--limit', '2'], { stdout: true, stderr: true }, 0);
    expect(code).toBe(0);
    expect(err).toBe('');
  });

  it('not on a terminal (a pipe, a file, cron): no progress at all', async () => {
    const listing = await run(['payments', '--from', '2000-01-01', '--limit', '2'], { stdout: false, stderr: false });
    expect(listing.err).toBe('');
    const exported = await run(['payments', '--from', '2000-01-01', '--csv'], { stdout: false, stderr: false });
    expect(exported.err).toBe('');
    expect(exported.out.trimEnd().split('\n')).toHaveLength(sim.data.payments.length + 1);
  });

  it('an export to a file from a terminal shows pages read and rows written; the file gets only the CSV', async () => {
    const { code, out, err } = await run(['payments', '--from', '2000-01-01', '--csv'], { stdout: false, stderr: true });
    expect(code).toBe(0);
    expect(err).toContain('\rExporting payments: 1 page read, 500 rows written, ');
    expect(err).toMatch(new RegExp(`\\rExporting payments: ${pages()} pages read, ${count()} rows written, \\d+\\.\\d s\\x1b\\[K\\n$`));
    expect(out.trimEnd().split('\n')).toHaveLength(sim.data.payments.length + 1);
    expect(out).not.toContain('Exporting');
    // --json too.
    const json = await run(['payments', '--from', '2000-01-01', '--json', '--limit', '3'], { stdout: false, stderr: true });
    expect(json.err).toMatch(new RegExp(`\\rExporting payments: 1 page read, 3 rows written, \\d+\\.\\d s\\x1b\\[K\\n$`));
  });

  it('an export whose rows go to the same terminal shows no progress line among them', async () => {
    const { code, out, err } = await run(['payments', '--from', '2000-01-01', '--csv', '--limit', '1200'], { stdout: true, stderr: true });
    expect(code).toBe(0);
    expect(err).toBe('');
    expect(out.trimEnd().split('\n')).toHaveLength(1201);
  });
});
