/**
 * Payment listing over a large history: throughput, and memory bounded by one page (≤ 500 payments)
 * rather than by the number of payments counted.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startUisp, type UispFixture } from '../test/support/uisp.js';
import { heapUsedMb, report } from './report.js';

const PAYMENTS = 60_000;
let uisp: UispFixture;

beforeAll(async () => {
  uisp = await startUisp();
  const { payments } = uisp.sim.data;
  const template = payments[0]!;
  const start = Date.parse('2025-01-01T00:00:00Z');
  payments.length = 0;
  for (let id = 1; id <= PAYMENTS; id++) {
    payments.push({ ...template, id, clientId: 1001 + (id % 6), amount: 1000 + (id % 9) * 500, createdDate: new Date(start + id * 60_000).toISOString().replace('Z', '+0000').replace(/\.\d{3}/, '') });
  }
});
afterAll(async () => uisp.close());

const summarize = () => uisp.services.payments.summarize({ from: '2025-01-01', to: '2026-12-31', show: 20 });

it(`summarize ${PAYMENTS.toLocaleString('en-US')} payments: throughput`, async () => {
  const started = performance.now();
  const summary = await summarize();
  const seconds = (performance.now() - started) / 1000;
  expect(summary.count).toBe(PAYMENTS);
  expect(summary.payments).toHaveLength(20);
  report('payments summary: throughput', PAYMENTS / seconds, 'payments/s', '≥ 10000');
  report('payments summary: UISP pages fetched', uisp.sim.requests.filter((r) => r.path.endsWith('/payments')).length, 'requests', `${Math.ceil(PAYMENTS / 500) + 1} (limit 500)`);
  expect(PAYMENTS / seconds).toBeGreaterThanOrEqual(10_000);
});

it(`summarize ${PAYMENTS.toLocaleString('en-US')} payments: live memory`, async () => {
  // Heap after a full GC, sampled while the summary streams: what is really held, not garbage yet to
  // be collected. The simulator's own data is in the baseline.
  const baseline = heapUsedMb();
  let peak = baseline;
  const timer = setInterval(() => (peak = Math.max(peak, heapUsedMb())), 10);
  const summary = await summarize();
  clearInterval(timer);
  expect(summary.count).toBe(PAYMENTS);
  report('payments summary: peak live heap growth', peak - baseline, 'MB', '≤ 4 MB (holding all 60,000 payments measures ~17 MB)');
  expect(peak - baseline).toBeLessThanOrEqual(4);
});
