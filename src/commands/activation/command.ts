/**
 * /activate [device] [first name] [last name]: opens the activation form at once (`/activate sheet`: the
 * install sheet's form, a CSV file or pasted lines, ./sheet.ts). The trigger id lives
 * 3 seconds, so nothing touches UISP before views.open; the plan is computed when the form is submitted.
 */
import { escapeMrkdwn } from '../../slack/escape.js';
import { originOfCommand } from '../../slack/metadata.js';
import { openAndFill } from '../../slack/modals.js';
import { activationForm, type ActivationFormValues } from '../../views/activation.js';
import { helpMessage, notice } from '../../views/help.js';
import { sheetForm } from '../../views/sheet.js';
import type { SlashCommand } from '../command.js';

export const activateCommand: SlashCommand = {
  name: '/activate',
  description: 'Activate a subscriber: device, CRM client, service and NMS site',
  usageHint: '[device IP, MAC or name] [first name] [last name] | sheet | help',
  listener: (deps) => async ({ command, ack, client, respond }) => {
    const text = command.text.trim();
    if (/^help$/i.test(text)) {
      await ack({ response_type: 'ephemeral', ...helpMessage() });
      return;
    }
    await ack();
    const origin = originOfCommand(command);
    const logger = deps.logger.child({ command: '/activate', userId: command.user_id });
    if (/^sheet$/i.test(text)) {
      const opened = await openAndFill(client, { triggerId: command.trigger_id, view: sheetForm(origin), logger });
      if (!opened) await respond({ response_type: 'ephemeral', ...notice(':x: Slack did not open the install sheet form; try `/activate sheet` again.') });
      return;
    }
    const opened = await openAndFill(client, { triggerId: command.trigger_id, view: activationForm({ origin, values: prefill(text) }), logger });
    if (!opened) await respond({ response_type: 'ephemeral', ...notice(`:x: Slack did not open the activation form; try \`/activate ${escapeMrkdwn(text)}\` again.`) });
  },
};

/** `10.0.0.5 jane van der berg` → device, first name, and the rest as the last name. */
function prefill(text: string): ActivationFormValues {
  const [device, firstName, ...rest] = text.split(/\s+/).filter(Boolean);
  return { ...(device && { device }), ...(firstName && { firstName }), ...(rest.length && { lastName: rest.join(' ') }) };
}
