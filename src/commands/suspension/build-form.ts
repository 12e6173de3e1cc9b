/**
 * Builds the /suspend and /unsuspend form with what it needs from the CRM: the suspension reasons
 * (suspend only) and, once the agent gave a client id, that client's services with the action the
 * services layer says applies to each. Load failures appear inside the form, so this never rejects.
 */
import type { webApi } from '@slack/bolt';
import type { Logger } from 'pino';
import { UispNotFoundError } from '../../services/uisp/errors.js';
import { suspensionForm, type SuspensionField, type SuspensionFormInput, type SuspensionFormValues } from '../../views/suspension.js';
import { BLOCK } from '../../views/ids.js';
import type { ModalView } from '../../views/kit.js';
import type { ListenerDeps } from '../../slack/deps.js';
import { describeFailure } from '../../slack/errors.js';
import type { Origin, SuspensionAction } from '../../slack/metadata.js';
import { openAndFill } from '../../slack/modals.js';
import type { InputValues } from '../../slack/state.js';

export interface SuspensionFormRequest {
  action: SuspensionAction;
  origin: Origin;
  values?: SuspensionFormValues;
  /** List this client's services to pick from. */
  clientId?: number | undefined;
  problems?: Partial<Record<SuspensionField, string>>;
  notice?: string | undefined;
}

/** The form's current values, as submitted or as they stood when a block action fired. */
export function suspensionFormValues(inputs: InputValues): SuspensionFormValues {
  const ids = BLOCK.suspension;
  return { serviceId: inputs[ids.serviceId], clientId: inputs[ids.clientId], clientServiceId: inputs[ids.clientService], reasonId: inputs[ids.reason] };
}

export async function buildSuspensionForm(deps: ListenerDeps, request: SuspensionFormRequest): Promise<ModalView> {
  const { suspensions } = deps.services;
  const { action, clientId } = request;
  const [reasons, client] = await Promise.allSettled([
    action === 'suspend' ? suspensions.listReasons() : Promise.resolve(undefined),
    clientId === undefined ? Promise.resolve(undefined) : Promise.all([suspensions.getClient(clientId), suspensions.listClientServices(clientId)]),
  ]);
  const problems = { ...request.problems };
  const notices = request.notice ? [request.notice] : [];
  if (client.status === 'rejected') {
    problems.client = client.reason instanceof UispNotFoundError ? `No CRM client #${clientId}.` : describeFailure(client.reason).message;
  }
  if (reasons.status === 'rejected') notices.push(`Could not load the suspension reasons: ${describeFailure(reasons.reason).message}`);
  const input: SuspensionFormInput = {
    action,
    origin: request.origin,
    values: request.values ?? {},
    statusLabel: deps.statusLabel,
    problems,
    notice: notices.join(' ') || undefined,
    reasons: reasons.status === 'fulfilled' ? (reasons.value ?? []) : 'unavailable',
    client:
      client.status === 'fulfilled' && client.value
        ? { client: client.value[0], services: client.value[1].map((service) => ({ service, applies: suspensions.applicableAction(service) })) }
        : undefined,
  };
  return suspensionForm(input);
}

/**
 * Opens the /suspend or /unsuspend form at once (the trigger id lives 3 seconds), pre-filled, then fills
 * in the reasons from the CRM. False when Slack did not open it (the caller tells the agent).
 */
export function openSuspensionForm(deps: ListenerDeps, client: webApi.WebClient, o: { triggerId: string; action: SuspensionAction; origin: Origin; values: SuspensionFormValues; logger: Logger }): Promise<boolean> {
  const { action, origin, values } = o;
  return openAndFill(client, {
    triggerId: o.triggerId,
    view: suspensionForm({ action, origin, values, reasons: 'loading', statusLabel: deps.statusLabel }),
    ...(action === 'suspend' && { fill: () => buildSuspensionForm(deps, { action, origin, values }) }),
    logger: o.logger,
  });
}
