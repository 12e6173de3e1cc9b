/**
 * /suspend and /unsuspend: the form (a service id, or a client then one of its services, and a reason),
 * the confirmation showing the current status, and the run with its thread and audit record.
 */
import type { App } from '@slack/bolt';
import type { ListenerDeps } from '../../slack/deps.js';
import { registerClientLookup } from './client-lookup.js';
import { suspendCommand, unsuspendCommand } from './command.js';
import { registerConfirm } from './confirm.js';
import { registerForm } from './form.js';

export { suspendCommand, unsuspendCommand };

export function register(app: App, deps: ListenerDeps): void {
  for (const command of [suspendCommand, unsuspendCommand]) app.command(command.name, command.listener(deps));
  registerForm(app, deps);
  registerConfirm(app, deps);
  registerClientLookup(app, deps);
}
