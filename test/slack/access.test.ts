/** The access policy's user-group cache: fresh, stale-while-reloading, failing closed, bounded waits. */
import type { webApi } from '@slack/bolt';
import { pino } from 'pino';
import { describe, expect, it, vi } from 'vitest';
import { createAccessPolicy } from '../../src/slack/access.js';

function policyWith(list: () => Promise<{ users?: string[] }>, clock: { now: number }) {
  const client = { usergroups: { users: { list: vi.fn(list) } } } as unknown as webApi.WebClient & { usergroups: { users: { list: ReturnType<typeof vi.fn> } } };
  const policy = createAccessPolicy({ allowedUserIds: ['U0LIST'], allowedUsergroupId: 'S0OPS', client, logger: pino({ level: 'silent' }), cacheMs: 1_000, firstLoadWaitMs: 50, now: () => clock.now });
  return { policy, calls: () => client.usergroups.users.list.mock.calls.length };
}

describe('access policy', () => {
  it('allows listed users without asking Slack, and group members from a cached list', async () => {
    const clock = { now: 0 };
    const { policy, calls } = policyWith(async () => ({ users: ['U0MEMBER'] }), clock);
    expect(policy.open).toBe(false);
    expect(await policy.isAllowed('U0LIST')).toBe(true);
    expect(calls()).toBe(0);
    expect(await policy.isAllowed('U0MEMBER')).toBe(true);
    expect(await policy.isAllowed('U0OTHER')).toBe(false);
    expect(calls()).toBe(1);
  });

  it('answers from a stale list while reloading, then applies the change', async () => {
    const clock = { now: 0 };
    let members = ['U0MEMBER'];
    const { policy, calls } = policyWith(async () => ({ users: members }), clock);
    expect(await policy.isAllowed('U0MEMBER')).toBe(true);
    members = [];
    clock.now = 5_000;
    expect(await policy.isAllowed('U0MEMBER')).toBe(true);
    await vi.waitFor(() => expect(calls()).toBe(2));
    await new Promise((resolve) => setImmediate(resolve));
    expect(await policy.isAllowed('U0MEMBER')).toBe(false);
  });

  it('fails closed, quickly, when the group cannot be read', async () => {
    const clock = { now: 0 };
    const failing = policyWith(async () => Promise.reject(new Error('missing_scope')), clock);
    expect(await failing.policy.isAllowed('U0MEMBER')).toBe(false);
    const hanging = policyWith(() => new Promise(() => undefined), clock);
    const started = performance.now();
    expect(await hanging.policy.isAllowed('U0MEMBER')).toBe(false);
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(await hanging.policy.isAllowed('U0LIST')).toBe(true);
  });

  it('is open when nothing is configured', async () => {
    const policy = createAccessPolicy({ allowedUserIds: [], allowedUsergroupId: undefined, client: {} as webApi.WebClient, logger: pino({ level: 'silent' }) });
    expect(policy.open).toBe(true);
    expect(await policy.isAllowed('U0ANYONE')).toBe(true);
  });
});
