/**
 * Members of Slack user groups (usergroups.users.list), for the access rule (src/services/access.ts).
 * Each group's list is cached; a stale list answers at once while a fresh one loads, and only a
 * group's very first check waits, briefly: the check runs before Slack's 3-second ack.
 */
import type { webApi } from '@slack/bolt';
import type { Logger } from 'pino';
import type { GroupMembers } from '../services/access.js';
import { errorSummary } from './errors.js';

export interface GroupMembersOptions {
  client: webApi.WebClient;
  logger: Logger;
  /** How long a member list is fresh; membership changes apply after this. */
  cacheMs?: number;
  /** The longest a request waits for a group's first member list. */
  firstLoadWaitMs?: number;
  now?: () => number;
}

interface GroupState {
  members?: { ids: ReadonlySet<string>; loadedAt: number };
  loading?: Promise<void>;
}

// Read through a function: the list may have arrived while a request waited for it.
const membersOf = (state: GroupState): ReadonlySet<string> => state.members?.ids ?? new Set<string>();

export function slackGroupMembers({ client, logger, cacheMs = 60_000, firstLoadWaitMs = 1_500, now = Date.now }: GroupMembersOptions): GroupMembers {
  const groups = new Map<string, GroupState>();

  const load = (usergroup: string, state: GroupState): Promise<void> =>
    (state.loading ??= client.usergroups.users
      .list({ usergroup })
      .then((response) => {
        state.members = { ids: new Set(response.users ?? []), loadedAt: now() };
      })
      .catch((error: unknown) => {
        // Fail closed: until the group can be read, it grants nothing (a stale list keeps serving).
        logger.error({ err: errorSummary(error), usergroup }, 'could not read a user group named in the access settings');
      })
      .finally(() => {
        state.loading = undefined;
      }));

  return async (usergroup) => {
    let state = groups.get(usergroup);
    if (!state) groups.set(usergroup, (state = {}));
    if (state.members && now() - state.members.loadedAt < cacheMs) return state.members.ids;
    const pending = load(usergroup, state);
    if (state.members) return state.members.ids;
    await Promise.race([pending, new Promise((resolve) => setTimeout(resolve, firstLoadWaitMs).unref())]);
    return membersOf(state);
  };
}
