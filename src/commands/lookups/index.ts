/**
 * Everyday lookups in Slack: /client and /device answer the agent alone with a card (or a short list,
 * or "nothing matches"), and the card's buttons start the existing flows pre-filled: the suspend and
 * unsuspend forms, the record-payment form and the activation form. Every button passes the same access
 * rules as the commands (the global access middleware in src/slack/access.ts).
 */
import type { App, BlockAction, BlockElementAction, ButtonAction, SlackActionMiddlewareArgs } from '@slack/bolt';
import type { Logger } from 'pino';
import { deviceKey, type ClientLookup, type DeviceLookup } from '../../services/lookups/index.js';
import type { ListenerDeps } from '../../slack/deps.js';
import { describeFailure } from '../../slack/errors.js';
import { escapeMrkdwn } from '../../slack/escape.js';
import { ActivatePrefillSchema, decodeMetadata, originOfAction, type Origin } from '../../slack/metadata.js';
import { openAndFill } from '../../slack/modals.js';
import { openPaymentForm } from '../payments/record-form.js';
import { openSuspensionForm } from '../suspension/build-form.js';
import { activationForm } from '../../views/activation.js';
import { notice } from '../../views/help.js';
import { actionsOf, type SlackMessage } from '../../views/kit.js';
import { clientCardMessage, clientMatchesMessage, deviceCardMessage, deviceMatchesMessage, LOOKUP_ACTION, noClientMessage, noDeviceMessage } from '../../views/lookups.js';
import type { SlashCommand } from '../command.js';

export const clientCommand: SlashCommand = {
  name: '/client',
  description: 'Look up a client: balance, services, last payment, site and devices',
  usageHint: '<name | id | #id>',
  listener: (deps) => async ({ command, ack, respond }) => {
    const text = command.text.trim();
    if (!text) {
      await ack({ response_type: 'ephemeral', ...notice('Usage: `/client <name | id | #id>`, e.g. `/client #1001` or `/client kevin singh`.') });
      return;
    }
    await ack();
    await respond({ response_type: 'ephemeral', ...(await answer(deps, '/client', command.user_id, async () => clientAnswer(deps, command.user_id, await deps.services.lookups.client(text)))) });
  },
};

export const deviceCommand: SlashCommand = {
  name: '/device',
  description: 'Look up a device: status, signal, uptime, site and client',
  usageHint: '<ip | mac | name>',
  listener: (deps) => async ({ command, ack, respond }) => {
    const text = command.text.trim();
    if (!text) {
      await ack({ response_type: 'ephemeral', ...notice('Usage: `/device <ip | mac | name>`, e.g. `/device 10.20.1.21`.') });
      return;
    }
    await ack();
    await respond({ response_type: 'ephemeral', ...(await answer(deps, '/device', command.user_id, async () => deviceAnswer(deps, command.user_id, await deps.services.lookups.device(text)))) });
  },
};

export const LOOKUP_COMMANDS: readonly SlashCommand[] = [clientCommand, deviceCommand];

/** The lookup as a message; bad input and UISP failures as a one-line notice (nothing was changed: lookups only read). */
export async function answer(deps: ListenerDeps, command: string, userId: string, lookup: () => Promise<SlackMessage>): Promise<SlackMessage> {
  try {
    return await lookup();
  } catch (error) {
    const failure = describeFailure(error);
    if (!failure.expected) deps.logger.error({ err: error, command, userId }, 'lookup failed');
    return notice(`:x: ${escapeMrkdwn(failure.message)}`);
  }
}

/** `userId`: who the answer is for; only the buttons of actions they may do are offered. */
export async function clientAnswer(deps: ListenerDeps, userId: string, found: ClientLookup): Promise<SlackMessage> {
  if (found.kind === 'matches') return clientMatchesMessage(found.query, found.matches);
  const allowed = await deps.access.allowedActions(userId);
  if (found.kind === 'none') return noClientMessage(found.query, found.activate, allowed);
  // Late duplicates the card read: the audit-channel notice with Remove duplicate (once), and a line on the card.
  if (found.card.duplicates.length) deps.lateDuplicates.post(found.card.duplicates, 'card');
  const methodId = found.card.lastPayment?.methodId;
  const methods = methodId ? await deps.services.payments.listMethods().catch(() => []) : [];
  return clientCardMessage(found.card, (id) => methods.find((m) => m.id === id)?.name, allowed);
}

async function deviceAnswer(deps: ListenerDeps, userId: string, found: DeviceLookup): Promise<SlackMessage> {
  if (found.kind === 'matches') return deviceMatchesMessage(found.query, found.matches, deviceKey);
  if (found.kind === 'none') return noDeviceMessage(found.query);
  return deviceCardMessage(found.card, await deps.access.allowedActions(userId));
}

type ButtonArgs = SlackActionMiddlewareArgs<BlockAction<ButtonAction>> & { client: App['client'] };

/** A button that opens a form: acked at once, the form opened with the trigger id, a refusal told to the agent. */
function opensForm(deps: ListenerDeps, flow: string, open: (args: ButtonArgs, origin: Origin, logger: Logger) => Promise<boolean>) {
  return async (args: ButtonArgs) => {
    await args.ack();
    const origin = originOfAction(args.body);
    const logger = deps.logger.child({ flow, userId: origin.userId });
    if (!(await open(args, origin, logger))) await args.respond({ response_type: 'ephemeral', replace_original: false, ...notice(':x: Slack did not open the form; press the button again.') });
  };
}

export function register(app: App, deps: ListenerDeps): void {
  for (const command of LOOKUP_COMMANDS) app.command(command.name, command.listener(deps));

  // The list's Open buttons replace the list with the card.
  app.action<BlockAction<BlockElementAction>>(actionsOf(LOOKUP_ACTION.openClient), async ({ ack, action, body, respond }) => {
    await ack();
    const id = 'value' in action ? action.value : undefined;
    await respond({ response_type: 'ephemeral', replace_original: true, ...(await answer(deps, '/client', body.user.id, async () => clientAnswer(deps, body.user.id, await deps.services.lookups.client(`#${id ?? ''}`)))) });
  });
  app.action<BlockAction<BlockElementAction>>(actionsOf(LOOKUP_ACTION.openDevice), async ({ ack, action, body, respond }) => {
    await ack();
    const key = 'value' in action ? action.value : undefined;
    await respond({ response_type: 'ephemeral', replace_original: true, ...(await answer(deps, '/device', body.user.id, async () => deviceAnswer(deps, body.user.id, await deps.services.lookups.device(key ?? '')))) });
  });

  // Card buttons start the existing flows, pre-filled; the forms re-read UISP when submitted.
  for (const action of ['suspend', 'unsuspend'] as const) {
    app.action<BlockAction<ButtonAction>>(
      actionsOf(LOOKUP_ACTION[action]),
      opensForm(deps, action, ({ body, action: pressed, client }, origin, logger) => openSuspensionForm(deps, client, { triggerId: body.trigger_id, action, origin, values: { serviceId: pressed.value ?? '' }, logger })),
    );
  }
  app.action<BlockAction<ButtonAction>>(
    LOOKUP_ACTION.recordPayment,
    opensForm(deps, 'payment', ({ body, action, client }, origin, logger) => openPaymentForm(deps, client, { triggerId: body.trigger_id, origin, values: { client: action.value ?? '' }, logger })),
  );
  app.action<BlockAction<ButtonAction>>(
    LOOKUP_ACTION.activate,
    opensForm(deps, 'activate', ({ body, action, client }, origin, logger) => {
      const { clientId, ...typed } = decodeMetadata(ActivatePrefillSchema, action.value);
      const values = { ...typed, ...(clientId !== undefined && { clientId: String(clientId) }) };
      return openAndFill(client, { triggerId: body.trigger_id, view: activationForm({ origin, values }), logger });
    }),
  );
}
