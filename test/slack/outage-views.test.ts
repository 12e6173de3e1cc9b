/**
 * The outage thread's messages (src/views/outages.ts) as Slack gets them: valid Block Kit within Slack's
 * limits whatever the outage's size, the first ten customers and a count with Show all beyond that, and
 * the parent redrawn as its state changes.
 */
import { describe, expect, it } from 'vitest';
import type { AffectedCustomer, OutageInProgress } from '../../src/services/outages.js';
import { everyAffected, outageParent, recoveredReply, redrawnParent, updateModal } from '../../src/views/outages.js';
import { buttons, shown } from './harness.js';
import { expectValidMessage, expectValidModal } from './block-kit.js';

const customer = (i: number): AffectedCustomer => ({ clientId: 1000 + i, name: `Customer ${String(i).padStart(4, '0')}`, siteId: `s-${i}`, service: { id: 5000 + i, name: 'Standard Monthly', status: 1, statusLabel: 'Active' } });

function tower(customers: number): OutageInProgress {
  return {
    id: 'o-1',
    since: '2026-11-28T14:02:00.000Z',
    device: { id: 'd-1', name: 'diamond-ap1', model: 'Rocket 5AC Prism', role: 'ap', ip: '10.20.1.2/24' },
    devicesDown: 1,
    site: { id: 's-1', name: 'Diamond Tower', kind: 'infrastructure' },
    affected: Array.from({ length: customers }, (_, i) => customer(i + 1)),
  };
}


describe('the outage parent', () => {
  it('names the first ten customers and counts the rest, with Show all', () => {
    const { message } = outageParent('site:s-1@1', tower(42));
    expectValidMessage(message);
    const text = shown(message);
    expect(text).toContain('42 customers affected');
    expect(text).toContain('#1010 Customer 0010');
    expect(text).not.toContain('Customer 0011');
    expect(text).toContain('… and 32 more');
    expect([...buttons({ ...message }).keys()]).toEqual(['Acknowledge', 'Add update', 'Show all 42']);
  });

  it('ten or fewer: no Show all', () => {
    const { message } = outageParent('site:s-1@1', tower(10));
    expect([...buttons({ ...message }).keys()]).toEqual(['Acknowledge', 'Add update']);
  });

  it('redrawn: who is on it, the latest update, and ✅ with the duration once back; the customers kept', () => {
    const { message, state } = outageParent('site:s-1@1', tower(42));
    const acknowledged = redrawnParent(message.blocks, { ...state, acknowledgedBy: 'U0LEAD', acknowledgedAt: Date.parse('2026-11-28T14:05:00Z') });
    expectValidMessage({ text: message.text, blocks: acknowledged });
    expect(shown({ blocks: acknowledged })).toContain('<@U0LEAD> is on it');
    expect([...buttons({ blocks: acknowledged }).keys()]).toEqual(['Add update', 'Show all 42']);
    const back = redrawnParent(acknowledged, { ...state, acknowledgedBy: 'U0LEAD', acknowledgedAt: 1, update: { by: 'U0LEAD', at: 2, note: 'AP replaced' }, ended: { at: '2026-11-28T15:07:00.000Z', known: true } });
    expectValidMessage({ text: message.text, blocks: back });
    const text = shown({ blocks: back });
    expect(text).toContain(':white_check_mark: *Outage:*');
    expect(text).toContain('*Back up*');
    expect(text).toContain('after 1h 5m');
    expect(text).toContain('Latest: AP replaced');
    expect(text).toContain('#1001 Customer 0001');
    expect([...buttons({ blocks: back }).keys()]).toEqual(['Show all 42']);
  });
});

describe('the other messages', () => {
  it('Show all lists every customer within one message, and says where the rest are past what it holds', () => {
    const some = everyAffected(tower(42));
    expectValidMessage(some);
    expect(shown(some)).toContain('#1042 Customer 0042');
    const huge = everyAffected(tower(3_000));
    expectValidMessage(huge);
    expect(shown(huge)).toContain('subops outages --json');
  });

  it('a recovery whose end UISP did not give says when SubOps saw it', () => {
    const reply = recoveredReply({ outage: tower(1), end: '2026-11-28T14:30:00.000Z', endKnown: false }, false);
    expectValidMessage(reply);
    expect(shown(reply)).toContain('UISP no longer lists it as down');
    expect(shown(reply)).toContain('diamond-ap1 at Diamond Tower');
  });

  it('the update form is a valid modal', () => {
    expectValidModal(updateModal('{"channel":"C0OUTAGES","ts":"1.0"}'));
  });
});
