/** /unsuspend [service id]: lift a suspension through the CRM's cancel-suspend, after confirmation. */
import type { SlashCommand } from './command.js';
import { suspensionCommandListener } from './suspension.js';

export const unsuspendCommand: SlashCommand = {
  name: '/unsuspend',
  description: 'Lift the suspension of a CRM service (after confirmation)',
  usageHint: '[service id]',
  listener: (deps) => suspensionCommandListener('unsuspend', deps),
};
