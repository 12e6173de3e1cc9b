/**
 * The sentences of a Remove duplicate click (src/render/duplicates.ts), and the notice's blocks after a
 * click (src/views/duplicates.ts): one per outcome, valid Block Kit.
 */
import { describe, expect, it } from 'vitest';
import { removalSentence } from '../../src/render/duplicates.js';
import type { LateDuplicate } from '../../src/services/activation/types.js';
import type { RemovalOutcome, RemovalRefusal, RemovalRequest } from '../../src/services/duplicates.js';
import { lateDuplicateNotice, noticeAfterClick, removalLine } from '../../src/views/duplicates.js';
import type { Block } from '../../src/views/kit.js';
import { expectValidMessage } from '../slack/block-kit.js';

const service: RemovalRequest = { clientId: 1002, record: 'service', keptId: 5003, duplicateId: 5007 };
const site: RemovalRequest = { clientId: 1002, record: 'site', keptId: 's-kept', duplicateId: 's-late' };
const client: RemovalRequest = { clientId: 1010, record: 'client', keptId: 1010, duplicateId: 1011 };
const refs = (request: RemovalRequest) => ({ duplicate: { id: request.duplicateId, name: request.record === 'service' ? 'Standard Monthly' : 'Priya Ramnarine' }, kept: { id: request.keptId, name: request.record === 'service' ? 'Standard Monthly' : 'Priya Ramnarine' } });
const refused = (request: RemovalRequest, refusal: RemovalRefusal): RemovalOutcome => ({ kind: 'refused', request, refusal, ...refs(request) });

describe('removalSentence', () => {
  it.each<[RemovalOutcome, string]>([
    [{ kind: 'removed', request: service, ...refs(service) }, 'Removed service #5007 "Standard Monthly" of client #1002; service #5003 "Standard Monthly", the one the activation reported, stays.'],
    [{ kind: 'removed', request: site, ...refs(site) }, 'Removed NMS site "Priya Ramnarine" (s-late) of client #1002; NMS site "Priya Ramnarine" (s-kept), the one the activation reported, stays.'],
    [refused(service, { reason: 'gone' }), 'Service #5007 "Standard Monthly" is already removed: UISP no longer has it. Nothing was changed.'],
    [refused(service, { reason: 'same-record' }), 'Service #5007 "Standard Monthly" is the one activations keep and report: it is not removed. Nothing was changed.'],
    [refused(service, { reason: 'other-client', clientId: 1003 }), 'Service #5007 "Standard Monthly" belongs to client #1003 now, not to client #1002: it is not removed. Nothing was changed.'],
    [refused(service, { reason: 'not-subops' }), `Service #5007 "Standard Monthly" no longer carries SubOps' note line (Created by SubOps…): someone changed it in UISP, so it is theirs to remove there. Nothing was changed.`],
    [refused(service, { reason: 'kept-gone' }), 'Service #5003 "Standard Monthly", the one the activation reported, is gone: removing service #5007 "Standard Monthly" would leave client #1002 without one, so it is kept. Nothing was changed.'],
    [
      refused(service, { reason: 'kept-not-active', status: 3, statusLabel: 'Suspended' }),
      'Service #5003 "Standard Monthly", the one the activation reported, is Suspended now, not Active: removing service #5007 "Standard Monthly" would leave client #1002 without an Active service, so it is kept. Nothing was changed.',
    ],
    [refused(service, { reason: 'not-newer' }), 'Service #5007 "Standard Monthly" is older than service #5003 "Standard Monthly": activations keep the oldest, so it is not the late one. Nothing was changed.'],
    [refused(service, { reason: 'invoiced', invoiceIds: [12, 13] }), 'Service #5007 "Standard Monthly" has been invoiced (invoice #12, #13): SubOps never removes an invoiced service; settle it in the CRM. Nothing was changed.'],
    [refused(site, { reason: 'in-use', devices: [{ id: 'd-1', name: 'LBE-Ramnarine' }] }), 'NMS site "Priya Ramnarine" (s-late) has a device on it (LBE-Ramnarine): it is not removed. Nothing was changed.'],
    [refused(site, { reason: 'linked', clientId: 1003 }), 'NMS site "Priya Ramnarine" (s-late) is linked in the CRM to client #1003: it is not removed. Nothing was changed.'],
    [
      { kind: 'failed', request: service, detail: 'CRM DELETE /clients/services/5007: HTTP 500', mayHaveApplied: false, ...refs(service) },
      'UISP did not remove service #5007 "Standard Monthly" (CRM DELETE /clients/services/5007: HTTP 500); it is still there. Try again (Remove duplicate, or subops duplicates remove).',
    ],
    [
      { kind: 'failed', request: service, detail: 'no answer', mayHaveApplied: true, ...refs(service) },
      'UISP did not confirm removing service #5007 "Standard Monthly" (no answer): it may or may not be gone. Try again (Remove duplicate, or subops duplicates remove): it reads UISP first.',
    ],
    [{ kind: 'removed', request: client, ...refs(client) }, 'Removed client #1011 "Priya Ramnarine", an empty namesake of client #1010; client #1010 "Priya Ramnarine", the one activations use, stays.'],
    [refused(client, { reason: 'gone' }), 'Client #1011 "Priya Ramnarine" is already removed: UISP no longer has it. Nothing was changed.'],
    [refused(client, { reason: 'not-subops' }), `Client #1011 "Priya Ramnarine" no longer carries SubOps' note line (Created by SubOps…): someone changed it in UISP, so it is theirs to remove there. Nothing was changed.`],
    [refused(client, { reason: 'kept-gone' }), `Client #1010 "Priya Ramnarine", the one activations use, is gone: client #1011 "Priya Ramnarine" may be the customer's record now, so it is kept. Nothing was changed.`],
    [refused(client, { reason: 'not-newer' }), 'Client #1011 "Priya Ramnarine" is older than client #1010 "Priya Ramnarine": activations keep the oldest, so it is not the late one. Nothing was changed.'],
    [
      { kind: 'refused', request: client, refusal: { reason: 'renamed' }, duplicate: { id: 1011, name: 'Priya Persaud' }, kept: { id: 1010, name: 'Priya Ramnarine' } },
      `Client #1011 "Priya Persaud" is no longer named as client #1010 "Priya Ramnarine": someone renamed it, so it is someone's now and is not removed. Nothing was changed.`,
    ],
    [refused(client, { reason: 'has-services', serviceIds: [5020] }), 'Client #1011 "Priya Ramnarine" has a service (service #5020): it is not an empty namesake, so it is not removed. Nothing was changed.'],
    [refused(client, { reason: 'has-services', serviceIds: [5020, 5021] }), 'Client #1011 "Priya Ramnarine" has 2 services (service #5020, #5021): it is not an empty namesake, so it is not removed. Nothing was changed.'],
    [refused(client, { reason: 'has-payments', paymentIds: [3301] }), 'Client #1011 "Priya Ramnarine" has a payment recorded (payment #3301): SubOps never removes a client with payments; settle it in the CRM. Nothing was changed.'],
    [refused(client, { reason: 'invoiced', invoiceIds: [7] }), 'Client #1011 "Priya Ramnarine" has an invoice (invoice #7): SubOps never removes an invoiced client; settle it in the CRM. Nothing was changed.'],
    [refused(site, { reason: 'other-client', clientId: 1011 }), 'NMS site "Priya Ramnarine" (s-late) belongs to client #1011 now, not to client #1002: it is not removed. Nothing was changed.'],
    [
      { kind: 'failed', request: client, detail: 'CRM DELETE /clients/1011: HTTP 500', mayHaveApplied: false, ...refs(client) },
      'UISP did not remove client #1011 "Priya Ramnarine" (CRM DELETE /clients/1011: HTTP 500); it is still there. Try again (Remove duplicate, or subops duplicates remove).',
    ],
  ])('%#: %s', (outcome, sentence) => {
    expect(removalSentence(outcome)).toBe(sentence);
  });
});

describe('the notice after a click', () => {
  const duplicate: LateDuplicate = {
    record: 'service',
    client: { id: 1002, name: 'Priya Ramnarine' },
    kept: { id: 5003, name: 'Standard Monthly' },
    others: [
      { id: 5007, name: 'Standard Monthly' },
      { id: 5009, name: null },
    ],
  };
  const notice = lateDuplicateNotice(duplicate, 'activation', { crmClientUrl: (id) => `https://uisp.example/crm/client/${id}` });
  const buttonsOf = (blocks: Block[]) => blocks.filter((b) => b.type === 'section' && b.accessory).map((b) => b.block_id);

  it('one Remove duplicate per late record, each in its own block', () => {
    expectValidMessage(notice);
    expect(buttonsOf(notice.blocks)).toEqual(['late_duplicate:service:5007', 'late_duplicate:service:5009']);
  });

  it('removed: that record’s button goes and the line says who; the other button stays; a second answer for it changes nothing', () => {
    const outcome: RemovalOutcome = { kind: 'removed', request: service, ...refs(service) };
    const after = noticeAfterClick(notice.blocks, outcome, removalLine(outcome, removalSentence(outcome), 'U0LEAD'))!;
    expectValidMessage({ text: notice.text, blocks: after });
    expect(buttonsOf(after)).toEqual(['late_duplicate:service:5009']);
    expect(JSON.stringify(after)).toContain(':wastebasket: Removed service #5007');
    expect(JSON.stringify(after)).toContain('(removed by <@U0LEAD>)');
    expect(noticeAfterClick(after, refused(service, { reason: 'gone' }), 'again')).toBeNull();
  });

  it('failed: the button stays to press again, and a later outcome replaces the line', () => {
    const failed: RemovalOutcome = { kind: 'failed', request: service, detail: 'HTTP 500', mayHaveApplied: false, ...refs(service) };
    const after = noticeAfterClick(notice.blocks, failed, removalLine(failed, removalSentence(failed), 'U0LEAD'))!;
    expect(buttonsOf(after)).toEqual(['late_duplicate:service:5007', 'late_duplicate:service:5009']);
    const removed: RemovalOutcome = { kind: 'removed', request: service, ...refs(service) };
    const then = noticeAfterClick(after, removed, 'removed now')!;
    expect(then.filter((b) => b.block_id === 'late_duplicate:service:5007:outcome')).toHaveLength(1);
    expect(JSON.stringify(then)).not.toContain('HTTP 500');
    expect(buttonsOf(then)).toEqual(['late_duplicate:service:5009']);
  });
});

describe('the notice of a client’s empty namesakes', () => {
  const duplicate: LateDuplicate = {
    record: 'client',
    client: { id: 1010, name: 'Jane Doe' },
    kept: { id: 1010, name: 'Jane Doe' },
    others: [
      { id: 1011, name: 'Jane Doe' },
      { id: 1014, name: 'Jane Doe' },
    ],
  };
  const notice = lateDuplicateNotice(duplicate, 'activation', { crmClientUrl: (id) => `https://uisp.example/crm/client/${id}` });
  const text = JSON.stringify(notice.blocks);

  it('names the client activations use as kept, each empty namesake (linked to its CRM page) with its button, and what the button checks', () => {
    expectValidMessage(notice);
    expect(notice.blocks.filter((b) => b.type === 'section' && b.accessory).map((b) => b.block_id)).toEqual(['late_duplicate:client:1011', 'late_duplicate:client:1014']);
    expect(text).toContain('Client #1010 Jane Doe has SubOps-made namesakes with no service: #1011 \\"Jane Doe\\", #1014 \\"Jane Doe\\"');
    expect(text).toContain('*Kept:* <https://uisp.example/crm/client/1010|client #1010 \\"Jane Doe\\">, the one activations use.');
    expect(text).toContain('*Empty namesake:* <https://uisp.example/crm/client/1011|client #1011 \\"Jane Doe\\">');
    expect(text).toContain(
      '*Remove duplicate* reads both clients again and removes the namesake only if it is still SubOps-made, newer than the kept one and still named the same, with no service, no payment and no invoice',
    );
    expect(notice.text).toBe('Late duplicate: client #1010 Jane Doe has 2 SubOps-made namesakes with no service (kept 1010; late #1011, #1014)');
  });

  it('each button asks to remove that namesake, keeping the client itself', () => {
    const values = notice.blocks.flatMap((b) => (b.type === 'section' && b.accessory && 'value' in b.accessory ? [JSON.parse(String(b.accessory.value)) as unknown] : []));
    expect(values).toEqual([
      { clientId: 1010, record: 'client', keptId: 1010, duplicateId: 1011 },
      { clientId: 1010, record: 'client', keptId: 1010, duplicateId: 1014 },
    ]);
  });

  it('after a click: that namesake’s button goes and the line says what came of it', () => {
    const outcome: RemovalOutcome = { kind: 'removed', request: { ...client, clientId: 1010 }, duplicate: { id: 1011, name: 'Jane Doe' }, kept: { id: 1010, name: 'Jane Doe' } };
    const after = noticeAfterClick(notice.blocks, outcome, removalLine(outcome, removalSentence(outcome), 'U0LEAD'))!;
    expectValidMessage({ text: notice.text, blocks: after });
    expect(after.filter((b) => b.type === 'section' && b.accessory).map((b) => b.block_id)).toEqual(['late_duplicate:client:1014']);
    expect(JSON.stringify(after)).toContain(':wastebasket: Removed client #1011 \\"Jane Doe\\", an empty namesake of client #1010');
  });
});
