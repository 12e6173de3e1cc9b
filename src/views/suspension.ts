/**
 * /suspend and /unsuspend share one flow, parameterised by the action: a form (service id, or a client
 * and one of its services, plus the reason when suspending), a confirmation, and the thread messages.
 */
import { shownService, type SuspensionAction as ServiceAction, type SuspensionOutcome, type SuspensionRefusal } from '../services/suspensions.js';
import type { Client, Service, SuspensionReason } from '../services/uisp/schemas.js';
import { escapeMrkdwn } from '../slack/escape.js';
import { encodeMetadata, SuspensionMetaSchema, type Origin, type SuspensionAction } from '../slack/metadata.js';
import { channelLink, mention } from './format.js';
import { ACTION, BLOCK, CALLBACK } from './ids.js';
import { context, externalSelectInput, fields, message, modal, option, problem, section, selectInput, textInput, withProblem, type Block, type ModalView, type SlackMessage } from './kit.js';
import { clientDisplayName } from '../services/uisp/client-name.js';
import { clip } from './limits.js';
import { operationStopped } from './process.js';

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

export interface ClientService {
  service: Service;
  applies: ServiceAction | undefined;
}

export interface SuspensionFormInput {
  action: SuspensionAction;
  origin: Origin;
  values?: SuspensionFormValues;
  /** The CRM's suspension reasons (suspend only). 'unavailable': the load failed and the notice says why. */
  reasons: SuspensionReason[] | 'loading' | 'unavailable';
  /** The client the agent picked, with each service and the one action that applies to it (if any). */
  client?: { client: Client; services: ClientService[] } | undefined;
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
      externalSelectInput({
        blockId: ids.clientId,
        actionId: ACTION.suspensionClientLookup,
        label: 'Client id',
        initial: values.clientId,
        optional: true,
        placeholder: 'Type a name or id',
        dispatchOnSelect: true,
        hint: 'Pick the client to list its services.',
      }),
      problems.client,
    ),
  );
  if (client) blocks.push(...clientServices(action, client, values, problems, statusLabel));
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

/**
 * The picked client's services, each with its state: the ones this action applies to in the select,
 * the others listed with the action that applies to them instead (or none).
 */
function clientServices(action: SuspensionAction, { client, services }: { client: Client; services: ClientService[] }, values: SuspensionFormValues, problems: Partial<Record<SuspensionField, string>>, statusLabel: StatusLabeller): Block[] {
  const name = clientDisplayName(client);
  if (!services.length) return [context(`Client #${client.id} ${escapeMrkdwn(name)} has no services.`)];
  // The name gives way, never the status: the state is what the agent decides on.
  const describe = (s: Service) => `#${s.id} ${clip(s.name ?? 'service', 40)} (${statusLabel(s.status)})`;
  const offered = services.filter((s) => s.applies === action).map((s) => s.service);
  const others = services.filter((s) => s.applies !== action);
  const blocks: Block[] = [];
  if (offered.length) {
    blocks.push(
      ...withProblem(
        selectInput({
          blockId: BLOCK.suspension.clientService,
          actionId: ACTION.value,
          label: `Service of ${name}`,
          optional: true,
          placeholder: 'Pick a service',
          initialValue: offered.some((s) => String(s.id) === values.clientServiceId) ? values.clientServiceId : undefined,
          options: offered.map((s) => option(describe(s), String(s.id))),
        }),
        problems.clientService,
      ),
    );
  } else {
    blocks.push(context(`No service of client #${client.id} ${escapeMrkdwn(name)} can be ${WORDS[action].done}.`));
    // The picked service may have changed state since it was offered: its problem still shows.
    if (problems.clientService) blocks.push(problem(escapeMrkdwn(problems.clientService)));
  }
  if (others.length) {
    const lines = others.map(({ service, applies }) => `${escapeMrkdwn(describe(service))}: ${applies ? `use \`/${applies} ${service.id}\`` : 'neither suspend nor unsuspend applies'}`);
    blocks.push(context(lines.join('\n')));
  }
  return blocks;
}

export function suspensionChecking(action: SuspensionAction): ModalView {
  return infoModal(action, ':hourglass_flowing_sand: Looking the service up in the CRM…');
}

export interface SuspensionTarget {
  service: Service;
  client: Client;
  reason?: SuspensionReason | undefined;
  /** A suspended service: the reason of the suspension in force, as UISP names it. */
  suspendedFor?: SuspensionReason | undefined;
}

/**
 * The last look before the write: client, service, current status and reason. `notice` explains why
 * this action is offered instead of the one asked for (suspending a service that is already suspended).
 */
export function suspensionConfirm(action: SuspensionAction, origin: Origin, target: SuspensionTarget, statusLabel: StatusLabeller, notice?: string): ModalView {
  const { service, client, reason } = target;
  const words = WORDS[action];
  const items = [
    `*Client*\n#${client.id} ${escapeMrkdwn(clientDisplayName(client))}`,
    `*Service*\n#${service.id} ${escapeMrkdwn(service.name ?? '')}`,
    `*Current status*\n${escapeMrkdwn(statusLabel(service.status))}`,
  ];
  if (reason) items.push(`*Reason*\n${escapeMrkdwn(reason.name)}`);
  if (target.suspendedFor) items.push(`*Suspended for*\n${escapeMrkdwn(target.suspendedFor.name)}`);
  return modal({
    callbackId: CALLBACK.suspensionConfirm,
    title: words.confirmTitle,
    submit: words.submit,
    close: 'Back out',
    blocks: [...(notice ? [context(`:information_source: ${escapeMrkdwn(notice)}`)] : []), section(`${words.emoji} *${words.question}*`), fields(items)],
    privateMetadata: encodeMetadata(SuspensionMetaSchema, { action, origin, serviceId: service.id, ...(reason && { reasonId: reason.id }), shown: shownService(service) }),
  });
}

export function suspensionSubmitted(action: SuspensionAction, origin: Origin): ModalView {
  return infoModal(action, `${WORDS[action].emoji} Submitted. The result is posted in ${channelLink(origin.channelId)}.`);
}

function infoModal(action: SuspensionAction, text: string): ModalView {
  return modal({ callbackId: CALLBACK.info, title: WORDS[action].title, close: 'Close', blocks: [section(text)] });
}

/** Why a requested change wrote nothing, in one plain sentence (callers escape it). */
export function unchangedText(action: SuspensionAction, service: Service, why: 'already' | SuspensionRefusal, statusLabel: StatusLabeller): string {
  const label = statusLabel(service.status);
  if (why === 'already') return action === 'suspend' ? `Service #${service.id} is already suspended.` : `Service #${service.id} is not suspended (status ${label}): there is no suspension to lift.`;
  if (why === 'not-active') return `Service #${service.id} is ${label}: only an Active service can be suspended.`;
  if (why === 'changed') return `Service #${service.id} was suspended again in UISP since it was shown, so its suspension was not lifted; look at it again (/unsuspend ${service.id}) before lifting it.`;
  return `The CRM refused to ${action === 'suspend' ? 'suspend' : 'lift the suspension of'} service #${service.id} (status ${label}); check the service in the CRM.`;
}

/** ok: the service answered with an outcome (done, already, refused); otherwise what failed and what changed. */
export type SuspensionResult = { ok: true; outcome: SuspensionOutcome } | { ok: false; message: string; changed: string };

export interface SuspensionMessageInput {
  action: SuspensionAction;
  actorId: string;
  target: SuspensionTarget;
  result?: SuspensionResult;
}

function resultStatus(action: SuspensionAction, result: SuspensionResult | undefined): string {
  if (!result) return ':hourglass_flowing_sand: In progress…';
  if (!result.ok) return ':x: *Failed*: see the thread.';
  const { outcome } = result;
  if (outcome.kind === 'done') return `:white_check_mark: *Done*: service ${WORDS[action].done}.`;
  if (outcome.kind === 'already') return `:information_source: *Nothing to do*: ${action === 'suspend' ? 'already suspended' : 'not suspended'}.`;
  return ':no_entry: *Refused*: see the thread.';
}

/** The channel message: running, then updated in place to the outcome. */
export function suspensionParent({ action, actorId, target, result }: SuspensionMessageInput): SlackMessage {
  const words = WORDS[action];
  const reason = target.reason ? ` (reason: ${escapeMrkdwn(target.reason.name)})` : '';
  const title = `${words.emoji} ${words.noun} of service #${target.service.id} ${escapeMrkdwn(target.service.name ?? '')} of client #${target.client.id} ${escapeMrkdwn(clientDisplayName(target.client))}${reason}, requested by ${mention(actorId)}`;
  const status = resultStatus(action, result);
  return message(`${title} — ${status}`, [section(title), context(status)]);
}

/** The threaded reply with what UISP now reports, why nothing was changed, or what went wrong. */
export function suspensionResultReply(action: SuspensionAction, result: SuspensionResult, statusLabel: StatusLabeller): SlackMessage {
  if (!result.ok) {
    const text = `:x: ${WORDS[action].noun} failed: ${escapeMrkdwn(result.message)}\n${escapeMrkdwn(result.changed)}`;
    return message(text, [section(text)]);
  }
  const { outcome } = result;
  if (outcome.kind !== 'done') {
    const icon = outcome.kind === 'already' ? ':information_source:' : ':no_entry:';
    const text = `${icon} ${escapeMrkdwn(unchangedText(action, outcome.service, outcome.kind === 'already' ? 'already' : outcome.reason, statusLabel))} Nothing was changed.`;
    return message(text, [section(text)]);
  }
  const { service, after, suspensionReason: reason } = outcome;
  const status = after ? `The CRM now reports status *${escapeMrkdwn(statusLabel(after.status))}*` : 'The CRM accepted it; reading the new status back failed, so check it in the CRM';
  const text = `:white_check_mark: Service #${service.id} ${WORDS[action].done}. ${status}${reason ? `, reason ${escapeMrkdwn(reason.name)}` : ''}.`;
  return message(text, [section(text), context(`service \`${service.id}\`  ·  client \`${service.clientId}\`${reason ? `  ·  reason \`${reason.id}\`` : ''}`)]);
}

/** What the thread says when the SubOps process running the change stopped hard before its end (src/slack/stop-notices.ts). */
export function suspensionStopped(action: SuspensionAction, serviceId: number, clientId: number): SlackMessage {
  const what = `this ${action === 'suspend' ? 'suspension' : 'lift'} of service #${serviceId}`;
  return operationStopped(what, `Look at client #${clientId} with /client before trying again; SubOps changes nothing on a service that is already ${action === 'suspend' ? 'suspended' : 'active'}.`);
}
