/**
 * The bot's Home tab. Opening it (`app_home_opened`) publishes the agent's and the team's recent
 * operations, read back from the metadata of the audit messages SubOps wrote, and the activations still awaiting
 * their manual CRM–NMS link, read from UISP. Its buttons open the existing forms, the install sheet's
 * included (results, the sheet's thread too, go to the agent's DM with the bot) and a client lookup whose card lands in that DM. The global access guard
 * (src/slack/access.ts) checks the Home tab and its buttons like every command.
 */
import type { App, BlockAction, ButtonAction, SlackActionMiddlewareArgs } from '@slack/bolt';
import type { ListenerDeps } from '../../slack/deps.js';
import { describeFailure, errorSummary } from '../../slack/errors.js';
import { originOfAction, type Origin } from '../../slack/metadata.js';
import { openAndFill } from '../../slack/modals.js';
import { openPaymentForm } from '../payments/record-form.js';
import { readInputs } from '../../slack/state.js';
import { openSuspensionForm } from '../suspension/build-form.js';
import { activationForm } from '../../views/activation.js';
import { sheetForm } from '../../views/sheet.js';
import { clientLookupModal, HOME_ACTION, HOME_LIST_LENGTH, HOME_LOOKUP, homeView, type HomeInput, type Part } from '../../views/home.js';
import type { AccessAction } from '../../services/access.js';
import { pendingRequests } from '../approvals/index.js';
import { answer, clientAnswer } from '../lookups/index.js';
import { readAuditTrail } from './audit-trail.js';

type ButtonArgs = SlackActionMiddlewareArgs<BlockAction<ButtonAction>> & { client: App['client'] };

/** Reads what the Home tab shows and publishes it for this user. */
export async function publishHome(client: App['client'], deps: ListenerDeps, userId: string): Promise<void> {
  const { auditChannelId, services, identity } = deps;
  const allowed = await deps.access.allowedActions(userId);
  // What happened lately is a lookup: a user who may not look things up gets the buttons they may use.
  const [operations, missingLinks, outages] = allowed.has('lookup')
    ? await Promise.all([
        auditChannelId
          ? settle(readAuditTrail(client, auditChannelId, identity, userId, HOME_LIST_LENGTH), 'Could not read the audit channel')
          : ({ ok: false, problem: 'AUDIT_CHANNEL_ID is not set: SubOps keeps no record of operations to show.' } as const),
        settle(services.lookups.missingLinks(), 'Could not read the NMS sites'),
        settle(services.outages.inProgress(), 'Could not read the outages in progress'),
      ])
    : [undefined, undefined, undefined];
  const approvals = await pendingFor(deps, userId, allowed);
  await client.views.publish({ user_id: userId, view: homeView({ userId, operations, missingLinks, outages, now: new Date(), allowed, approvals }) });
}

/** With approvals configured: the user's own pending requests and, for an approver, those waiting for them. */
async function pendingFor(deps: ListenerDeps, userId: string, allowed: ReadonlySet<AccessAction>): Promise<HomeInput['approvals']> {
  if (!deps.approvals.settings.required.size) return undefined;
  const part = await settle(pendingRequests(deps), 'Could not read the approval requests');
  if (!part.ok) return part;
  const mine = part.value.filter((stored) => stored.request.requester === userId);
  const waiting = allowed.has('approve') ? part.value.filter((stored) => stored.request.requester !== userId) : undefined;
  return { ok: true, value: { mine, waiting } };
}

async function settle<T>(reading: Promise<T>, what: string): Promise<Part<T>> {
  try {
    return { ok: true, value: await reading };
  } catch (error) {
    const failure = describeFailure(error);
    return { ok: false, problem: `${what}: ${failure.message}` };
  }
}

export function register(app: App, deps: ListenerDeps): void {
  const logger = deps.logger.child({ flow: 'home' });

  app.event('app_home_opened', async ({ event, client }) => {
    if (event.tab !== 'home') return;
    try {
      await publishHome(client, deps, event.user);
    } catch (error) {
      logger.warn({ err: errorSummary(error), userId: event.user }, 'could not publish the Home tab');
    }
  });

  /** A Home button: acked at once, its form opened with the trigger id; results go to the agent's DM with the bot. */
  const opens = (flow: string, open: (args: ButtonArgs, origin: Origin) => Promise<boolean>) => async (args: ButtonArgs) => {
    await args.ack();
    const origin = originOfAction(args.body);
    if (!(await open(args, origin))) logger.warn({ flow, userId: origin.userId }, 'Slack did not open the form from the Home tab');
  };

  app.action<BlockAction<ButtonAction>>(
    HOME_ACTION.activate,
    opens('activate', ({ body, client }, origin) => openAndFill(client, { triggerId: body.trigger_id, view: activationForm({ origin }), logger })),
  );
  app.action<BlockAction<ButtonAction>>(
    HOME_ACTION.sheet,
    opens('sheet', ({ body, client }, origin) => openAndFill(client, { triggerId: body.trigger_id, view: sheetForm(origin), logger })),
  );
  for (const action of ['suspend', 'unsuspend'] as const) {
    app.action<BlockAction<ButtonAction>>(
      HOME_ACTION[action],
      opens(action, ({ body, client }, origin) => openSuspensionForm(deps, client, { triggerId: body.trigger_id, action, origin, values: {}, logger })),
    );
  }
  app.action<BlockAction<ButtonAction>>(
    HOME_ACTION.payment,
    opens('payment', ({ body, client }, origin) => openPaymentForm(deps, client, { triggerId: body.trigger_id, origin, values: {}, logger })),
  );
  app.action<BlockAction<ButtonAction>>(
    HOME_ACTION.lookupClient,
    opens('lookup', ({ body, client }) => openAndFill(client, { triggerId: body.trigger_id, view: clientLookupModal(), logger })),
  );

  // The lookup modal closes at once; the card (or the list, or "nothing matches") arrives in the agent's DM.
  app.view(HOME_LOOKUP.callbackId, async ({ ack, body, view, client }) => {
    const query = readInputs(view.state.values)[HOME_LOOKUP.blockId];
    if (!query) {
      await ack({ response_action: 'errors', errors: { [HOME_LOOKUP.blockId]: 'Type a client name, id or #id.' } });
      return;
    }
    await ack();
    const userId = body.user.id;
    const card = await answer(deps, '/client', userId, async () => clientAnswer(deps, userId, await deps.services.lookups.client(query)));
    try {
      const dm = await client.conversations.open({ users: userId });
      if (!dm.channel?.id) throw new Error('conversations.open returned no channel');
      await client.chat.postMessage({ channel: dm.channel.id, ...card, unfurl_links: false });
    } catch (error) {
      logger.warn({ err: errorSummary(error), userId }, 'could not post the client card to the agent');
    }
  });
}
