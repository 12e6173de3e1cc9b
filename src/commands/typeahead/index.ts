/**
 * Typeahead in the forms: Slack asks for options as the agent types in a device or client field
 * (block_suggestion, in HTTP mode at the options load URL, in Socket Mode over the socket) and gets them
 * from the services' typeahead within its deadline (devices from a cached index, clients asked of the
 * CRM as typed). The access guard answers a refused user with no options before this runs.
 */
import type { App } from '@slack/bolt';
import type { Suggestions } from '../../services/lookups/index.js';
import type { ListenerDeps } from '../../slack/deps.js';
import { errorSummary } from '../../slack/errors.js';
import { ACTION, TYPEAHEAD } from '../../views/ids.js';
import { typeaheadOptions } from '../../views/typeahead.js';

type OptionsArgs = { ack: (response: ReturnType<typeof typeaheadOptions>) => Promise<void>; body: { value: string; user: { id: string } } };

export function register(app: App, deps: ListenerDeps): void {
  const { typeahead } = deps.services.lookups;
  const answer = (suggest: (query: string) => Promise<Suggestions>) => async ({ ack, body }: OptionsArgs) => {
    try {
      await ack(typeaheadOptions(await suggest(body.value)));
    } catch (error) {
      // The typeahead never rejects; this is Slack refusing the answer. The agent can still type.
      deps.logger.warn({ err: errorSummary(error), userId: body.user.id }, 'could not answer an options request');
    }
  };
  app.options(TYPEAHEAD.device, answer((query) => typeahead.device(query)));
  app.options(TYPEAHEAD.client, answer((query) => typeahead.client(query)));
  // The suspension form's client field: picking a client also lists its services (a block action).
  app.options(ACTION.suspensionClientLookup, answer((query) => typeahead.client(query)));
}
