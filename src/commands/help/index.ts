/** /subops [help]: what every command does. */
import type { App } from '@slack/bolt';
import type { ListenerDeps } from '../../slack/deps.js';
import { helpMessage } from '../../views/help.js';
import type { SlashCommand } from '../command.js';

export const subopsCommand: SlashCommand = {
  name: '/subops',
  description: 'SubOps help: every command explained',
  usageHint: 'help',
  listener: () => async ({ ack }) => {
    await ack({ response_type: 'ephemeral', ...helpMessage() });
  },
};

export function register(app: App, deps: ListenerDeps): void {
  app.command(subopsCommand.name, subopsCommand.listener(deps));
}
