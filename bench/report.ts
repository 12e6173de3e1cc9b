/**
 * The benchmark table: one row per target of issue 11, each with the figure, the baseline measured in
 * the same run, their ratio, the target and pass/fail. Printed as the bench ends and written to
 * BENCHMARKS.md with the date and the machine.
 */
import { writeFileSync } from 'node:fs';
import { cpus, platform, release } from 'node:os';

export interface Row {
  /** The issue's target number, e.g. "4". */
  target: string;
  name: string;
  /** The measured figure, with its unit. */
  figure: string;
  /** The baseline measured in the same run, with its unit; "—" for absolute targets. */
  baseline: string;
  /** figure ÷ baseline, when there is a baseline. */
  ratio: number | undefined;
  /** e.g. "≤ 1.5×" or "≤ 3". */
  goal: string;
  pass: boolean;
}

const rows: Row[] = [];

/** How many rows are recorded so far; with rowsFrom, the rows one measurement added. */
export const rowCount = () => rows.length;
export const rowsFrom = (index: number): Row[] => rows.slice(index);

export function record(row: Row): Row {
  rows.push(row);
  console.log(`[${row.target}] ${row.name}: ${row.figure} (baseline ${row.baseline}${row.ratio === undefined ? '' : `, ratio ${row.ratio.toFixed(2)}`}) target ${row.goal}: ${row.pass ? 'pass' : 'FAIL'}`);
  return row;
}

/** A row that could not be measured (the code it needs is missing or failed): shown as a failure with why. */
export function recordFailure(target: string, name: string, goal: string, error: unknown): Row {
  return record({ target, name, figure: `not measured: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`, baseline: '—', ratio: undefined, goal, pass: false });
}

export function machine(): string {
  const cores = cpus();
  return `Node ${process.version}, ${cores[0]?.model.trim() ?? 'unknown CPU'} × ${cores.length} cores, ${platform()} ${release()}`;
}

export function table(): string {
  const header = ['#', 'Measure', 'Figure', 'Baseline (same run)', 'Ratio', 'Target', 'Result'];
  const lines = rows.map((row) => [row.target, row.name, row.figure, row.baseline, row.ratio === undefined ? '—' : `${row.ratio.toFixed(2)}×`, row.goal, row.pass ? 'pass' : '**fail**']);
  const escape = (cell: string) => cell.replace(/\|/g, '\\|');
  return [header, header.map(() => '---'), ...lines].map((cells) => `| ${cells.map(escape).join(' | ')} |`).join('\n');
}

export function writeBenchmarks(path: string, notes: string): void {
  const date = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  const text = `# Benchmarks

Written by \`npm run bench\` on ${date}.
Machine: ${machine()}.

${table()}

${notes}
`;
  writeFileSync(path, text);
  console.log(`\n${table()}\n\nWritten to ${path}.`);
}

export function percentile(samples: readonly number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

export const median = (samples: readonly number[]) => percentile(samples, 50);

export const ms = (value: number) => `${value.toFixed(value < 10 ? 1 : 0)} ms`;
