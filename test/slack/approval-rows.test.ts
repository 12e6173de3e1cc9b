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

  it('a decision sealed by the bot reads back as decided', async () => {
    const store = await open();
    await saveRequest(store.approvals, seal, request, 'C0APPROVALS', '1.000001');
    const stored = (await readRequestById(store.approvals, seal, 'req-1')) as RequestState;
    await store.approvals.decide('req-1', sealedDecision(seal, stored, 'approved', 'U0LEAD', 2_000));
    expect(await readRequestById(store.approvals, seal, 'req-1')).toMatchObject({ decision: { decision: 'approved', by: 'U0LEAD' } });
  });
});
