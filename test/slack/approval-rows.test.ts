/**
 * Approval rows as the store gives them back (issue #37 §2), on both engines: a row counts as a request
 * only while the bot's seal over it verifies. Each attack writes a row through the store's own API, as
 * whoever holds DATABASE_URL or the state folder could.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { isTampered, readRequest, readRequestById, readUndecided, saveRequest, sealedDecision, type RequestState } from '../../src/slack/approval-requests.js';
import { approvalSeal } from '../../src/slack/approval-seal.js';
import type { ApprovalRequest } from '../../src/slack/metadata.js';
import { openStore, type Store } from '../../src/store/index.js';
import { testStore } from '../support/store.js';
import * as f from './fixtures.js';

const seal = approvalSeal('signing-secret');
const request: ApprovalRequest = {
  id: 'req-1',
  requester: 'U0AGENT',
  origin: { channelId: 'C0OPS', userId: 'U0AGENT', responseUrl: 'https://hooks.slack.com/commands/T0/1/secret' },
  requestedAt: 1_000,
  expiresAt: 9_000,
  reasons: [{ kind: 'suspension' }],
  operation: { kind: 'suspension', action: 'suspend', serviceId: 5031, status: 1, clientName: 'Ravi' },
};

/** An install sheet's one request: 200 rows (the most a sheet holds), each deleting a Quoted service. */
const sheetRequest: ApprovalRequest = {
  ...request,
  id: 'req-sheet',
  reasons: [{ kind: 'delete-service', serviceIds: Array.from({ length: 200 }, (_, i) => 1000 + i) }],
  operation: {
    kind: 'sheet',
    sheetId: '0b6c2f0e-8a3e-4d6a-9c1e-2f4b5a6c7d8e',
    check: {
      rows: Array.from({ length: 200 }, (_, i) => ({ row: i + 1, line: i + 2, kind: 'plan' as const, request: { ...f.request, device: `10.20.${i}.1` }, plan: f.plan, confirm: { deletes: [{ id: 1000 + i, status: 6, statusLabel: 'Quoted', name: null }], move: null }, alreadyDone: false })),
      totals: { rows: 200, toRun: 200, needConfirmation: 200, alreadyDone: 0, inError: 0 },
    },
    approvalRows: Array.from({ length: 200 }, (_, i) => i + 1),
  },
};

const engines: [string, () => Promise<Store>][] = [
  ['PostgreSQL', () => testStore()],
  [
    'embedded',
    async () => {
      const store = openStore({ engine: 'embedded', dir: await mkdtemp(join(tmpdir(), 'subops-approval-rows-')) });
      await store.ready();
      onTestFinished(() => store.close());
      return store;
    },
  ],
];

describe.each(engines)('approval rows on %s', (_name, open) => {
  it('a sealed row reads back as the request, without the requester\'s response_url', async () => {
    const store = await open();
    await saveRequest(store.approvals, seal, request, 'C0APPROVALS', '1.000001');
    const read = (await readRequest(store.approvals, seal, 'C0APPROVALS', '1.000001')) as RequestState;
    expect(isTampered(read)).toBe(false);
    expect(read.request.operation).toEqual(request.operation);
    expect(read.request.origin).toEqual({ channelId: 'C0OPS', userId: 'U0AGENT' });
  });

  it('a row whose request, message or seal was written by someone else reads as tampered, and so does a forged decision', async () => {
    const store = await open();
    const kept = await saveRequest(store.approvals, seal, request, 'C0APPROVALS', '1.000001');
    const { seal: genuine } = (await store.approvals.byId('req-1'))!;
    // The same seal over another service, and over the same request under another message.
    await store.approvals.add({ id: 'req-2', channel: 'C0APPROVALS', ts: '2.000001', request: { ...kept, id: 'req-2', operation: { ...request.operation, serviceId: 5011 } }, seal: genuine!, expiresAt: 9_000 });
    await store.approvals.add({ id: 'req-1b', channel: 'C0APPROVALS', ts: '3.000001', request: kept, seal: genuine!, expiresAt: 9_000 });
    expect(await readRequestById(store.approvals, seal, 'req-2')).toMatchObject({ tampered: true, part: 'request' });
    expect(await readRequest(store.approvals, seal, 'C0APPROVALS', '3.000001')).toMatchObject({ tampered: true });
    const { requests, tampered } = await readUndecided(store.approvals, seal);
    expect(requests.map((r) => r.request.id)).toEqual(['req-1']);
    expect(tampered.map((r) => r.id).sort()).toEqual(['req-1b', 'req-2']);
    // A decision whose seal is not the bot's over it.
    const stored = requests[0]!;
    await store.approvals.decide('req-1', { ...sealedDecision(seal, stored, 'rejected', 'U0LEAD', 2_000), decision: 'approved' });
    expect(await readRequestById(store.approvals, seal, 'req-1')).toMatchObject({ tampered: true, part: 'decision' });
  });

  it('an install sheet\'s request of 200 rows reads back whole; one delete changed in it reads as tampered', async () => {
    const store = await open();
    const kept = await saveRequest(store.approvals, seal, sheetRequest, 'C0APPROVALS', '1.000001');
    const read = (await readRequestById(store.approvals, seal, 'req-sheet')) as RequestState;
    expect(isTampered(read)).toBe(false);
    expect(read.request.operation).toEqual(sheetRequest.operation);
    // The bot's seal over the sheet as asked (under another id and message), on a row whose row 8 deletes another service.
    const asked = { ...kept, id: 'req-sheet-2' };
    const genuine = seal.request({ id: asked.id, channel: 'C0APPROVALS', ts: '2.000001', request: asked });
    if (asked.operation.kind !== 'sheet') throw new Error('not a sheet');
    const rows = asked.operation.check.rows.map((row, i) => (i === 7 && row.kind === 'plan' ? { ...row, confirm: { deletes: [{ id: 1, status: 6, statusLabel: 'Quoted', name: null }], move: null } } : row));
    await store.approvals.add({ id: asked.id, channel: 'C0APPROVALS', ts: '2.000001', request: { ...asked, operation: { ...asked.operation, check: { ...asked.operation.check, rows } } }, seal: genuine, expiresAt: 9_000 });
    // The same row as sealed verifies: only the changed delete makes it tampered.
    expect(seal.verifiesRequest({ id: asked.id, channel: 'C0APPROVALS', ts: '2.000001', request: asked }, genuine)).toBe(true);
    expect(await readRequestById(store.approvals, seal, 'req-sheet-2')).toMatchObject({ tampered: true, part: 'request' });
  });

  it('a decision sealed by the bot reads back as decided', async () => {
    const store = await open();
    await saveRequest(store.approvals, seal, request, 'C0APPROVALS', '1.000001');
    const stored = (await readRequestById(store.approvals, seal, 'req-1')) as RequestState;
    await store.approvals.decide('req-1', sealedDecision(seal, stored, 'approved', 'U0LEAD', 2_000));
    expect(await readRequestById(store.approvals, seal, 'req-1')).toMatchObject({ decision: { decision: 'approved', by: 'U0LEAD' } });
  });
});
