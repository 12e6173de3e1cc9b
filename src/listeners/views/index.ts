/** Every view-submission listener. */
import type { App } from '@slack/bolt';
import type { ListenerDeps } from '../../slack/deps.js';
import * as activateConfirm from './activate-confirm.js';
import * as activateForm from './activate-form.js';
import * as paymentForm from './payment-form.js';
import * as suspensionConfirm from './suspension-confirm.js';
import * as suspensionForm from './suspension-form.js';

export function register(app: App, deps: ListenerDeps): void {
  for (const listener of [activateForm, activateConfirm, suspensionForm, suspensionConfirm, paymentForm]) listener.register(app, deps);
}
