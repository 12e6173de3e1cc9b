/**
 * Reads the activation decision for a modal that has already been acked with a "checking" view. A
 * refusal (device not found or infrastructure, a client id of another name…) brings the form back with
 * the problem under its field, or as a notice, and the agent's values kept; so does a UISP failure.
 */
import type { webApi } from '@slack/bolt';
import type { Logger } from 'pino';
import type { ActivationRequest } from '../../services/activation/types.js';
import type { ReadDecision } from '../../services/activation/workflow.js';
import { activationForm, type ActivationFormValues } from '../../views/activation.js';
import type { ListenerDeps } from '../../slack/deps.js';
import { errorSentence } from '../../render/activation.js';
import { activationFieldOf, describeFailure } from '../../slack/errors.js';
import type { Origin } from '../../slack/metadata.js';
import { updateView } from '../../slack/modals.js';

export type ActivationGoAhead = Exclude<ReadDecision, { kind: 'refused' }>;

export async function decideOrShowForm(
  client: webApi.WebClient,
  deps: ListenerDeps,
  {
    viewId,
    origin,
    request,
    values,
    logger,
  }: { viewId: string; origin: Origin; request: ActivationRequest; values: ActivationFormValues; logger: Logger },
  /** How the decision is read: a fresh decision by default, or the recheck of a confirmation. */
  read: () => Promise<ReadDecision> = () => deps.services.activation.decide(request),
): Promise<ActivationGoAhead | undefined> {
  let problem: { field?: string | undefined; message: string };
  try {
    const decision = await read();
    if (decision.kind !== 'refused') return decision;
    problem = { field: activationFieldOf(decision.refusal.code), message: errorSentence(decision.refusal) };
  } catch (error) {
    const failure = describeFailure(error);
    if (!failure.expected) logger.error({ err: error }, 'activation plan failed');
    problem = { field: failure.field, message: failure.message };
  }
  const shown = problem.field ? { problems: { [problem.field]: problem.message } } : { notice: problem.message };
  await updateView(client, { viewId, view: activationForm({ origin, values, ...shown }) }, logger);
  return undefined;
}
