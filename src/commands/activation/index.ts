/**
 * Activation in Slack: /activate opens the form; its submission plans and, when the plan deletes or moves
 * something, asks for a confirmation; the run posts progress in a thread; Retry on a failure re-runs it.
 * /activate sheet checks and runs an install sheet, and Continue finishes one whose process stopped.
 */
import type { App } from '@slack/bolt';
import type { ListenerDeps } from '../../slack/deps.js';
import { activateCommand } from './command.js';
import { registerConfirm } from './confirm.js';
import { registerForm } from './form.js';
import { registerRetry } from './retry.js';
import { registerSheet } from './sheet.js';
import { registerSheetContinue } from './sheet-continue.js';
import { registerSheetButtons } from './sheet-buttons.js';

export { activateCommand };

export function register(app: App, deps: ListenerDeps): void {
  app.command(activateCommand.name, activateCommand.listener(deps));
  registerForm(app, deps);
  registerConfirm(app, deps);
  registerRetry(app, deps);
  registerSheet(app, deps);
  registerSheetContinue(app, deps);
  registerSheetButtons(app, deps);
}
