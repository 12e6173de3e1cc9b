/** The approval rule (which confirmed changes wait for a second person) and what a click may decide. */
import { describe, expect, it } from 'vitest';
import { approvalReasons, DEFAULT_APPROVAL_EXPIRY_MS, judgeClick, judgeRetry, type ApprovalKind, type ApprovalSettings, type NamedApproval, type RetriedActivation } from '../../src/services/approvals.js';

const NO_APPROVALS: ApprovalSettings = { required: new Set(), paymentAbove: undefined, expiresAfterMs: DEFAULT_APPROVAL_EXPIRY_MS };

const requiring = (...kinds: ApprovalKind[]): ApprovalSettings => ({ ...NO_APPROVALS, required: new Set(kinds), paymentAbove: 100_000 });

describe('approvalReasons', () => {
  it('asks nothing when no kind is required: every operation runs at once, as before', () => {
    expect(approvalReasons(NO_APPROVALS, { kind: 'activation', deletes: [102], moveFromSite: 'site-1' })).toEqual([]);
    expect(approvalReasons(NO_APPROVALS, { kind: 'suspension', action: 'suspend' })).toEqual([]);
    expect(approvalReasons(NO_APPROVALS, { kind: 'payment', amount: 10_000_000 })).toEqual([]);
  });

  it('names each required change an activation makes: the services it deletes, the site it moves the device off', () => {
    const both = requiring('delete-service', 'move-device');
    expect(approvalReasons(both, { kind: 'activation', deletes: [102, 103], moveFromSite: 'site-1' })).toEqual([
      { kind: 'delete-service', serviceIds: [102, 103] },
      { kind: 'move-device', fromSite: 'site-1' },
    ]);
    expect(approvalReasons(both, { kind: 'activation', deletes: [], moveFromSite: undefined })).toEqual([]);
    expect(approvalReasons(requiring('move-device'), { kind: 'activation', deletes: [102], moveFromSite: undefined })).toEqual([]);
  });

  it('a payment above the limit (not at it); every suspension but never a lift', () => {
    const settings = requiring('large-payment', 'suspension');
    expect(approvalReasons(settings, { kind: 'payment', amount: 100_000 })).toEqual([]);
    expect(approvalReasons(settings, { kind: 'payment', amount: 100_000.01 })).toEqual([{ kind: 'large-payment', amount: 100_000.01, above: 100_000 }]);
    expect(approvalReasons(settings, { kind: 'suspension', action: 'suspend' })).toEqual([{ kind: 'suspension' }]);
    expect(approvalReasons(settings, { kind: 'suspension', action: 'unsuspend' })).toEqual([]);
  });
});

describe('judgeClick', () => {
  const request = { requester: 'U0AGENT', expiresAt: 1_000 };
  it('an approver other than the requester decides; the requester decides nothing', () => {
    expect(judgeClick(request, { by: 'U0LEAD', approve: true, at: 999 })).toEqual({ kind: 'decide', decision: 'approved' });
    expect(judgeClick(request, { by: 'U0LEAD', approve: false, at: 999 })).toEqual({ kind: 'decide', decision: 'rejected' });
    expect(judgeClick(request, { by: 'U0AGENT', approve: true, at: 999 })).toEqual({ kind: 'own-request' });
    expect(judgeClick(request, { by: 'U0AGENT', approve: false, at: 999 })).toEqual({ kind: 'own-request' });
  });

  it('from the expiry on, any click only expires it', () => {
    expect(judgeClick(request, { by: 'U0LEAD', approve: true, at: 1_000 })).toEqual({ kind: 'decide', decision: 'expired' });
    expect(judgeClick(request, { by: 'U0AGENT', approve: false, at: 5_000 })).toEqual({ kind: 'decide', decision: 'expired' });
  });
});

describe('judgeRetry (issue #37 §3)', () => {
  const request = { device: '10.20.1.51', firstName: 'priya', lastName: 'ramnarine', clientId: 1002 };
  const approval: NamedApproval = { decision: 'approved', by: 'U0LEAD', expiresAt: 1_000, requester: 'U0AGENT', activation: { request, deletes: [102, 103], moveFrom: 'site-1' } };
  const retry: RetriedActivation = { request, startedBy: 'U0AGENT', deletes: [102], moveFrom: 'site-1' };
  const reasons = [{ kind: 'delete-service' as const, serviceIds: [102] }];

  it('runs its own approved operation: the same request, by the requester, deleting within what was confirmed', () => {
    expect(judgeRetry(reasons, retry, approval, 999)).toEqual({ kind: 'run', approvedBy: 'U0LEAD' });
    expect(judgeRetry(reasons, { ...retry, moveFrom: undefined }, approval, 999)).toEqual({ kind: 'run', approvedBy: 'U0LEAD' });
  });

  it('anything else is another operation: it asks for an approval of its own', () => {
    const other = { kind: 'ask-again', why: 'other-operation' };
    expect(judgeRetry(reasons, { ...retry, deletes: [102, 104] }, approval, 999)).toEqual(other);
    expect(judgeRetry(reasons, { ...retry, deletes: 'any' }, approval, 999)).toEqual(other);
    expect(judgeRetry(reasons, { ...retry, moveFrom: 'site-2' }, approval, 999)).toEqual(other);
    expect(judgeRetry(reasons, { ...retry, request: { ...request, device: '10.20.1.52' } }, approval, 999)).toEqual(other);
    expect(judgeRetry(reasons, { ...retry, request: { ...request, clientId: 1003 } }, approval, 999)).toEqual(other);
    expect(judgeRetry(reasons, { ...retry, startedBy: 'U0LEAD' }, approval, 999)).toEqual(other);
    expect(judgeRetry(reasons, retry, { ...approval, activation: undefined }, 999)).toEqual(other);
    // Another operation is not asked again under the expired approval either.
    expect(judgeRetry(reasons, { ...retry, deletes: [104] }, approval, 5_000)).toEqual(other);
  });

  it('an expired or undecided approval runs nothing; a Retry that needs none runs', () => {
    expect(judgeRetry(reasons, retry, approval, 1_000)).toEqual({ kind: 'ask-again', why: 'expired' });
    expect(judgeRetry(reasons, retry, { ...approval, decision: undefined }, 999)).toEqual({ kind: 'ask-again', why: 'not-approved' });
    expect(judgeRetry([], retry, undefined, 999)).toEqual({ kind: 'run', approvedBy: undefined });
  });
});
