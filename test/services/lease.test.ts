/**
 * The activation lease's rules (src/services/activation/lease.ts): who holds a client, from its note and
 * its CRM log, and whose records are kept when runs left several.
 */
import { describe, expect, it } from 'vitest';
import { createdStampOf, heldRecords, holderRuns, leaseHolder, leaseMessage, loggedAt, releaseMessage, runOf } from '../../src/services/activation/lease.js';
import { ClientLogSchema, ClientSchema, type ClientLog } from '../../src/services/uisp/schemas.js';

const LEASE_MS = 60_000;
const NOW = Date.parse('2026-11-23T12:00:00Z');
/** UISP's date-time form, `seconds` before NOW. */
const uispDate = (secondsAgo: number) => new Date(NOW - secondsAgo * 1000).toISOString().replace(/\.\d{3}Z$/, '+0000');

let nextId = 500;
const entry = (message: string, secondsAgo: number, clientId = 1004): ClientLog => ClientLogSchema.parse({ id: nextId++, clientId, message, createdDate: uispDate(secondsAgo) });
const lease = (run: string, secondsAgo: number, clientId?: number) => entry(leaseMessage(run), secondsAgo, clientId);
const release = (run: string, secondsAgo: number) => entry(releaseMessage(run), secondsAgo);

/** A client SubOps made in run `run` `secondsAgo` before NOW; or, without a run, someone else's. */
const client = (run?: string, secondsAgo = 0) =>
  ClientSchema.parse({ id: 1004, firstName: 'Shanice', lastName: 'Williams', note: run ? `subops:activation subops:run=${run} subops:created=${NOW - secondsAgo * 1000}` : 'VIP' });

describe('leaseHolder', () => {
  it.each([
    ['nobody: no SubOps creator, no entries', client(), [], null],
    ['the run that created the client, while young', client('maker', 10), [lease('other', 5)], 'maker'],
    ['not the creator once it let go: the earliest live entry', client('maker', 10), [release('maker', 8), lease('first', 5), lease('second', 4)], 'first'],
    ['not the creator once its lease ran out', client('maker', 120), [lease('first', 5)], 'first'],
    ['the earliest live entry of an existing client', client(), [lease('first', 30), lease('second', 5)], 'first'],
    ['not an entry older than the lease', client(), [lease('stale', 90), lease('fresh', 5)], 'fresh'],
    ['not an entry whose run let go', client(), [lease('gone', 20), release('gone', 10), lease('next', 5)], 'next'],
    ["not an entry of another client's", client(), [lease('elsewhere', 20, 2001), lease('here', 5)], 'here'],
    ['nobody once every entry is over', client(), [lease('gone', 20), release('gone', 10), lease('stale', 90)], null],
  ] as const)('%s', (_name, record, logs, run) => {
    expect(leaseHolder(record, [...logs], NOW, LEASE_MS)?.run ?? null).toBe(run);
  });

  it('says since when: the creation stamp, or the entry date', () => {
    expect(leaseHolder(client('maker', 10), [], NOW, LEASE_MS)).toEqual({ run: 'maker', since: NOW - 10_000 });
    expect(leaseHolder(client(), [lease('first', 30)], NOW, LEASE_MS)).toEqual({ run: 'first', since: NOW - 30_000 });
  });
});

describe('holderRuns and heldRecords', () => {
  it('orders the creator first, then the runs by their entries, without any that let go', () => {
    expect(holderRuns(client('maker', 500), [lease('b', 50), lease('a', 40), lease('c', 30), release('c', 20)])).toEqual(['maker', 'b', 'a']);
    expect(holderRuns(client('maker', 5), [release('maker', 1), lease('b', 3)])).toEqual(['b']);
  });

  it("keeps the earliest holder's records, in their order", () => {
    const records = [{ id: 1, note: 'subops:run=b' }, { id: 2, note: 'subops:run=a' }, { id: 3, note: 'subops:run=a' }];
    expect(heldRecords(records, ['a', 'b'], (r) => r.note).map((r) => r.id)).toEqual([2, 3]);
    expect(heldRecords(records, ['z', 'b'], (r) => r.note).map((r) => r.id)).toEqual([1]);
    expect(heldRecords(records, ['z'], (r) => r.note)).toEqual([]);
  });
});

describe('markers and dates', () => {
  it('reads the run back from a lease and a release message, and nothing from other text', () => {
    expect(runOf(leaseMessage('ab12cd34'))).toBe('ab12cd34');
    expect(runOf(releaseMessage('ab12cd34'))).toBe('ab12cd34');
    expect(runOf('Client approved installation')).toBeNull();
    expect(runOf(null)).toBeNull();
  });

  it('reads the creation stamp of a note, and UISP log dates', () => {
    expect(createdStampOf('subops:activation subops:run=x subops:created=1795467098044')).toBe(1795467098044);
    expect(createdStampOf('subops:created=soon')).toBeNull();
    expect(loggedAt(ClientLogSchema.parse({ id: 1, clientId: 1, message: 'm', createdDate: '2026-11-23T12:00:00+0000' }))).toBe(NOW);
    expect(loggedAt(ClientLogSchema.parse({ id: 1, clientId: 1, message: 'm', createdDate: null }))).toBeNull();
  });
});
