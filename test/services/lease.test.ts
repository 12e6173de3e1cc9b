/**
 * The activation lease's pure parts: who holds a client's lease from its record and its CRM log, which
 * runs' records are kept, and the note and log words they are read from. No I/O: a client, its log
 * entries and `now` in, the holder out.
 */
import { describe, expect, it } from 'vitest';
import {
  createdStampOf,
  heldRecords,
  holderRuns,
  leaseHolder,
  leaseMessage,
  loggedAt,
  releaseMessage,
  runOf,
} from '../../src/services/activation/lease.js';
import { ACTIVATION_MARKER, createdMarker, runMarker } from '../../src/services/activation/markers.js';
import { ClientLogSchema, ClientSchema, type Client, type ClientLog } from '../../src/services/uisp/schemas.js';

const NOW = Date.UTC(2026, 10, 23, 20, 0, 0);
const LEASE_MS = 180_000;
const CLIENT_ID = 7;

/** The CRM's own date form: no milliseconds, offset without a colon. */
const crmDate = (ms: number) => `${new Date(ms).toISOString().slice(0, 19)}+0000`;

/** Client #7 with this note; `createdBy`: one an activation created in run `run` at `createdAt`. */
const client = (note: string | null) => ClientSchema.parse({ id: CLIENT_ID, firstName: 'Ada', lastName: 'Lovelace', note });
const createdBy = (run: string, createdAt: number | null) =>
  client([ACTIVATION_MARKER, runMarker(run), ...(createdAt === null ? [] : [createdMarker(createdAt)])].join(' '));
const notOurs = client('walk-in customer');

const entry = (id: number, message: string, at: number | null, clientId = CLIENT_ID): ClientLog =>
  ClientLogSchema.parse({ id, clientId, message, userId: null, createdDate: at === null ? null : crmDate(at) });
const lease = (id: number, run: string, at: number | null, clientId = CLIENT_ID) => entry(id, leaseMessage(run), at, clientId);
const release = (id: number, run: string, at: number) => entry(id, releaseMessage(run), at);
const ago = (seconds: number) => NOW - seconds * 1000;

describe('leaseHolder', () => {
  it.each<[string, Client, ClientLog[], { run: string; since: number | null } | null]>([
    ['the creator of a young SubOps client holds', createdBy('a', ago(10)), [], { run: 'a', since: ago(10) }],
    ['the creator holds over an earlier lease entry of another run', createdBy('a', ago(10)), [lease(1, 'b', ago(20))], { run: 'a', since: ago(10) }],
    ['the creator holds until the last millisecond of its lease', createdBy('a', NOW - LEASE_MS + 1), [], { run: 'a', since: NOW - LEASE_MS + 1 }],
    ['a creator that released: the next run by its lease entry', createdBy('a', ago(10)), [lease(1, 'b', ago(5)), release(2, 'a', ago(4))], { run: 'b', since: ago(5) }],
    ['a creator that released, nobody else: nobody', createdBy('a', ago(10)), [release(1, 'a', ago(4))], null],
    ['an expired creator (stamp leaseMs old): the lease entries', createdBy('a', NOW - LEASE_MS), [lease(1, 'b', ago(5))], { run: 'b', since: ago(5) }],
    ['an expired creator and no entry: nobody', createdBy('a', NOW - LEASE_MS - 60_000), [], null],
    ['a creator without a created stamp does not hold by creation', createdBy('a', null), [lease(1, 'b', ago(5))], { run: 'b', since: ago(5) }],
    ['a client not made by an activation has no creator', client(`${runMarker('a')} ${createdMarker(ago(10))}`), [], null],
    ['the lowest-id live entry wins, whatever the order read', notOurs, [lease(12, 'b', ago(30)), lease(11, 'c', ago(20)), lease(13, 'd', ago(40))], { run: 'c', since: ago(20) }],
    ['an entry of another client is ignored', notOurs, [lease(1, 'x', ago(5), 99), lease(2, 'b', ago(5))], { run: 'b', since: ago(5) }],
    ['an expired entry is ignored', notOurs, [lease(1, 'x', NOW - LEASE_MS), lease(2, 'b', ago(5))], { run: 'b', since: ago(5) }],
    ['the entries of a released run are ignored', notOurs, [lease(1, 'x', ago(30)), lease(2, 'b', ago(20)), release(3, 'x', ago(10))], { run: 'b', since: ago(20) }],
    ['a release entry is no lease entry', notOurs, [release(1, 'x', ago(10))], null],
    ['an entry the CRM gave no date holds, with no since', notOurs, [lease(1, 'b', null)], { run: 'b', since: null }],
    ['other log entries (not SubOps’) are no leases', notOurs, [entry(1, 'Client created by admin', ago(5))], null],
    ['nobody: no creator, no entry', notOurs, [], null],
  ])('%s', (_, who, logs, holder) => {
    expect(leaseHolder(who, logs, NOW, LEASE_MS)).toEqual(holder);
  });

  it('`since` is the holding entry’s CRM date (UISP’s +0000 form), so a waiting run can say how long ago', () => {
    const taken = { ...lease(3, 'c', null), createdDate: '2026-11-23T19:58:31+0000' };
    expect(leaseHolder(notOurs, [lease(4, 'b', ago(5)), taken], NOW, LEASE_MS)).toEqual({ run: 'c', since: Date.UTC(2026, 10, 23, 19, 58, 31) });
  });
});

describe('holderRuns', () => {
  it.each<[string, Client, ClientLog[], string[]]>([
    ['the creator while it holds; entries taken meanwhile did not hold', createdBy('a', ago(10)), [lease(12, 'c', ago(5)), lease(11, 'b', ago(6))], ['a']],
    ['a released creator is none of them', createdBy('a', ago(10)), [lease(11, 'b', ago(6)), release(12, 'a', ago(5))], ['b']],
    ['a released run is none of them, however early its entry', notOurs, [lease(1, 'x', ago(9)), lease(2, 'b', ago(8)), release(3, 'x', ago(7))], ['b']],
    ['a run listed once though it took the lease twice (and created the client)', createdBy('a', ago(10)), [lease(1, 'a', ago(9)), lease(2, 'b', ago(8)), lease(3, 'a', ago(7))], ['a']],
    ['a run that took over once the creator’s lease ran out first, then the creator', createdBy('a', NOW - 10 * LEASE_MS), [lease(1, 'b', NOW - 5 * LEASE_MS)], ['b', 'a']],
    ['each run that took over in turn, the last first', notOurs, [lease(1, 'b', NOW - 5 * LEASE_MS), lease(2, 'x', NOW - 5 * LEASE_MS + 1000), lease(3, 'c', NOW - 2 * LEASE_MS)], ['c', 'b']],
    ['entries of other clients are not', notOurs, [lease(1, 'x', ago(9), 99), lease(2, 'b', ago(8))], ['b']],
    ['no creator, no entry: none', notOurs, [], []],
  ])('%s', (_, who, logs, runs) => {
    expect(holderRuns(who, logs, LEASE_MS)).toEqual(runs);
  });
});

describe('heldRecords', () => {
  const records = [
    { id: 1, note: `${ACTIVATION_MARKER} ${runMarker('c')}` },
    { id: 2, note: null },
    { id: 3, note: runMarker('b') },
    { id: 4, note: `${runMarker('b')} ${createdMarker(NOW)}` },
    { id: 5, note: runMarker('bb') },
  ];
  const note = (record: { note: string | null }) => record.note;

  it.each<[string, string[], number[]]>([
    ['the records of the earliest run that made any, in their order', ['a', 'b', 'c'], [3, 4]],
    ['the first run’s records when it made some', ['c', 'b'], [1]],
    ['a run id is matched whole (b is not bb)', ['bb'], [5]],
    ['none when no run made any', ['a', 'z'], []],
    ['none when there are no runs', [], []],
  ])('%s', (_, runs, ids) => {
    expect(heldRecords(records, runs, note).map((r) => r.id)).toEqual(ids);
  });
});

describe('the words in notes and log messages', () => {
  it.each<[string | null | undefined, string | null]>([
    ['subops:run=ab12-cd', 'ab12-cd'],
    ['SubOps activation subops:run=ab12 subops:created=1', 'ab12'],
    ['made by\tsubops:run=ab12', 'ab12'],
    ['xsubops:run=ab12', null],
    ['subops:run=', null],
    ['subops:run=ab/12', null],
    ['subops:activation', null],
    [null, null],
    [undefined, null],
  ])('runOf(%j) is %j', (text, run) => {
    expect(runOf(text)).toBe(run);
  });

  it.each<[string | null | undefined, number | null]>([
    [`subops:activation subops:run=a ${createdMarker(1_795_000_000_123)}`, 1_795_000_000_123],
    ['subops:created=0', 0],
    ['subops:created=12x', null],
    ['not-subops:created=12', null],
    ['subops:run=a', null],
    [null, null],
  ])('createdStampOf(%j) is %j', (text, ms) => {
    expect(createdStampOf(text)).toBe(ms);
  });

  it.each<[string | null, number | null]>([
    ['2026-11-23T20:01:02+0000', Date.UTC(2026, 10, 23, 20, 1, 2)],
    ['2026-11-23T16:01:02-0400', Date.UTC(2026, 10, 23, 20, 1, 2)],
    ['2026-11-24T01:31:02+0530', Date.UTC(2026, 10, 23, 20, 1, 2)],
    ['2026-11-23T20:01:02+00:00', Date.UTC(2026, 10, 23, 20, 1, 2)],
    ['yesterday', null],
    [null, null],
  ])('loggedAt(%j) is %j', (createdDate, ms) => {
    expect(loggedAt({ ...entry(1, 'x', null), createdDate })).toBe(ms);
  });

  it.each(['3f2a9c01', 'run-7'])('a lease entry and its release name run %s, and read back as such', (run) => {
    expect(runOf(leaseMessage(run))).toBe(run);
    expect(runOf(releaseMessage(run))).toBe(run);
    // What leaseHolder reads from them: the entry holds; the release ends it.
    expect(leaseHolder(notOurs, [entry(1, leaseMessage(run), ago(1))], NOW, LEASE_MS)).toEqual({ run, since: ago(1) });
    expect(leaseHolder(notOurs, [entry(1, leaseMessage(run), ago(1)), entry(2, releaseMessage(run), ago(0))], NOW, LEASE_MS)).toBeNull();
  });
});
