/** Every slash command SubOps answers; manifest.yml lists exactly these (checked by a test). */
import type { App } from '@slack/bolt';
import type { ListenerDeps } from '../slack/deps.js';
import { activateCommand } from './activate.js';
import type { SlashCommand } from './command.js';
import { subopsCommand } from './help.js';
import { suspendCommand } from './suspend.js';
import { unsuspendCommand } from './unsuspend.js';
import { LOOKUP_COMMANDS } from './lookups/index.js';
import { paymentsCommand } from './payments/index.js';

/** The commands registered here; feature folders (src/commands/<feature>/) register their own. */
const COMMANDS: readonly SlashCommand[] = [activateCommand, suspendCommand, unsuspendCommand, subopsCommand];

/** In the order manifest.yml lists them. */
export const SLASH_COMMANDS: readonly SlashCommand[] = [activateCommand, suspendCommand, unsuspendCommand, paymentsCommand, subopsCommand, ...LOOKUP_COMMANDS];

export function register(app: App, deps: ListenerDeps): void {
  for (const command of COMMANDS) app.command(command.name, command.listener(deps));
}
