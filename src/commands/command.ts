/** The shape of one slash command: its manifest entry and its listener. */
import type { Middleware, SlackCommandMiddlewareArgs } from '@slack/bolt';
import type { ListenerDeps } from '../slack/deps.js';

export interface SlashCommand {
  /** As registered and as listed in manifest.yml. */
  name: string;
  description: string;
  usageHint: string;
  listener(deps: ListenerDeps): Middleware<SlackCommandMiddlewareArgs>;
}
