/** An install sheet's one approval request names every row's reasons at once: each service it deletes, each site it moves a device off, once. */
import { describe, expect, it } from 'vitest';
import { sheetApprovalReasons } from '../../src/services/sheets/approval.js';

describe('sheetApprovalReasons', () => {
  it('one delete reason listing every row\'s services, and each site moved off once', () => {
    const reasons = sheetApprovalReasons(
      new Map([
        [1, [{ kind: 'delete-service' as const, serviceIds: [102] }]],
        [4, [{ kind: 'delete-service' as const, serviceIds: [103, 104] }, { kind: 'move-device' as const, fromSite: 's-7' }]],
        [9, [{ kind: 'move-device' as const, fromSite: 's-7' }]],
      ]),
    );
    expect(reasons).toEqual([
      { kind: 'delete-service', serviceIds: [102, 103, 104] },
      { kind: 'move-device', fromSite: 's-7' },
    ]);
  });

  it('moves only: no delete reason', () => {
    expect(sheetApprovalReasons(new Map([[2, [{ kind: 'move-device' as const, fromSite: 's-1' }]]]))).toEqual([{ kind: 'move-device', fromSite: 's-1' }]);
  });
});
