/**
 * An activation waits on a bounded number of sequential UISP round trips (issue 19: measured, not
 * chased: at most 5 for the CLI, Slack at most one more for its re-read after a confirmation; a confirmed
 * delete one more again for its own read, issue #36). Counted by the simulator (`sequentialRoundTrips`: the longest chain of requests each
 * starting after the previous one ended). A simulated latency makes requests sent together overlap,
 * so the count is the critical-path depth; it can only overcount, never undercount.
 * The CLI path is `run()` with `--yes`'s confirmation (what `subops activate --yes` calls); the Slack
 * path goes from the form submission through the confirmation to the last UISP request.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ActivationResult } from '../../src/services/activation/types.js';
import { sequentialRoundTrips } from '../../src/simulator/index.js';
import { AUDIT_CHANNEL, inputs, shown, startHarness, type Harness } from '../slack/harness.js';
import { startUisp, type UispFixture } from '../support/uisp.js';

/** Well above the jitter of a busy machine, so requests sent together also arrive together. */
const LATENCY_MS = 80;

/**
 * `cli`/`slack`: the bounds. A new customer: the reads; the client; its read-back with the site; the
 * service with the site's read-back; the service's read-back with the authorization. A Quoted clean-up:
 * the reads; the client's services; the service read for its delete, with the site; the delete; the
 * service; the service's read-back with the authorization. The delete's own read is not the plan's: that
 * one may predate the run's hold on its keys, and a person may have turned the service Active since. Through Slack, a confirmation is read again (one round trip:
 * the client's services with the name lookup) before the run, which builds on that read.
 */
const WORLD = process.env.SUBOPS_SIMULATOR_WORLD ?? 'interface';

/**
 * What the NMS's filters change (src/services/network.ts). The interface document's NMS has none: a
 * process's first device question learns that from the answer and then reads the whole device list, one
 * round trip more (every case here is a fresh process). Where they are honoured, a client none of whose
 * services is bound to a site (Priya's Quoted one) has its sites proved from the whole site list, read
 * once its services are known: one round trip more for each read of the client (the interface world read
 * that list at the start): the CLI's one, and through Slack the confirmation's read again too.
 */
const more = (name: string, front: 'cli' | 'slack'): number => {
  if (WORLD === 'interface') return name === 'a new customer' ? 1 : 0;
  return name === 'a Quoted clean-up' ? (front === 'cli' ? 1 : 2) : 0;
};

const CASES = [
  { name: 'a new customer', device: '10.20.1.88', firstName: 'Ada', lastName: 'Lovelace', outcome: 'activated', cli: 5, slack: 5 },
  { name: 'a Quoted clean-up', device: '10.20.1.51', firstName: 'Priya', lastName: 'Ramnarine', outcome: 'activated', cli: 6, slack: 7 },
  { name: 'an already active customer', device: '10.20.1.21', firstName: 'Marcus', lastName: 'Baptiste', outcome: 'already-activated', cli: 2, slack: 2 },
] as const;

let uisp: UispFixture | undefined;
let h: Harness | undefined;
afterEach(async () => {
  await uisp?.close();
  await h?.close();
  uisp = h = undefined;
});

describe('activation round trips', () => {
  it.each(CASES)('CLI: $name takes at most $cli (and what the NMS filters change)', async ({ name, device, firstName, lastName, outcome, cli }) => {
    uisp = await startUisp({ simulator: { latencyMs: LATENCY_MS } });
    let result: ActivationResult | undefined;
    for await (const event of uisp.services.activation.run({ device, firstName, lastName }, { confirm: { deletes: 'any', moveFrom: 'any' } })) {
      if (event.type === 'result') result = event;
    }
    expect(result?.outcome).toBe(outcome);
    expect(sequentialRoundTrips(uisp.sim.requests)).toBeLessThanOrEqual(cli + more(name, 'cli'));
  });

  it.each(CASES)('Slack: $name takes at most $slack from the form submission, a confirmation included (and what the NMS filters change)', async ({ name, device, firstName, lastName, outcome, slack }) => {
    h = await startHarness({ simulator: { latencyMs: LATENCY_MS } });
    await h.command('/activate', `${device} ${firstName} ${lastName}`);
    const { id } = await h.openedView();
    const audited = h.fake.waitFor('chat.postMessage', (call) => call.args.channel === AUDIT_CHANNEL);
    await h.submit(id, inputs({ device, firstName, lastName }));
    if (CASES[1].device === device) {
      await h.viewBecomes(id, 'activate_confirm');
      await h.submit(id, {});
    }
    expect(shown((await audited).args as { text?: string; blocks?: unknown[] })).toContain(`: *${outcome}*`);
    expect(sequentialRoundTrips(h.uisp.sim.requests)).toBeLessThanOrEqual(slack + more(name, 'slack'));
  });
});
