/**
 * The activation lease: which run may create a client's Active service and site right now, across every
 * SubOps process (CLI runs, bot replicas). UISP has no unique key and no conditional write, so a run
 * that writes without one either reads back after creating (a round trip on the critical path) or holds
 * a lease. A lease lets the holder create without reading back: nobody else creates for that client
 * while it is held, and a run that finds it held by another waits for that run's outcome.
 *
 * Where a lease lives (both ordered by CRM ids, which UISP hands out in creation order):
 * - A client a run creates is leased to that run from its creation (`subops:run=<id>` and
 *   `subops:created=<ms>` in its note). Among SubOps' namesake clients created concurrently, the oldest
 *   (lowest id) is the one kept, so its creator holds.
 * - For an existing client, a run takes the lease with an entry in the CRM client log
 *   (`subops:lease subops:run=<id>`), one wave before it creates; the entry with the lowest id still
 *   live holds. Each run checks in the same wave as its create; a run that did not hold undoes what it
 *   created and waits.
 *
 * A lease ends when the client has an Active service (nobody creates then), when its run writes
 * `subops:lease-released` (it failed), or `leaseMs` after it was taken (a run that stopped without a
 * word). A holder starts no write after its lease has run out.
 */
import { noteHas } from '../converge.js';
import type { Client, ClientLog } from '../uisp/schemas.js';
import { ACTIVATION_MARKER } from './markers.js';

export const LEASE_MARKER = 'subops:lease';
export const RELEASED_MARKER = 'subops:lease-released';

const RUN = /(?:^|\s)subops:run=([\w-]+)(?:\s|$)/;
const CREATED = /(?:^|\s)subops:created=(\d+)(?:\s|$)/;

/** The message of a lease entry, and of the entry that gives it up. */
export const leaseMessage = (run: string) => `SubOps activation ${LEASE_MARKER} subops:run=${run}`;
export const releaseMessage = (run: string) => `SubOps activation stopped ${RELEASED_MARKER} subops:run=${run}`;

/** The run marker's id in a note or message (`subops:run=<id>` → id), or null. */
export function runOf(text: string | null | undefined): string | null {
  return RUN.exec(text ?? '')?.[1] ?? null;
}

/** Ms since the epoch of a note's `subops:created=` stamp, or null. */
export function createdStampOf(text: string | null | undefined): number | null {
  const match = CREATED.exec(text ?? '');
  return match ? Number(match[1]) : null;
}

/** The run that created this client in an activation, or null (someone else's client). */
export function creatorRun(client: Client): string | null {
  return noteHas(client.note, ACTIVATION_MARKER) ? runOf(client.note) : null;
}

/** A CRM log date (`2026-11-23T20:01:02+0000`) in ms, or null when absent or unreadable. */
export function loggedAt(log: ClientLog): number | null {
  if (!log.createdDate) return null;
  const ms = Date.parse(log.createdDate.replace(/([+-]\d{2})(\d{2})$/, '$1:$2'));
  return Number.isNaN(ms) ? null : ms;
}

export interface LeaseHolder {
  run: string;
  /** When it was taken (ms since the epoch), so a waiting run can say how long ago. */
  since: number | null;
}

/**
 * Who holds the client's lease at `now` (ms since the epoch), from the client record and its log; null
 * when nobody does. `now` should be on the clock of the entries compared: the caller's own entry's
 * CRM date when it has one, else its own clock.
 */
export function leaseHolder(client: Client, logs: ClientLog[], now: number, leaseMs: number): LeaseHolder | null {
  const released = new Set(logs.filter((log) => log.message.includes(RELEASED_MARKER)).map((log) => runOf(log.message)));
  const live = (at: number | null) => at === null || now - at < leaseMs;
  const creator = creatorRun(client);
  if (creator && !released.has(creator)) {
    const since = createdStampOf(client.note);
    if (since !== null && live(since)) return { run: creator, since };
  }
  const leases = logs
    .filter((log) => log.clientId === client.id && log.message.includes(LEASE_MARKER) && !log.message.includes(RELEASED_MARKER))
    .map((log) => ({ id: log.id, run: runOf(log.message), since: loggedAt(log) }))
    .filter((lease): lease is { id: number; run: string; since: number | null } => lease.run !== null && !released.has(lease.run) && live(lease.since))
    .sort((a, b) => a.id - b.id);
  const first = leases[0];
  return first ? { run: first.run, since: first.since } : null;
}

/** The CRM date of this run's own lease entry (the clock `leaseHolder` compares on), or null. */
export function leaseTakenAt(logs: ClientLog[], run: string): number | null {
  const own = logs.find((log) => log.message.includes(LEASE_MARKER) && !log.message.includes(RELEASED_MARKER) && runOf(log.message) === run);
  return own ? loggedAt(own) : null;
}

/**
 * The runs whose records a client keeps when runs left several (one that could not check its lease, a
 * lost write that landed late), first choice first: the runs that held the client's lease, the last
 * first. The creator holds first; a lease entry taken while another run held did not hold; one taken
 * once the previous lease had run out took over. A run that let its lease go (it failed) is none of
 * them. What the holder made is what it reported, so later runs keep that.
 */
export function holderRuns(client: Client, logs: ClientLog[], leaseMs: number): string[] {
  const released = new Set(logs.filter((log) => log.message.includes(RELEASED_MARKER)).map((log) => runOf(log.message)));
  const leases = logs
    .filter((log) => log.clientId === client.id && log.message.includes(LEASE_MARKER) && !log.message.includes(RELEASED_MARKER))
    .sort((a, b) => a.id - b.id)
    .map((log) => ({ run: runOf(log.message), at: loggedAt(log) }));
  const held: string[] = [];
  let current: { run: string; until: number } | undefined;
  const take = (run: string, at: number | null) => {
    held.push(run);
    current = { run, until: at === null ? Infinity : at + leaseMs };
  };
  const creator = creatorRun(client);
  if (creator && !released.has(creator)) take(creator, createdStampOf(client.note));
  for (const { run, at } of leases) {
    if (run === null || released.has(run) || run === current?.run) continue;
    if (!current || (at !== null && at >= current.until)) take(run, at);
  }
  return [...new Set(held.reverse())];
}

/** The records (in their order) that the earliest of `runs` to have made any made; [] when none did. */
export function heldRecords<T>(records: T[], runs: string[], note: (record: T) => string | null | undefined): T[] {
  for (const run of runs) {
    const made = records.filter((record) => runOf(note(record)) === run);
    if (made.length) return made;
  }
  return [];
}
