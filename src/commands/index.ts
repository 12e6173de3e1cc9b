/** Every slash command SubOps answers, in the order manifest.yml lists them (checked by a test). Each feature folder registers its own. */
import { activateCommand } from './activation/index.js';
import type { SlashCommand } from './command.js';
import { subopsCommand } from './help/index.js';
import { LOOKUP_COMMANDS } from './lookups/index.js';
import { paymentsCommand } from './payments/index.js';
import { suspendCommand, unsuspendCommand } from './suspension/index.js';

export const SLASH_COMMANDS: readonly SlashCommand[] = [activateCommand, suspendCommand, unsuspendCommand, paymentsCommand, subopsCommand, ...LOOKUP_COMMANDS];
