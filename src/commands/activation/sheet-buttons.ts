/**
 * The install sheet's buttons in modals. Template (on the sheet form) sends the template CSV to the
 * agent's DM with the bot, where a private file belongs, as /payments' Export CSV does, and says so in a
 * view pushed over the form (which stays as the agent left it). Install sheet (on the activation form)
 * turns that form into the sheet's, for the same place.
 */
import type { App, BlockAction, ButtonAction } from '@slack/bolt';
import { sheetTemplate } from '../../services/sheets/sheet.js';
import type { ListenerDeps } from '../../slack/deps.js';
import { uploadToDm } from '../../slack/dm-file.js';
import { errorSummary } from '../../slack/errors.js';
import { ActivationMetaSchema, decodeMetadata } from '../../slack/metadata.js';
import { updateView } from '../../slack/modals.js';
import { ACTION } from '../../views/ids.js';
import type { ModalView } from '../../views/kit.js';
import { sheetForm, sheetTemplateFailed, sheetTemplateSending, sheetTemplateSent } from '../../views/sheet.js';

export const SHEET_TEMPLATE_FILENAME = 'install-sheet.csv';

export function registerSheetButtons(app: App, deps: ListenerDeps): void {
  app.action<BlockAction<ButtonAction>>(ACTION.sheetTemplate, async ({ ack, body, client }) => {
    await ack();
    const userId = body.user.id;
    const logger = deps.logger.child({ flow: 'sheet-template', userId });
    // The trigger id lives 3 seconds: the view is pushed first, and says how the upload went once it has.
    let pushedId: string | undefined;
    try {
      pushedId = (await client.views.push({ trigger_id: body.trigger_id, view: sheetTemplateSending() })).view?.id;
    } catch (error) {
      logger.warn({ err: errorSummary(error) }, 'could not show that the template is being sent');
    }
    let shown: ModalView;
    try {
      await uploadToDm(client, userId, { filename: SHEET_TEMPLATE_FILENAME, content: sheetTemplate(), comment: 'The install sheet template: one row per install, then choose the file in `/activate sheet`.' });
      shown = sheetTemplateSent(SHEET_TEMPLATE_FILENAME);
    } catch (error) {
      const summary = errorSummary(error);
      logger.error({ err: summary }, 'could not upload the install sheet template');
      shown = sheetTemplateFailed(summary.slackError ?? summary.message);
    }
    if (pushedId) await updateView(client, { viewId: pushedId, view: shown }, logger);
  });

  app.action<BlockAction<ButtonAction>>(ACTION.sheetOpen, async ({ ack, body, client }) => {
    await ack();
    const logger = deps.logger.child({ flow: 'sheet', userId: body.user.id });
    if (!body.view) return;
    const { origin } = decodeMetadata(ActivationMetaSchema, body.view.private_metadata);
    await updateView(client, { viewId: body.view.id, view: sheetForm(origin) }, logger);
  });
}
