/** The access rule (who may use SubOps, who may do which action) and the user-group cache behind it. */
import type { webApi } from '@slack/bolt';
import { pino } from 'pino';
import { describe, expect, it, vi } from 'vitest';
import { AccessPolicy, type AccessSettings } from '../../src/services/access.js';
import { slackGroupMembers } from '../../src/slack/usergroups.js';

function membersWith(list: () => Promise<{ users?: string[] }>, clock: { now: number }) {
  const client = { usergroups: { users: { list: vi.fn(list) } } } as unknown as webApi.WebClient & { usergroups: { users: { list: ReturnType<typeof vi.fn> } } };
  const members = slackGroupMembers({ client, logger: pino({ level: 'silent' }), cacheMs: 1_000, firstLoadWaitMs: 50, now: () => clock.now });
  const policy = new AccessPolicy({ everyone: { userIds: ['U0LIST'], groupIds: ['S0OPS'] }, actions: {} }, members);
  return { policy, calls: () => client.usergroups.users.list.mock.calls.length };
}

const allowed = async (policy: AccessPolicy, userId: string, action?: Parameters<AccessPolicy['check']>[1]) => (await policy.check(userId, action)).allowed;

describe('user groups behind the access rule', () => {
  it('allows listed users without asking Slack, and group members from a cached list', async () => {
    const clock = { now: 0 };
    const { policy, calls } = membersWith(async () => ({ users: ['U0MEMBER'] }), clock);
    expect(policy.open).toBe(false);
    expect(await allowed(policy, 'U0LIST')).toBe(true);
    expect(calls()).toBe(0);
    expect(await allowed(policy, 'U0MEMBER')).toBe(true);
    expect(await allowed(policy, 'U0OTHER')).toBe(false);
    expect(calls()).toBe(1);
  });

  it('answers from a stale list while reloading, then applies the change', async () => {
    const clock = { now: 0 };
    let members = ['U0MEMBER'];
    const { policy, calls } = membersWith(async () => ({ users: members }), clock);
    expect(await allowed(policy, 'U0MEMBER')).toBe(true);
    members = [];
    clock.now = 5_000;
    expect(await allowed(policy, 'U0MEMBER')).toBe(true);
    await vi.waitFor(() => expect(calls()).toBe(2));
    await new Promise((resolve) => setImmediate(resolve));
    expect(await allowed(policy, 'U0MEMBER')).toBe(false);
  });

  it('fails closed, quickly, when the group cannot be read', async () => {
    const clock = { now: 0 };
    const failing = membersWith(async () => Promise.reject(new Error('missing_scope')), clock);
    expect(await allowed(failing.policy, 'U0MEMBER')).toBe(false);
    const hanging = membersWith(() => new Promise(() => undefined), clock);
    const started = performance.now();
    expect(await allowed(hanging.policy, 'U0MEMBER')).toBe(false);
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(await allowed(hanging.policy, 'U0LIST')).toBe(true);
  });
});

describe('the access rule', () => {
  const groups: Record<string, string[]> = { S0SUPPORT: ['U0ANNA', 'U0BEN'], S0BILLING: ['U0BEN', 'U0CARA'], S0LEADS: ['U0LEAD'] };
  const members = async (groupId: string) => new Set(groups[groupId] ?? []);

  it('is open when nothing is configured: everyone may do everything', async () => {
    const policy = new AccessPolicy({ everyone: undefined, actions: {} }, members);
    expect(policy.open).toBe(true);
    expect(await policy.allowedActions('U0ANYONE')).toEqual(new Set(['lookup', 'activate', 'suspend', 'unsuspend', 'record-payment', 'approve', 'acknowledge-outage']));
  });

  it('grants each action to its groups and users; an action left unset stays with everyone allowed', async () => {
    const team: AccessSettings = {
      everyone: { userIds: [], groupIds: ['S0SUPPORT', 'S0BILLING', 'S0LEADS'] },
      actions: {
        suspend: { userIds: [], groupIds: ['S0BILLING', 'S0LEADS'] },
        unsuspend: { userIds: [], groupIds: ['S0BILLING', 'S0LEADS'] },
        'record-payment': { userIds: [], groupIds: ['S0BILLING'] },
        approve: { userIds: ['U0LEAD'], groupIds: [] },
      },
    };
    const policy = new AccessPolicy(team, members);
    expect(policy.open).toBe(false);
    expect(await policy.allowedActions('U0ANNA')).toEqual(new Set(['lookup', 'activate', 'acknowledge-outage']));
    expect(await policy.allowedActions('U0CARA')).toEqual(new Set(['lookup', 'activate', 'suspend', 'unsuspend', 'record-payment', 'acknowledge-outage']));
    expect(await policy.allowedActions('U0LEAD')).toEqual(new Set(['lookup', 'activate', 'suspend', 'unsuspend', 'approve', 'acknowledge-outage']));
    expect(await policy.check('U0ANNA', 'suspend')).toEqual({ allowed: false, action: 'suspend', needs: team.actions.suspend });
    // Someone outside every group may not use SubOps at all, whatever the action.
    expect(await policy.check('U0STRANGER', 'lookup')).toEqual({ allowed: false, action: undefined, needs: team.everyone });
  });
});
