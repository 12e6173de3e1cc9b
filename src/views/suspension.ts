/**
 * /suspend and /unsuspend share one flow, parameterised by the action: a form (service id, or a client
 * and one of its services, plus the reason when suspending), a confirmation, and the thread messages.
 */
import type { SuspensionOutcome } from '../services/suspensions.js';
import type { Client, Service, SuspensionReason } from '../services/uisp/schemas.js';
import { escapeMrkdwn } from '../slack/escape.js';
import { encodeMetadata, SuspensionMetaSchema, type Origin, type SuspensionAction } from '../slack/metadata.js';
import { channelLink, mention } from './format.js';
import { ACTION, BLOCK, CALLBACK } from './ids.js';
import { context, fields, message, modal, option, problem, section, selectInput, textInput, withProblem, type Block, type ModalView, type SlackMessage } from './kit.js';
import { clientDisplayName } from '../services/uisp/crm-client.js';

interface ActionWords {
  title: string;
  confirmTitle: string;
  submit: string;
  /** The confirmation's question. */
  question: string;
  noun: string;
  done: string;
  emoji: string;
}

const WORDS: Record<SuspensionAction, ActionWords> = {
  suspend: { title: 'Suspend service', confirmTitle: 'Confirm suspension', submit: 'Suspend', question: 'Suspend this service?', noun: 'Suspension', done: 'suspended', emoji: ':double_vertical_bar:' },
  unsuspend: { title: 'Lift suspension', confirmTitle: 'Confirm unsuspend', submit: 'Lift suspension', question: 'Lift the suspension of this service?', noun: 'Lifting the suspension', done: 'unsuspended', emoji: ':arrow_forward:' },
};

export type SuspensionField = 'service' | 'client' | 'clientService' | 'reason';
export type StatusLabeller = (status: number) => string;

export interface SuspensionFormValues {
  serviceId?: string | undefined;
  clientId?: string | undefined;
  clientServiceId?: string | undefined;
  reasonId?: string | undefined;
}

export interface SuspensionFormInput {
  action: SuspensionAction;
  origin: Origin;
  values?: SuspensionFormValues;
  /** The CRM's suspension reasons (suspend only). 'unavailable': the load failed and the notice says why. */
  reasons: SuspensionReason[] | 'loading' | 'unavailable';
  /** The client the agent picked, with its services to choose from. */
  client?: { client: Client; services: Service[] } | undefined;
  statusLabel: StatusLabeller;
  problems?: Partial<Record<SuspensionField, string>>;
  notice?: string | undefined;
}

export function suspensionForm(input: SuspensionFormInput): ModalView {
  const { action, origin, values = {}, problems = {}, client, statusLabel } = input;
  const ids = BLOCK.suspension;
  const blocks: Block[] = [];
  if (input.notice) blocks.push(problem(escapeMrkdwn(input.notice)));
  blocks.push(
    ...withProblem(
      textInput({ blockId: ids.serviceId, actionId: ACTION.value, label: 'Service id', initial: values.serviceId, optional: true, maxLength: 12, hint: 'Or leave empty and pick a client below.' }),
      problems.service,
    ),
  );
  blocks.push(
    ...withProblem(
      textInput({
        blockId: ids.clientId,
        actionId: ACTION.suspensionClientLookup,
        label: 'Client id',
        initial: values.clientId,
        optional: true,
        maxLength: 12,
        dispatchOnEnter: true,
        hint: 'Press Enter to list the client’s services.',
      }),
      problems.client,
    ),
  );
  if (client) {
    const name = clientDisplayName(client.client);
    if (client.services.length) {
      blocks.push(
        ...withProblem(
          selectInput({
            blockId: ids.clientService,
            actionId: ACTION.value,
            label: `Service of ${name}`,
            optional: true,
            placeholder: 'Pick a service',
            initialValue: values.clientServiceId,
            options: client.services.map((s) => option(`#${s.id} ${s.name ?? 'service'} (${statusLabel(s.status)})`, String(s.id))),
          }),
          problems.clientService,
        ),
      );
    } else {
      blocks.push(context(`Client #${client.client.id} ${escapeMrkdwn(name)} has no services.`));
    }
  }
  if (action === 'suspend') {
    if (input.reasons === 'loading') blocks.push(context(':hourglass_flowing_sand: Loading the CRM’s suspension reasons…'));
    else if (input.reasons === 'unavailable') blocks.push(problem('Without the suspension reasons this form cannot be submitted; close it and try again.'));
    else if (input.reasons.length === 0) blocks.push(problem('The CRM has no suspension reasons; add one in the CRM settings first.'));
    else {
      blocks.push(
        ...withProblem(
          selectInput({
            blockId: ids.reason,
            actionId: ACTION.value,
            label: 'Reason',
            placeholder: 'Pick a reason',
            initialValue: values.reasonId,
            options: input.reasons.map((r) => option(r.name, String(r.id))),
          }),
          problems.reason,
        ),
      );
    }
  }
  return modal({
    callbackId: CALLBACK.suspensionForm,
    title: WORDS[action].title,
    submit: 'Next',
    blocks,
    privateMetadata: encodeMetadata(SuspensionMetaSchema, { action, origin, ...(client && { clientId: client.client.id }) }),
  });
}

export function suspensionChecking(action: SuspensionAction): ModalView {
  return infoModal(action, ':hourglass_flowing_sand: Looking the service up in the CRM…');
}

export interface SuspensionTarget {
  service: Service;
  client: Client;
  reason?: SuspensionReason | undefined;
}

/** The last look before the write: client, service, current status and reason. */
export function suspensionConfirm(action: SuspensionAction, origin: Origin, target: SuspensionTarget, statusLabel: StatusLabeller): ModalView {
  const { service, client, reason } = target;
  const words = WORDS[action];
  const items = [
    `*Client*\n#${client.id} ${escapeMrkdwn(clientDisplayName(client))}`,
    `*Service*\n#${service.id} ${escapeMrkdwn(service.name ?? '')}`,
    `*Current status*\n${escapeMrkdwn(statusLabel(service.status))}`,
  ];
  if (reason) items.push(`*Reason*\n${escapeMrkdwn(reason.name)}`);
  return modal({
    callbackId: CALLBACK.suspensionConfirm,
    title: words.confirmTitle,
    submit: words.submit,
    close: 'Back out',
    blocks: [section(`${words.emoji} *${words.question}*`), fields(items)],
    privateMetadata: encodeMetadata(SuspensionMetaSchema, { action, origin, serviceId: service.id, ...(reason && { reasonId: reason.id }) }),
  });
}

export function suspensionSubmitted(action: SuspensionAction, origin: Origin): ModalView {
  return infoModal(action, `${WORDS[action].emoji} Submitted. The result is posted in ${channelLink(origin.channelId)}.`);
}

function infoModal(action: SuspensionAction, text: string): ModalView {
  return modal({ callbackId: CALLBACK.info, title: WORDS[action].title, close: 'Close', blocks: [section(text)] });
}

export type SuspensionResult = { ok: true; outcome: SuspensionOutcome } | { ok: false; message: string; changed: string };

export interface SuspensionMessageInput {
  action: SuspensionAction;
  actorId: string;
  target: SuspensionTarget;
  result?: SuspensionResult;
}

/** The channel message: running, then updated in place to the outcome. */
export function suspensionParent({ action, actorId, target, result }: SuspensionMessageInput): SlackMessage {
  const words = WORDS[action];
  const reason = target.reason ? ` (reason: ${escapeMrkdwn(target.reason.name)})` : '';
  const title = `${words.emoji} ${words.noun} of service #${target.service.id} ${escapeMrkdwn(target.service.name ?? '')} of client #${target.client.id} ${escapeMrkdwn(clientDisplayName(target.client))}${reason}, requested by ${mention(actorId)}`;
  const status = !result ? ':hourglass_flowing_sand: In progress…' : result.ok ? `:white_check_mark: *Done*: service ${words.done}.` : ':x: *Failed*: see the thread.';
  return message(`${title} — ${status}`, [section(title), context(status)]);
}

/** The threaded reply with what UISP now reports, or what went wrong and what was changed. */
export function suspensionResultReply(action: SuspensionAction, result: SuspensionResult, statusLabel: StatusLabeller): SlackMessage {
  if (!result.ok) {
    const text = `:x: ${WORDS[action].noun} failed: ${escapeMrkdwn(result.message)}\n${escapeMrkdwn(result.changed)}`;
    return message(text, [section(text)]);
  }
  const { service, after, reason } = result.outcome;
  const status = after ? `The CRM now reports status *${escapeMrkdwn(statusLabel(after.status))}*` : 'The CRM accepted it; reading the new status back failed, so check it in the CRM';
  const text = `:white_check_mark: Service #${service.id} ${WORDS[action].done}. ${status}${reason ? `, reason ${escapeMrkdwn(reason.name)}` : ''}.`;
  return message(text, [section(text), context(`service \`${service.id}\`  ·  client \`${service.clientId}\`${reason ? `  ·  reason \`${reason.id}\`` : ''}`)]);
}
