/**
 * The outage watch (issue #40), without Slack: what it reports, once, across two processes sharing a
 * store, and what it reports nothing about (short outages, UISP not answering). The simulator's clock is
 * UISP's; the watch's clock is the test's, moved by hand, earlier today.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { OutageWatch, type OutageEvent, type ReportedOutage } from '../../src/services/events/outage-watch.js';
import { createLogger } from '../../src/logging.js';
import { WORLD_FILTERS, worldFromEnv, type SimulatorFilter } from '../../src/simulator/world.js';
import { Memory } from '../../src/store/kv.js';
import { storeOnKv } from '../../src/store/index.js';
import { startUisp, type UispFixture } from '../support/uisp.js';

const DIAMOND_AP = '1c0f5e8b-2a3d-4b4c-9e6f-7d8a9b0c1d02';
const ENMORE_AP = '2d1a6f9c-3b4e-4c5d-8f7a-8e9b0c1d2e03';
const DIAMOND_STATION = 'd2e3f4a5-b6c7-4d8e-9fa0-1b2c3d4e5f13';

const world = worldFromEnv();
const withOutages: readonly SimulatorFilter[] = [...new Set([...WORLD_FILTERS[world], 'outages' as const])];

const fixtures: UispFixture[] = [];
afterEach(async () => {
  for (const fixture of fixtures.splice(0)) await fixture.close();
});

/** A day two days ago (UTC): every time of it is past, as the simulator lists outages up to its own now. */
const today = new Date(Date.now() - 2 * 86_400_000).toISOString().slice(0, 10);
const at = (time: string) => Date.parse(`${today}T${time}:00Z`);
const clockAt = (time: string) => ({ ms: at(time) });

async function start(filters: readonly SimulatorFilter[] = withOutages) {
  const fixture = await startUisp({ simulator: { world, filters } });
  fixtures.push(fixture);
  return fixture;
}

/** One SubOps process's watch on a shared store, recording what it reports; threads are numbered. */
function process(fixture: UispFixture, memory: Memory, clock: { ms: number }, found: () => ReportedOutage[] = () => []) {
  const events: OutageEvent[] = [];
  const store = storeOnKv(memory, { now: () => clock.ms });
  const watch = new OutageWatch({ nms: fixture.services.nms, outages: fixture.services.outages, claims: store.claims, logger: createLogger('silent'), minMs: 2 * 60_000, now: () => clock.ms });
  watch.reportTo(
    async (event) => {
      events.push(event);
      return event.kind === 'began' ? { channel: 'C0OUTAGES', ts: `${events.length}.000` } : null;
    },
    async () => found(),
  );
  return { watch, events, said: () => events.map(told) };
}

const told = (event: OutageEvent): string => {
  switch (event.kind) {
    case 'began':
      return `began ${event.outage.device?.name} at ${event.outage.site?.name} since ${event.outage.since.slice(11, 16)}: ${event.outage.affected.map((c) => c.name).join(', ')}`;
    case 'ended':
      return `ended ${event.outage.device?.name} at ${event.end.slice(11, 16)}${event.endKnown ? '' : ' (end not known)'} in ${event.thread?.ts ?? 'the channel'}`;
    case 'flapping':
      return `flapping ${event.outage.device?.name} ${event.times} times, ${Math.round(event.downMs / 1000)} s down`;
  }
};

describe(`the outage watch (${world} world)`, () => {
  it('reports a tower AP down once it has lasted two minutes, with exactly the customers below it, and its recovery in its thread', async () => {
    const fixture = await start();
    const clock = clockAt('14:00');
    const bot = process(fixture, new Memory(), clock);
    fixture.sim.takeDown(DIAMOND_AP, new Date(at('14:02')));
    clock.ms = at('14:03');
    await bot.watch.poll();
    expect(bot.said()).toEqual([]);
    clock.ms = at('14:05');
    await bot.watch.poll();
    await bot.watch.poll();
    expect(bot.said()).toEqual(['began diamond-ap1 at Diamond Tower since 14:02: Leon Hope, Marcus Baptiste']);
    fixture.sim.bringBack(DIAMOND_AP, new Date(at('15:07')));
    clock.ms = at('15:08');
    await bot.watch.poll();
    await bot.watch.poll();
    expect(bot.said()).toEqual(['began diamond-ap1 at Diamond Tower since 14:02: Leon Hope, Marcus Baptiste', 'ended diamond-ap1 at 15:07 in 1.000']);
  });

  it("two towers down are two outages, each with its own customers; one site's devices down together are one", async () => {
    const fixture = await start();
    const clock = clockAt('14:00');
    const bot = process(fixture, new Memory(), clock);
    fixture.sim.takeDown(DIAMOND_AP, new Date(at('14:01')));
    fixture.sim.takeDown(DIAMOND_STATION, new Date(at('14:01')));
    fixture.sim.takeDown(ENMORE_AP, new Date(at('14:02')));
    clock.ms = at('14:10');
    await bot.watch.poll();
    expect(bot.said().sort()).toEqual(['began diamond-ap1 at Diamond Tower since 14:01: Leon Hope, Marcus Baptiste', 'began enmore-ap1 at Enmore Tower since 14:02: Ravi Persaud']);
    const diamond = bot.events.find((e) => e.kind === 'began' && e.outage.device?.name === 'diamond-ap1');
    expect(diamond?.kind === 'began' && diamond.outage.devicesDown).toBe(2);
  });

  it('a short outage is not reported; three within the hour are reported once as flapping, with their total', async () => {
    const fixture = await start();
    const clock = clockAt('14:00');
    const bot = process(fixture, new Memory(), clock);
    const blip = async (down: string, up: string, seen: string) => {
      fixture.sim.takeDown(DIAMOND_AP, new Date(`${today}T${down}Z`));
      fixture.sim.bringBack(DIAMOND_AP, new Date(`${today}T${up}Z`));
      clock.ms = Date.parse(`${today}T${seen}Z`);
      await bot.watch.poll();
    };
    await blip('14:00:10', '14:00:40', '14:01:00');
    await blip('14:05:00', '14:05:50', '14:06:00');
    expect(bot.said()).toEqual([]);
    await blip('14:10:00', '14:11:00', '14:11:30');
    await blip('14:20:00', '14:20:20', '14:21:00');
    expect(bot.said()).toEqual(['flapping diamond-ap1 3 times, 140 s down']);
  });

  it('two processes on one store: only the owner polls, and a takeover after its stop neither reports again nor loses the thread', async () => {
    const fixture = await start();
    const memory = new Memory();
    const clock = clockAt('14:00');
    const first = process(fixture, memory, clock);
    const second = process(fixture, memory, clock, () => first.watch.reported());
    fixture.sim.takeDown(DIAMOND_AP, new Date(at('14:02')));
    clock.ms = at('14:06');
    await first.watch.poll();
    await second.watch.poll();
    expect(first.said()).toHaveLength(1);
    expect(second.said()).toEqual([]);
    expect(second.watch.health().state).toBe('standby');
    await first.watch.handOver();
    fixture.sim.bringBack(DIAMOND_AP, new Date(at('14:30')));
    clock.ms = at('14:31');
    await second.watch.poll();
    await first.watch.poll();
    expect(second.said()).toEqual(['ended diamond-ap1 at 14:30 in 1.000']);
    expect(first.said()).toHaveLength(1);
  });

  it('an outage that began while SubOps was stopped is reported with its real start; one that began and ended meanwhile is not', async () => {
    const fixture = await start();
    fixture.sim.takeDown(ENMORE_AP, new Date(at('09:00')));
    fixture.sim.bringBack(ENMORE_AP, new Date(at('09:40')));
    fixture.sim.takeDown(DIAMOND_AP, new Date(at('10:15')));
    const bot = process(fixture, new Memory(), clockAt('11:00'));
    await bot.watch.poll();
    expect(bot.said()).toEqual(['began diamond-ap1 at Diamond Tower since 10:15: Leon Hope, Marcus Baptiste']);
  });

  it('a restarted process finds its open outage and reports the recovery that happened while it was stopped, with its real end', async () => {
    const fixture = await start();
    const memory = new Memory();
    const clock = clockAt('14:00');
    const before = process(fixture, memory, clock);
    fixture.sim.takeDown(DIAMOND_AP, new Date(at('14:02')));
    clock.ms = at('14:06');
    await before.watch.poll();
    const posted = before.watch.reported();
    await before.watch.handOver();
    fixture.sim.bringBack(DIAMOND_AP, new Date(at('14:20')));
    clock.ms = at('16:00');
    const after = process(fixture, memory, clock, () => posted);
    await after.watch.poll();
    expect(after.said()).toEqual(['ended diamond-ap1 at 14:20 in 1.000']);
  });

  it('UISP not answering: said once, nothing reported (no "back up" for what it could not read), caught up when it answers', async () => {
    const fixture = await start();
    const clock = clockAt('14:00');
    const bot = process(fixture, new Memory(), clock);
    fixture.sim.takeDown(DIAMOND_AP, new Date(at('14:02')));
    clock.ms = at('14:06');
    await bot.watch.poll();
    expect(bot.said()).toHaveLength(1);
    fixture.sim.setFaults([{ path: '/nms/api/v2.1/outages', kind: 'status', status: 503 }]);
    clock.ms = at('14:07');
    await bot.watch.poll();
    expect(bot.watch.health()).toMatchObject({ state: 'failing', since: new Date(at('14:07')).toISOString() });
    expect(bot.watch.health().line).toMatch(/^outage watch: UISP not answering .* since /);
    fixture.sim.bringBack(DIAMOND_AP, new Date(at('14:09')));
    fixture.sim.takeDown(ENMORE_AP, new Date(at('14:10')));
    clock.ms = at('14:11');
    await bot.watch.poll();
    expect(bot.said()).toHaveLength(1);
    fixture.sim.setFaults([]);
    clock.ms = at('14:20');
    await bot.watch.poll();
    expect(bot.said().slice(1).sort()).toEqual(['began enmore-ap1 at Enmore Tower since 14:10: Ravi Persaud', 'ended diamond-ap1 at 14:09 in 1.000']);
    expect(bot.watch.health().state).toBe('watching');
  });

  it("an NMS without GET /outages: the watch says outages are unavailable, and reports nothing", async () => {
    const fixture = await start(WORLD_FILTERS.interface);
    const bot = process(fixture, new Memory(), clockAt('14:00'));
    fixture.sim.takeDown(DIAMOND_AP, new Date(at('13:00')));
    await bot.watch.poll();
    expect(bot.said()).toEqual([]);
    expect(bot.watch.health()).toMatchObject({ state: 'unavailable', line: "outage watch: UISP's NMS does not serve GET /outages" });
  });
});
