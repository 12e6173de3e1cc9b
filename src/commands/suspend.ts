/** /suspend [service id]: suspend a CRM service with a reason, after confirmation. */
import type { SlashCommand } from './command.js';
import { suspensionCommandListener } from './suspension.js';

export const suspendCommand: SlashCommand = {
  name: '/suspend',
  description: 'Suspend a CRM service (with a reason, after confirmation)',
  usageHint: '[service id]',
  listener: (deps) => suspensionCommandListener('suspend', deps),
};
