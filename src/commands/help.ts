/** /subops [help]: what every command does. */
import { helpMessage } from '../views/help.js';
import type { SlashCommand } from './command.js';

export const subopsCommand: SlashCommand = {
  name: '/subops',
  description: 'SubOps help: every command explained',
  usageHint: 'help',
  listener: () => async ({ ack }) => {
    await ack({ response_type: 'ephemeral', ...helpMessage() });
  },
};
