/** Enter in the suspension form's client-id box: re-render the form with that client's services to pick from. */
import type { App, BlockAction, ExternalSelectAction, PlainTextInputAction } from '@slack/bolt';
import { readId } from '../../services/input/grammar.js';
import type { ListenerDeps } from '../../slack/deps.js';
import { decodeMetadata, SuspensionMetaSchema } from '../../slack/metadata.js';
import { updateView } from '../../slack/modals.js';
import { readInputs } from '../../slack/state.js';
import { buildSuspensionForm, suspensionFormValues } from './build-form.js';
import { ACTION } from '../../views/ids.js';

export function registerClientLookup(app: App, deps: ListenerDeps): void {
  app.action<BlockAction<PlainTextInputAction | ExternalSelectAction>>(ACTION.suspensionClientLookup, async ({ ack, body, action, client }) => {
    await ack();
    const view = body.view;
    if (!view) return;
    const meta = decodeMetadata(SuspensionMetaSchema, view.private_metadata);
    const values = { ...suspensionFormValues(readInputs(view.state.values)), clientId: (action.type === 'external_select' ? action.selected_option?.value : action.value)?.trim() };
    const read = readId(values.clientId, 'Client id');
    const clientId = read.ok ? read.value : undefined;
    const logger = deps.logger.child({ flow: meta.action, userId: body.user.id });
    const form = await buildSuspensionForm(deps, {
      action: meta.action,
      origin: meta.origin,
      // A different client's service must not stay selected.
      values: { ...values, clientServiceId: undefined },
      clientId,
      ...(!read.ok && { problems: { client: read.problem } }),
    });
    await updateView(client, { viewId: view.id, view: form, hash: view.hash }, logger);
  });
}
