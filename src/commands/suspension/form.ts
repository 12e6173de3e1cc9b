/**
 * Submission of the /suspend or /unsuspend form: which service (typed id or picked from the client's
 * list) and, for suspend, the reason. The CRM lookup happens after the ack; with the services layer's
 * decision for the service's current state, its answer is the confirmation view, the action that
 * applies instead, or the form again with the problem under the field.
 */
import type { App } from '@slack/bolt';
import { optional, readId } from '../../services/input/grammar.js';
import type { ListenerDeps } from '../../slack/deps.js';
import { describeFailure } from '../../slack/errors.js';
import { decodeMetadata, SuspensionMetaSchema, type Origin, type SuspensionAction } from '../../slack/metadata.js';
import { updateView } from '../../slack/modals.js';
import { parseId, readInputs } from '../../slack/state.js';
import { buildSuspensionForm, suspensionFormValues } from './build-form.js';
import { loadSuspensionTarget } from './run.js';
import { CALLBACK } from '../../views/ids.js';
import type { ModalView } from '../../views/kit.js';
import { suspensionChecking, suspensionConfirm, unchangedText, type SuspensionField, type SuspensionFormValues, type SuspensionTarget } from '../../views/suspension.js';

export function registerForm(app: App, deps: ListenerDeps): void {
  app.view(CALLBACK.suspensionForm, async ({ ack, body, view, client }) => {
    const meta = decodeMetadata(SuspensionMetaSchema, view.private_metadata);
    const { action, clientId } = meta;
    const origin = { ...meta.origin, userId: body.user.id };
    const values = suspensionFormValues(readInputs(view.state.values));
    const choice = chooseService(values, action === 'suspend');
    if ('errors' in choice) {
      await ack({ response_action: 'errors', errors: choice.errors });
      return;
    }
    await ack({ response_action: 'update', view: suspensionChecking(action) });
    const logger = deps.logger.child({ flow: action, userId: origin.userId });
    const field: SuspensionField = values.clientServiceId && !values.serviceId ? 'clientService' : 'service';
    let target: SuspensionTarget;
    try {
      target = await loadSuspensionTarget(deps.services.suspensions, choice.serviceId, choice.reasonId);
    } catch (error) {
      const failure = describeFailure(error);
      if (!failure.expected) logger.error({ err: error }, 'suspension lookup failed');
      const form = await buildSuspensionForm(deps, { action, origin, values, clientId, ...(failure.field ? { problems: { [failure.field === 'reason' ? 'reason' : field]: failure.message } } : { notice: failure.message }) });
      await updateView(client, { viewId: view.id, view: form }, logger);
      return;
    }
    await updateView(client, { viewId: view.id, view: await nextView(deps, { action, origin, values, clientId, field }, target) }, logger);
  });
}

interface FormState {
  action: SuspensionAction;
  origin: Origin;
  values: SuspensionFormValues;
  clientId: number | undefined;
  field: SuspensionField;
}

/**
 * The services layer's decision for the service as the CRM reports it now: the confirmation, or the
 * one action that applies instead (a suspended service offers its unsuspend, an Active one its
 * suspend), or the form again saying why nothing applies.
 */
async function nextView(deps: ListenerDeps, { action, origin, values, clientId, field }: FormState, target: SuspensionTarget): Promise<ModalView> {
  const { suspensions } = deps.services;
  const { service } = target;
  const decision = suspensions.decide(action, service);
  if (decision === 'write') return suspensionConfirm(action, origin, target, deps.statusLabel);
  const why = `${unchangedText(action, service, decision === 'already' ? 'already' : 'not-active', deps.statusLabel)} Nothing was changed.`;
  const instead = suspensions.applicableAction(service);
  if (instead === 'unsuspend') return suspensionConfirm('unsuspend', origin, { service, client: target.client }, deps.statusLabel, `${why} Lift the suspension instead?`);
  if (instead === 'suspend') return buildSuspensionForm(deps, { action: 'suspend', origin, values: { serviceId: String(service.id) }, notice: `${why} To suspend it instead, pick a reason.` });
  return buildSuspensionForm(deps, { action, origin, values, clientId, problems: { [field]: why } });
}

type Choice = { serviceId: number; reasonId?: number } | { errors: Partial<Record<SuspensionField, string>> };

/** Exactly one service, from the typed id or the picked one (not two different ones), and a reason when suspending. */
function chooseService(values: SuspensionFormValues, needsReason: boolean): Choice {
  const typedRead = optional(readId)(values.serviceId, 'Service id');
  if (!typedRead.ok) return { errors: { service: typedRead.problem } };
  const typed = typedRead.value;
  const picked = parseId(values.clientServiceId);
  if (typed !== undefined && picked !== undefined && typed !== picked) {
    return { errors: { service: `You typed service #${typed} but picked #${picked}: keep one.` } };
  }
  const serviceId = typed ?? picked;
  if (serviceId === undefined) return { errors: { service: 'Enter a service id, or a client id (then Enter) and pick one of its services.' } };
  if (!needsReason) return { serviceId };
  const reasonId = parseId(values.reasonId);
  // The reason block is missing while reasons load or when they failed to: the error goes where a block exists.
  if (reasonId === undefined) return { errors: { service: 'Pick a suspension reason (the list may still be loading).' } };
  return { serviceId, reasonId };
}
