/** Every block-action listener. */
import type { App } from '@slack/bolt';
import type { ListenerDeps } from '../../slack/deps.js';
import * as activationRetry from './activation-retry.js';
import * as suspensionClientLookup from './suspension-client-lookup.js';

export function register(app: App, deps: ListenerDeps): void {
  for (const listener of [activationRetry, suspensionClientLookup]) listener.register(app, deps);
}
