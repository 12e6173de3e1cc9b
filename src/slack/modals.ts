/**
 * Opening and updating modals. A trigger id lives 3 seconds, so a modal opens at once and anything it
 * needs from UISP (reasons, payment methods) is filled in with views.update when it arrives.
 */
import type { webApi } from '@slack/bolt';
import type { Logger } from 'pino';
import type { ModalView } from '../views/kit.js';
import { errorSummary } from './errors.js';
import type { WorkTracker } from './work.js';

export interface OpenAndFill {
  triggerId: string;
  view: ModalView;
  /** Builds the complete view (load failures shown inside it); started together with views.open, never before it. */
  fill?: () => Promise<ModalView>;
  logger: Logger;
}

/** Opens the modal; returns false when Slack refused (the caller tells the agent). */
export async function openAndFill(client: webApi.WebClient, { triggerId, view, fill, logger }: OpenAndFill): Promise<boolean> {
  const opening = client.views.open({ trigger_id: triggerId, view });
  const filling = fill?.();
  let opened: Awaited<typeof opening>;
  try {
    opened = await opening;
  } catch (error) {
    filling?.catch(() => undefined);
    logger.error({ err: errorSummary(error) }, 'could not open the modal');
    return false;
  }
  if (!filling || !opened.view?.id) return true;
  let full: ModalView;
  try {
    full = await filling;
  } catch (error) {
    logger.error({ err: errorSummary(error) }, 'could not build the full modal');
    return true;
  }
  // The hash makes Slack refuse this update if the agent already changed the view (e.g. looked up a
  // client): that newer view was built with fresh data and must win.
  await updateView(client, { viewId: opened.view.id, view: full, ...(opened.view.hash && { hash: opened.view.hash }) }, logger);
  return true;
}

export async function updateView(client: webApi.WebClient, { viewId, view, hash }: { viewId: string; view: ModalView; hash?: string }, logger: Logger): Promise<boolean> {
  try {
    await client.views.update({ view_id: viewId, view, ...(hash && { hash }) });
    return true;
  } catch (error) {
    const summary = errorSummary(error);
    if (summary.slackError === 'hash_conflict') logger.debug('modal changed meanwhile; kept the newer view');
    else logger.error({ err: summary }, 'could not update the modal');
    return false;
  }
}

/** `updateView` without holding the caller back (UISP work goes on): failures are logged, and the update counts as work in flight. */
export function updateViewInBackground(work: WorkTracker, client: webApi.WebClient, update: { viewId: string; view: ModalView }, logger: Logger): void {
  void work.run(() => updateView(client, update, logger));
}
