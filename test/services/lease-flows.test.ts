/**
 * The activation lease as an agent meets it: a run that finds another SubOps run creating for the same
 * client writes nothing, says it waits, and goes on once that run lets go; a run that fails gives its
 * lease up. Against the simulator; the other run is played by entries in the client's CRM log.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { leaseMessage, releaseMessage } from '../../src/services/activation/lease.js';
import type { ActivationEvent, ActivationResult, StepEvent } from '../../src/services/activation/types.js';
import { stepSentence } from '../../src/render/activation.js';
import { crm } from '../simulator/helpers.js';
import { startUisp, type UispFixture } from '../support/uisp.js';

/** Short, and valid: a lease outlasts two write steps (retry window plus deadline, twice). */
const TIMING = { UISP_RETRY_WINDOW_MS: '500', UISP_DEADLINE_MS: '1000', ACTIVATION_LEASE_MS: '30000' };
/** Shanice Williams: an existing client with no service (sample data). */
const SHANICE = { device: '10.20.3.12', firstName: 'Shanice', lastName: 'Williams' };

let uisp: UispFixture | undefined;
afterEach(async () => {
  await uisp?.close();
  uisp = undefined;
});

const logWrites = () => uisp!.sim.requests.filter((r) => r.method === 'POST' && r.path === '/crm/api/v1.0/client-logs').map((r) => (r.body as { message: string }).message);

describe('the activation lease', () => {
  it('a run that finds another run creating for the client writes nothing, says it waits, and goes on once that run lets go', async () => {
    uisp = await startUisp({ env: TIMING });
    await crm(uisp.sim, 'POST', '/client-logs', { clientId: 1004, message: leaseMessage('other123') });
    const before = uisp.writes().length;

    const events: ActivationEvent[] = [];
    const run = uisp.services.activation.run(SHANICE);
    let waiting: StepEvent | undefined;
    // Step by step (a for-await that stops early would end the run).
    while (!waiting) {
      const next = await run.next();
      if (next.done) break;
      events.push(next.value);
      if (next.value.type === 'step' && next.value.status === 'waiting') waiting = next.value;
    }
    expect(waiting && stepSentence(waiting)).toMatch(/^Waiting for another SubOps activation of client #1004 Shanice Williams \(run other123, started \d+ s ago\) to finish; nothing is created meanwhile$/);
    expect(uisp.writes().slice(before)).toEqual([]);

    // The other run stops without creating anything.
    await crm(uisp.sim, 'POST', '/client-logs', { clientId: 1004, message: releaseMessage('other123') });
    for await (const event of run) events.push(event);
    const result = events.at(-1) as ActivationResult;
    expect(result).toMatchObject({ outcome: 'activated', client: { id: 1004 } });
    expect(uisp.sim.data.services.filter((s) => s.clientId === 1004 && s.status === 1)).toHaveLength(1);
    // Its own lease entry came after the other run's release, then the service.
    expect(logWrites()).toEqual([leaseMessage('other123'), releaseMessage('other123'), expect.stringMatching(/^SubOps activation subops:lease subops:run=\w+$/)]);
  });

  it('a run whose service UISP refuses gives its lease up; one whose service may still land keeps it', async () => {
    uisp = await startUisp({ env: TIMING, simulator: { faults: [{ method: 'POST', path: /\/services$/, kind: 'status', status: 422, times: 1 }] } });
    const refused = await last(uisp.services.activation.run(SHANICE));
    expect(refused).toMatchObject({ outcome: 'failed', failedStep: 'service' });
    expect(logWrites()).toEqual([expect.stringMatching(/subops:lease subops:run=/), expect.stringMatching(/subops:lease-released subops:run=/)]);
    await uisp.close();

    // No answer within the deadline, and UISP applies it later: reading showed nothing, yet it may still land.
    uisp = await startUisp({ env: { ...TIMING, UISP_WRITE_RETRIES: '0' }, simulator: { faults: [{ method: 'POST', path: /\/services$/, kind: 'late', delayMs: 1_500, times: 1 }] } });
    const unknown = await last(uisp.services.activation.run(SHANICE));
    expect(unknown).toMatchObject({ outcome: 'failed', failedStep: 'service' });
    expect(logWrites()).toEqual([expect.stringMatching(/subops:lease subops:run=/)]);
    await uisp.sim.settled();
  });
});

async function last(run: AsyncGenerator<ActivationEvent>): Promise<ActivationResult> {
  let result: ActivationEvent | undefined;
  for await (const event of run) result = event;
  return result as ActivationResult;
}
