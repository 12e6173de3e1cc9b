/**
 * /suspend [service id] and /unsuspend [service id]: one slash-command flow for both. It opens the form at
 * once (pre-filled with a service id argument), then fills in what it needs from the CRM.
 */
import type { Middleware, SlackCommandMiddlewareArgs } from '@slack/bolt';
import { optional, readId } from '../../services/input/grammar.js';
import type { ListenerDeps } from '../../slack/deps.js';
import { escapeMrkdwn } from '../../slack/escape.js';
import { originOfCommand, type SuspensionAction } from '../../slack/metadata.js';
import { openSuspensionForm } from './build-form.js';
import { notice } from '../../views/help.js';
import type { SlashCommand } from '../command.js';

function suspensionCommandListener(action: SuspensionAction, deps: ListenerDeps): Middleware<SlackCommandMiddlewareArgs> {
  return async ({ command, ack, client, respond }) => {
    const text = command.text.trim();
    const read = optional(readId)(text, 'Service id');
    if (!read.ok) {
      await ack({ response_type: 'ephemeral', ...notice(`${escapeMrkdwn(read.problem)} You typed \`${escapeMrkdwn(text)}\`. Usage: \`/${action} [service id]\`. Nothing was changed.`) });
      return;
    }
    await ack();
    const origin = originOfCommand(command);
    const logger = deps.logger.child({ command: `/${action}`, userId: command.user_id });
    const values = text ? { serviceId: text } : {};
    const opened = await openSuspensionForm(deps, client, { triggerId: command.trigger_id, action, origin, values, logger });
    if (!opened) await respond({ response_type: 'ephemeral', ...notice(`:x: Slack did not open the /${action} form; try again.`) });
  };
}

export const suspendCommand: SlashCommand = {
  name: '/suspend',
  description: 'Suspend a CRM service (with a reason, after confirmation)',
  usageHint: '[service id]',
  listener: (deps) => suspensionCommandListener('suspend', deps),
};

/** Lifts a suspension through the CRM's cancel-suspend. */
export const unsuspendCommand: SlashCommand = {
  name: '/unsuspend',
  description: 'Lift the suspension of a CRM service (after confirmation)',
  usageHint: '[service id]',
  listener: (deps) => suspensionCommandListener('unsuspend', deps),
};
