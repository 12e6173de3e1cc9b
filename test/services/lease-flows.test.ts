/**
 * The activation lease from the outside (src/services/activation/lease.ts): a run that finds another
 * run's live lease on a client writes nothing until that lease is released or runs out; a run that
 * failed lets its lease go unless a create of its may still land; and two processes activating the
 * same Quoted customer at once leave one Active service and one site. What UISP received is read from
 * the simulator's request log; what the runs report, through the renderer (worded results).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { loggedAt } from '../../src/services/activation/lease.js';
import type { ActivationEvent, ActivationRequest, StepEvent } from '../../src/services/activation/types.js';
import { stepSentence } from '../../src/render/activation.js';
import type { Services } from '../../src/services/container.js';
import { ClientLogSchema, type ClientLog } from '../../src/services/uisp/schemas.js';
import { startSimulator, type RecordedRequest, type RunningSimulator } from '../../src/simulator/index.js';
import { activate, containers } from '../support/fleet.js';
import { startUisp, type UispFixture } from '../support/uisp.js';

/** Shanice Williams (1004) has no service; her discovered radio is LiteBeam-Williams. */
const WILLIAMS: ActivationRequest = { device: '10.20.3.12', firstName: 'Shanice', lastName: 'Williams' };
/** Priya Ramnarine (1002) has the Quoted service 102; her discovered radio is LBE-Ramnarine. */
const RAMNARINE: ActivationRequest = { device: '10.20.1.51', firstName: 'Priya', lastName: 'Ramnarine' };

/** Settings small enough for a lease to run out within a test, and valid (the lease outlasts two waves of writes). */
const SHORT_LEASE = { UISP_RETRY_WINDOW_MS: '250', UISP_DEADLINE_MS: '1000', ACTIVATION_LEASE_MS: '4000' };
const LEASE_MS = Number(SHORT_LEASE.ACTIVATION_LEASE_MS);

let uisp: UispFixture | undefined;
let sim: RunningSimulator | undefined;
let open: Services[] = [];
afterEach(async () => {
  await uisp?.close();
  await Promise.all(open.map((s) => s.close()));
  await sim?.close();
  uisp = sim = undefined;
  open = [];
});

/** Appends an entry to a client's CRM log the way another SubOps process would: over HTTP. */
async function postClientLog(target: RunningSimulator, clientId: number, message: string): Promise<ClientLog> {
  const response = await fetch(`${target.url}/crm/api/v1.0/client-logs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-auth-token': target.token },
    body: JSON.stringify({ clientId, message }),
  });
  expect(response.status).toBe(201);
  return ClientLogSchema.parse(await response.json());
}

const OTHER_LEASE = 'SubOps activation subops:lease subops:run=other123';
const OTHER_RELEASE = 'SubOps activation stopped subops:lease-released subops:run=other123';

/** Resolves once `done` holds, checking again as each request reaches the simulator (a signal, not a sleep). */
async function until(target: RunningSimulator, done: () => boolean): Promise<void> {
  while (!done()) await target.received(target.requests.length + 1);
}

const isLogRead = (r: RecordedRequest) => r.method === 'GET' && r.path.endsWith('/client-logs') && r.query.clientId === '1004';
/** The requests that change something, except the log entries this test wrote for the run "other123". */
const runWrites = (target: RunningSimulator) => target.requests.filter((r) => r.method !== 'GET' && !JSON.stringify(r.body ?? '').includes('subops:run=other123'));
const servicePosts = (target: RunningSimulator) => target.requests.filter((r) => r.method === 'POST' && /\/clients\/\d+\/services$/.test(r.path));
/** performance.now() of a request as ms since the epoch, the clock of the CRM's dates. */
const epochOf = (ms: number) => performance.timeOrigin + ms;

describe('the activation lease', () => {
  it("waits, writing nothing, while another run's live lease holds the client; once it is released, activates", async () => {
    uisp = await startUisp();
    const { sim: s } = uisp;
    await postClientLog(s, 1004, OTHER_LEASE);

    const running = activate(uisp.services, WILLIAMS);
    // The plan's read of the log, then at least one poll while waiting.
    await until(s, () => s.requests.filter(isLogRead).length >= 2);
    expect(runWrites(s)).toEqual([]);

    await postClientLog(s, 1004, OTHER_RELEASE);
    const result = await running;

    expect(result.outcome).toBe('activated');
    expect(result.client).toMatchObject({ id: 1004 });
    expect(servicePosts(s)).toHaveLength(1);
    const services = s.data.services.filter((x) => x.clientId === 1004);
    expect(services).toEqual([expect.objectContaining({ status: 1, id: result.service!.id })]);
    // Its own lease entry went in before the service; it released nothing (it succeeded).
    const ownEntries = s.data.clientLogs.filter((l) => l.clientId === 1004 && !l.message.includes('other123')).map((l) => l.message);
    expect(ownEntries).toEqual([expect.stringMatching(/^SubOps activation subops:lease subops:run=[\w-]+$/)]);
    expect(result.done).toEqual([expect.stringMatching(/^Created Active service #\d+/), 'Created NMS site "Shanice Williams"', 'Authorized LiteBeam-Williams onto site "Shanice Williams"']);
  });

  it('says in the thread (and the terminal) that it waits, and for which run', async () => {
    uisp = await startUisp();
    await postClientLog(uisp.sim, 1004, OTHER_LEASE);
    const run = uisp.services.activation.run(WILLIAMS);
    let waiting: StepEvent | undefined;
    // Event by event: a for-await that stopped early would end the run.
    while (!waiting) {
      const next = await run.next();
      if (next.done) break;
      if (next.value.type === 'step' && next.value.status === 'waiting') waiting = next.value;
    }
    expect(waiting && stepSentence(waiting)).toMatch(/^Waiting for another SubOps activation of client #1004 Shanice Williams \(run other123, started \d+ s ago\) to finish; nothing is created meanwhile$/);
    await postClientLog(uisp.sim, 1004, OTHER_RELEASE);
    let last: ActivationEvent | undefined;
    for await (const event of run) last = event;
    expect(last).toMatchObject({ type: 'result', outcome: 'activated' });
  });

  it('waits out a lease nobody releases: writes nothing before it expires, then activates once', async () => {
    uisp = await startUisp({ env: SHORT_LEASE });
    const { sim: s } = uisp;
    const entry = await postClientLog(s, 1004, OTHER_LEASE);
    const expiresAt = loggedAt(entry)! + LEASE_MS;

    const result = await activate(uisp.services, WILLIAMS);

    expect(result.outcome).toBe('activated');
    expect(servicePosts(s)).toHaveLength(1);
    expect(s.data.services.filter((x) => x.clientId === 1004)).toEqual([expect.objectContaining({ status: 1, id: result.service!.id })]);
    expect(s.requests.filter((r) => r.method === 'DELETE')).toEqual([]);
    const writes = runWrites(s);
    expect(writes.length).toBeGreaterThan(0);
    for (const write of writes) expect(epochOf(write.startedAt)).toBeGreaterThanOrEqual(expiresAt);
    // It kept looking while it waited.
    expect(s.requests.filter(isLogRead).length).toBeGreaterThan(2);
  });

  it('a holder that keeps renewing its lease: the waiting run gives up after a lease’s length with client-busy, having written nothing', async () => {
    uisp = await startUisp({ env: SHORT_LEASE });
    const { sim: s } = uisp;
    await postClientLog(s, 1004, OTHER_LEASE);

    const running = activate(uisp.services, WILLIAMS);
    const ended = running.then(() => false);
    // The holder takes a fresh entry each time the waiting run looks: the lowest live entry is always its.
    for (let seen = 1; ; seen++) {
      const looked = until(s, () => s.requests.filter(isLogRead).length > seen).then(() => true);
      if (!(await Promise.race([looked, ended]))) break;
      await postClientLog(s, 1004, OTHER_LEASE);
    }
    const result = await running;
    // It gave up only after waiting as long as a lease lasts.
    expect(performance.now() - s.requests.find(isLogRead)!.startedAt).toBeGreaterThanOrEqual(LEASE_MS);

    expect(result.outcome).toBe('failed');
    expect(result.error).toMatchObject({ code: 'client-busy' });
    expect(result.error!.message).toMatch(
      /^Another SubOps activation of client #1004 Shanice Williams \(run other123, started \d+ s ago\) has not finished, so this one does not create a second service\. Try again once it is done\. If that run has stopped, the client is free again at \d{2}:\d{2}:\d{2} UTC\. /,
    );
    expect(runWrites(s)).toEqual([]);
    expect(s.data.services.filter((x) => x.clientId === 1004)).toEqual([]);
  });

  it('a run whose service creation is refused lets its lease go', async () => {
    uisp = await startUisp();
    const { sim: s } = uisp;
    s.setFaults([{ method: 'POST', path: /\/clients\/1004\/services$/, kind: 'status', status: 422 }]);

    const result = await activate(uisp.services, WILLIAMS);

    expect(result).toMatchObject({ outcome: 'failed', failedStep: 'service' });
    const messages = s.data.clientLogs.filter((l) => l.clientId === 1004).map((l) => l.message);
    const run = /subops:run=([\w-]+)/.exec(messages[0] ?? '')?.[1];
    expect(messages).toEqual([`SubOps activation subops:lease subops:run=${run}`, `SubOps activation stopped subops:lease-released subops:run=${run}`]);
    expect(s.data.services.filter((x) => x.clientId === 1004)).toEqual([]);
  });

  it.each([
    // UISP applies the create after the run has stopped waiting for its answer.
    { lost: 'applied late', reset: false },
    // UISP applies it and the answer is lost; the read that would find it fails too.
    { lost: 'answer lost, read failing', reset: true },
  ])('a run whose service creation gets no answer ($lost) keeps its lease: the create may still land', async ({ reset }) => {
    uisp = await startUisp({ env: { ...SHORT_LEASE, UISP_WRITE_RETRIES: '0', UISP_RETRIES: '0', UISP_DEADLINE_MS: '300' } });
    const { sim: s } = uisp;
    const creates = /\/clients\/1004\/services$/;
    if (!reset) s.setFaults([{ method: 'POST', path: creates, kind: 'late', delayMs: 600 }]);

    const running = activate(uisp.services, WILLIAMS);
    if (reset) {
      // Armed once the plan has read the services (with the lease entry's arrival), so only the read after the create fails.
      await until(s, () => s.requests.some((r) => r.method === 'POST' && r.path.endsWith('/client-logs')));
      s.setFaults([
        { method: 'POST', path: creates, kind: 'reset', phase: 'after' },
        { method: 'GET', path: creates, kind: 'status', status: 503 },
      ]);
    }
    const result = await running;
    await s.settled();

    expect(result).toMatchObject({ outcome: 'failed', failedStep: 'service' });
    expect(result.error!.message).toMatch(/^CRM POST \/crm\/api\/v1\.0\/clients\/1004\/services: /);
    const messages = s.data.clientLogs.filter((l) => l.clientId === 1004).map((l) => l.message);
    expect(messages).toEqual([expect.stringMatching(/^SubOps activation subops:lease subops:run=[\w-]+$/)]);
    // The create did land: the lease, still held, is what keeps another run from making a second one.
    expect(s.data.services.filter((x) => x.clientId === 1004)).toHaveLength(1);
    expect(result.notDone).toEqual(['create the Active service']);

    // A run right after finds the service that landed (its maker's lease notwithstanding) and makes no second one.
    s.setFaults([]);
    const again = await activate(uisp.services, WILLIAMS);
    expect(again.outcome).toBe('already-activated');
    expect(servicePosts(s)).toHaveLength(1);
    expect(s.data.services.filter((x) => x.clientId === 1004)).toHaveLength(1);
  });

  it('two processes activating the same Quoted customer at once: one Active service, the Quoted one deleted, one site, the same report', async () => {
    sim = await startSimulator({ latencyMs: 3 });
    open = containers(sim, 2);
    const s = sim;

    const results = await Promise.all(open.map((services) => activate(services, RAMNARINE, { deletes: [102] })));

    expect(results.map((r) => r.error?.message)).toEqual([undefined, undefined]);
    const services = s.data.services.filter((x) => x.clientId === 1002);
    expect(services).toEqual([expect.objectContaining({ status: 1 })]);
    const kept = services[0]!;
    expect(s.data.services.some((x) => x.id === 102)).toBe(false);
    // The Quoted service is reported deleted once, by one run.
    // Both runs sent the delete with their lease entries (neither knew of the other yet); UISP applied one.
    const deletes = s.requests.filter((r) => r.method === 'DELETE' && r.path.endsWith('/services/102'));
    expect(deletes.filter((r) => r.status === 200)).toHaveLength(1);
    expect(deletes.filter((r) => r.status !== 200 && r.status !== 404)).toEqual([]);
    const sites = s.data.sites.filter((x) => x.identification.name === 'Priya Ramnarine');
    expect(sites).toHaveLength(1);
    for (const result of results) expect(result).toMatchObject({ client: { id: 1002 }, service: { id: kept.id }, site: { id: sites[0]!.id } });
    const device = s.data.devices.find((d) => d.identification.name === 'LBE-Ramnarine')!;
    expect(device.identification).toMatchObject({ authorized: true, site: { id: sites[0]!.id } });
  });
});
