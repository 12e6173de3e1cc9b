/**
 * Who may run SubOps: ALLOWED_USER_IDS and/or members of ALLOWED_USERGROUP_ID. With neither set,
 * everyone may (startup warns). Enforced by one global middleware, so no listener can forget it:
 * a refused user gets an ephemeral refusal and nothing else runs.
 */
import type { AnyMiddlewareArgs, Middleware, webApi } from '@slack/bolt';
import type { Logger } from 'pino';
import { ACCESS_REFUSED, notice } from '../views/help.js';
import { CALLBACK } from '../views/ids.js';
import { modal, section } from '../views/kit.js';
import { errorSummary } from './errors.js';

export interface AccessPolicy {
  /** True when no list is configured and everyone may act. */
  readonly open: boolean;
  isAllowed(userId: string): Promise<boolean>;
}

export interface AccessOptions {
  allowedUserIds: string[];
  allowedUsergroupId: string | undefined;
  client: webApi.WebClient;
  logger: Logger;
  /** How long a user group's member list is fresh; membership changes apply after this. */
  cacheMs?: number;
  /** The longest a request waits for the first member list: the check runs before the 3-second ack. */
  firstLoadWaitMs?: number;
  now?: () => number;
}

export function createAccessPolicy(options: AccessOptions): AccessPolicy {
  const { allowedUserIds, allowedUsergroupId, client, logger, cacheMs = 60_000, firstLoadWaitMs = 1_500, now = Date.now } = options;
  const users = new Set(allowedUserIds);
  let group: { members: Set<string>; loadedAt: number } | undefined;
  let loading: Promise<void> | undefined;
  // Read through a function: `group` changes while a request awaits the load.
  const loaded = () => group;

  const load = (usergroup: string): Promise<void> =>
    (loading ??= client.usergroups.users
      .list({ usergroup })
      .then((response) => {
        group = { members: new Set(response.users ?? []), loadedAt: now() };
      })
      .catch((error: unknown) => {
        // Fail closed: until the group can be read, it grants nothing (a stale list keeps serving).
        logger.error({ err: errorSummary(error), usergroup }, 'could not read the allowed user group');
      })
      .finally(() => {
        loading = undefined;
      }));

  async function groupMembers(usergroup: string): Promise<Set<string>> {
    if (group && now() - group.loadedAt < cacheMs) return group.members;
    const pending = load(usergroup);
    // A stale list answers at once while the fresh one loads; only the very first check waits.
    if (group) return group.members;
    await Promise.race([pending, new Promise((resolve) => setTimeout(resolve, firstLoadWaitMs).unref())]);
    return loaded()?.members ?? new Set<string>();
  }

  return {
    open: users.size === 0 && !allowedUsergroupId,
    async isAllowed(userId) {
      if (users.size === 0 && !allowedUsergroupId) return true;
      if (users.has(userId)) return true;
      return allowedUsergroupId ? (await groupMembers(allowedUsergroupId)).has(userId) : false;
    },
  };
}

type Body = Record<string, unknown> & {
  type?: string;
  user_id?: string;
  user?: { id?: string };
  response_url?: string;
  view?: { id?: string; type?: string };
  container?: { type?: string };
  event?: { type?: string; user?: string };
};

/** The user a request acts for: a command's or an interaction's, or whoever opened the Home tab. */
function actingUser(body: Body): string | undefined {
  if (body.type === 'event_callback') return body.event?.type === 'app_home_opened' ? body.event.user : undefined;
  return body.user_id ?? body.user?.id;
}

const refusalHome = () => ({ type: 'home' as const, blocks: [section(ACCESS_REFUSED)] });
const refusalModal = () => modal({ callbackId: CALLBACK.info, title: 'SubOps', close: 'Close', blocks: [section(ACCESS_REFUSED)] });

/**
 * Global middleware: every command, block action, view submission, options request and Home tab
 * opening passes the policy or is refused: a refusal modal or message, no options, a refusal Home tab.
 */
export function accessGuard(policy: AccessPolicy, logger: Logger): Middleware<AnyMiddlewareArgs> {
  return async (args) => {
    const body = args.body as Body;
    const userId = actingUser(body);
    if (policy.open || !userId || (await policy.isAllowed(userId))) {
      await args.next();
      return;
    }
    logger.warn({ userId, kind: body.event?.type ?? body.type ?? 'slash_command', command: body.command }, 'refused a user who is not allowed to run SubOps');
    const ack = 'ack' in args ? (args.ack as (response?: unknown) => Promise<void>) : undefined;
    if (body.type === 'block_suggestion') {
      // An options request is answered with options only: a refused user is offered none.
      await ack?.({ options: [] });
      return;
    }
    if (body.type === 'event_callback') {
      await args.client.views.publish({ user_id: userId, view: refusalHome() });
      return;
    }
    if (body.type === 'view_submission') {
      await ack?.({ response_action: 'update', view: refusalModal() });
      return;
    }
    if (body.type === 'block_actions') {
      await ack?.();
      if (body.view?.type === 'home') await args.client.views.publish({ user_id: userId, view: refusalHome() });
      else if (body.container?.type === 'view' && body.view?.id) await args.client.views.update({ view_id: body.view.id, view: refusalModal() });
      else if ('respond' in args) await (args.respond as (m: unknown) => Promise<unknown>)({ response_type: 'ephemeral', replace_original: false, ...notice(ACCESS_REFUSED) });
      return;
    }
    // Slash commands: the ack body is the ephemeral answer.
    await ack?.({ response_type: 'ephemeral', ...notice(ACCESS_REFUSED) });
  };
}
