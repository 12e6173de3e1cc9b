/**
 * Activation speed with a realistic UISP round-trip time: the new-customer path must cost about five
 * round trips, not the fifteen-odd requests it makes, because independent requests go out together.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startUisp, type UispFixture } from '../test/support/uisp.js';
import { percentile, report } from './report.js';

const LATENCY_MS = 25;
const RUNS = 12;
let uisp: UispFixture;

beforeAll(async () => {
  uisp = await startUisp({ simulator: { latencyMs: LATENCY_MS } });
});
afterAll(async () => uisp.close());

it(`new-customer activation at ${LATENCY_MS} ms UISP latency`, async () => {
  const samples: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const started = performance.now();
    let outcome = '';
    // A fresh name each run: a new client, service and site every time, on the sample's discovered device.
    for await (const event of uisp.services.activation.run({ device: '10.20.1.88', firstName: 'bench', lastName: `customer ${String.fromCharCode(97 + run)}` })) {
      if (event.type === 'result') outcome = event.outcome;
    }
    expect(outcome).toBe('activated');
    samples.push(performance.now() - started);
  }
  const median = percentile(samples, 50);
  const budget = 5 * LATENCY_MS + 75;
  report('activation, new customer: median', median, 'ms', `≤ ${budget} ms (5 round trips + overhead)`);
  report('activation, new customer: p95', percentile(samples, 95), 'ms', 'informational');
  expect(median).toBeLessThanOrEqual(budget);
});
