/** The approval rule (which confirmed changes wait for a second person) and what a click may decide. */
import { describe, expect, it } from 'vitest';
import { approvalReasons, DEFAULT_APPROVAL_EXPIRY_MS, judgeClick, type ApprovalKind, type ApprovalSettings } from '../../src/services/approvals.js';

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
