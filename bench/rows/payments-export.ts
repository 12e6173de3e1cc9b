/**
 * Row 5: `subops payments --csv` over 100 000 payments with UISP answering each page in 50 ms, as a
 * child process (so its peak RSS is its own): pages read ahead (the default) against strictly
 * sequential paging (UISP_PAGES_IN_FLIGHT=1), runs alternating.
 */
import { record, median, ms } from '../report.js';
import { ROOT, startStage, SUBOPS, timeChild } from '../support.js';

const PAYMENTS = 100_000;
const PAGE_LATENCY_MS = 50;
const RUNS = 2;

export async function paymentsExport(): Promise<void> {
  const stage = await startStage({ latencyMs: PAGE_LATENCY_MS });
  try {
    const { payments } = stage.sim.data;
    const template = payments[0]!;
    const start = Date.parse('2024-01-01T00:00:00Z');
    payments.length = 0;
    for (let id = 1; id <= PAYMENTS; id++) {
      payments.push({ ...template, id, clientId: 1001 + (id % 6), amount: 1000 + (id % 9) * 500, createdDate: new Date(start + id * 60_000).toISOString().replace(/\.\d{3}Z$/, '+0000') });
    }
    const exportCsv = async (pagesInFlight: string) => {
      const run = await timeChild(['--import', `${ROOT}bench/peak-rss.js`, SUBOPS, 'payments', '--csv', '--from', '2000-01-01', '--to', '2099-12-31'], {
        env: { UISP_URL: stage.sim.url, UISP_TOKEN: stage.sim.token, UISP_PAGES_IN_FLIGHT: pagesInFlight },
      });
      if (run.code !== 0 || run.stdoutLines !== PAYMENTS + 1) throw new Error(`payments --csv exited ${run.code} after ${run.stdoutLines} lines: ${run.stderr}`);
      return { ms: run.ms, peakMb: Number(/peak-rss-kb (\d+)/.exec(run.stderr)?.[1]) / 1024 };
    };
    const ahead: { ms: number; peakMb: number }[] = [];
    const sequential: { ms: number; peakMb: number }[] = [];
    for (let run = 0; run < RUNS; run++) {
      sequential.push(await exportCsv('1'));
      ahead.push(await exportCsv(''));
    }
    const wall = median(ahead.map((r) => r.ms));
    const baseline = median(sequential.map((r) => r.ms));
    record({
      target: '5',
      name: `\`payments --csv\`, ${PAYMENTS.toLocaleString('en-US')} payments, ${PAGE_LATENCY_MS} ms per page: wall time`,
      figure: ms(wall),
      baseline: `${ms(baseline)} (strictly sequential)`,
      ratio: wall / baseline,
      goal: '≤ 0.35×',
      pass: wall / baseline <= 0.35,
    });
    const peak = Math.max(...ahead.map((r) => r.peakMb));
    record({ target: '5', name: 'the same export: peak RSS of the CLI process', figure: `${peak.toFixed(0)} MB`, baseline: '—', ratio: undefined, goal: '≤ 150 MB', pass: peak <= 150 });
  } finally {
    await stage.close();
  }
}
