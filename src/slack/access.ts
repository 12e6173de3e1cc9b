/**
 * The access rule (src/services/access.ts) applied to every request Slack sends, by one global
 * middleware, so no listener can forget it: the request's entry point names the action it needs
 * (src/slack/entry-points.ts), and a refused user is told, in the place they acted, which action needs
 * which group; nothing else runs, so nothing is read from UISP or written.
 */
import type { AnyMiddlewareArgs, Middleware } from '@slack/bolt';
import type { Logger } from 'pino';
import type { AccessDecision, AccessPolicy } from '../services/access.js';
import { accessRefusalText } from '../views/access.js';
import { notice } from '../views/help.js';
import { CALLBACK } from '../views/ids.js';
import { modal, section } from '../views/kit.js';
import { entryNeeds, type EntryKind } from './entry-points.js';

type Body = Record<string, unknown> & {
  type?: string;
  command?: string;
  text?: string;
  action_id?: string;
  actions?: { action_id?: string }[];
  user_id?: string;
  user?: { id?: string };
  view?: { id?: string; type?: string; callback_id?: string; private_metadata?: string };
  container?: { type?: string };
  event?: { type?: string; user?: string };
};

/** The user a request acts for: a command's or an interaction's, or whoever opened the Home tab. */
function actingUser(body: Body): string | undefined {
  if (body.type === 'event_callback') return body.event?.type === 'app_home_opened' ? body.event.user : undefined;
  return body.user_id ?? body.user?.id;
}

/** Which entry point a request came through, as the table names them. */
function entryOf(body: Body): { kind: EntryKind; id: string } | undefined {
  if (body.command) return { kind: 'command', id: body.command };
  switch (body.type) {
    case 'view_submission':
      return { kind: 'view', id: body.view?.callback_id ?? '' };
    case 'block_actions':
      return { kind: 'button', id: body.actions?.[0]?.action_id ?? '' };
    case 'block_suggestion':
      return { kind: 'options', id: body.action_id ?? '' };
    case 'event_callback':
      return { kind: 'event', id: body.event?.type ?? '' };
    default:
      return undefined;
  }
}

async function decide(policy: AccessPolicy, userId: string, body: Body, logger: Logger): Promise<AccessDecision> {
  const entry = entryOf(body);
  const needs = entry && entryNeeds(entry.kind, entry.id, body);
  if (needs === undefined) {
    // Fail closed: an entry point without a row in the table (a test keeps the table complete).
    if (policy.open) return { allowed: true };
    logger.error({ entry, type: body.type }, 'no access rule for this entry point; refused');
    return { allowed: false, action: undefined, needs: { userIds: [], groupIds: [] } };
  }
  return policy.check(userId, needs === 'none' ? undefined : needs);
}

const refusalModal = (text: string) => modal({ callbackId: CALLBACK.info, title: 'SubOps', close: 'Close', blocks: [section(text)] });

/**
 * Global middleware: every command, block action, view submission, options request and Home tab
 * opening passes the rule or is refused: a refusal modal or message, no options, a refusal Home tab.
 */
export function accessGuard(policy: AccessPolicy, logger: Logger): Middleware<AnyMiddlewareArgs> {
  return async (args) => {
    const body = args.body as Body;
    const userId = actingUser(body);
    const decision = policy.open || !userId ? ({ allowed: true } as const) : await decide(policy, userId, body, logger);
    if (decision.allowed) {
      await args.next();
      return;
    }
    logger.warn({ userId, kind: body.event?.type ?? body.type ?? 'slash_command', command: body.command, action: decision.action }, 'refused a user the access settings do not allow this');
    const text = accessRefusalText(decision);
    const ack = 'ack' in args ? (args.ack as (response?: unknown) => Promise<void>) : undefined;
    if (body.type === 'block_suggestion') {
      // An options request is answered with options only: a refused user is offered none.
      await ack?.({ options: [] });
      return;
    }
    if (body.type === 'event_callback') {
      await args.client.views.publish({ user_id: userId!, view: { type: 'home', blocks: [section(text)] } });
      return;
    }
    if (body.type === 'view_submission') {
      await ack?.({ response_action: 'update', view: refusalModal(text) });
      return;
    }
    if (body.type === 'block_actions') {
      await ack?.();
      if (body.view?.type === 'home') {
        // Refused SubOps altogether: the Home tab says so. Refused one action: told in the Messages tab, the Home tab stays.
        if (decision.action) await args.client.chat.postMessage({ channel: userId!, ...notice(text) });
        else await args.client.views.publish({ user_id: userId!, view: { type: 'home', blocks: [section(text)] } });
      } else if (body.container?.type === 'view' && body.view?.id) await args.client.views.update({ view_id: body.view.id, view: refusalModal(text) });
      else if ('respond' in args) await (args.respond as (m: unknown) => Promise<unknown>)({ response_type: 'ephemeral', replace_original: false, ...notice(text) });
      return;
    }
    // Slash commands: the ack body is the ephemeral answer.
    await ack?.({ response_type: 'ephemeral', ...notice(text) });
  };
}
