/**
 * Reads the activation plan for a modal that has already been acked with a "checking" view. When the
 * plan cannot be made (device not found, ambiguous client…), the form comes back with the problem
 * under its field, or as a notice, and the agent's values kept.
 */
import type { webApi } from '@slack/bolt';
import type { Logger } from 'pino';
import type { ActivationField } from '../services/activation/request.js';
import type { ActivationPlan, ActivationRequest } from '../services/activation/types.js';
import { activationForm, type ActivationFormValues } from '../views/activation.js';
import type { ListenerDeps } from './deps.js';
import { describeFailure } from './errors.js';
import type { Origin } from './metadata.js';
import { updateView } from './modals.js';

export async function planOrShowForm(
  client: webApi.WebClient,
  deps: ListenerDeps,
  { viewId, origin, request, values, logger }: { viewId: string; origin: Origin; request: ActivationRequest; values: ActivationFormValues; logger: Logger },
): Promise<ActivationPlan | undefined> {
  try {
    return await deps.services.activation.plan(request);
  } catch (error) {
    const failure = describeFailure(error);
    if (!failure.expected) logger.error({ err: error }, 'activation plan failed');
    const problem = failure.field ? { problems: { [failure.field as ActivationField]: failure.message } } : { notice: failure.message };
    await updateView(client, { viewId, view: activationForm({ origin, values, ...problem }) }, logger);
    return undefined;
  }
}
