/**
 * The /activate modal in its four states: the form, "checking" while the plan is computed after the
 * ack, the confirmation of a destructive plan, and "started".
 */
import { TEXT_LIMITS } from '../services/input/grammar.js';
import type { ActivationField } from '../services/activation/request.js';
import type { ActivationPlan, ActivationRequest } from '../services/activation/types.js';
import { escapeMrkdwn } from '../slack/escape.js';
import { ActivationMetaSchema, encodeMetadata, type Origin } from '../slack/metadata.js';
import { ACTION, CALLBACK, TYPEAHEAD } from './ids.js';
import { channelLink, formatMoney } from './format.js';
import { button, context, divider, externalSelectInput, modal, problem, section, sections, textInput, withProblem, type Block, type ModalView } from './kit.js';
import { titleCase } from '../services/activation/names.js';
import { alreadyOnSite, describeOwner } from '../render/activation.js';

const TITLE = 'Activate subscriber';

export type ActivationFormValues = Partial<Record<ActivationField, string>>;

export interface ActivationFormInput {
  origin: Origin;
  values?: ActivationFormValues;
  /** Problems found after the ack (plan errors), shown under their field. */
  problems?: Partial<Record<ActivationField, string>>;
  /** A problem that belongs to no single field. */
  notice?: string;
}

const FIELDS: { field: ActivationField; label: string; placeholder?: string; hint?: string; optional?: boolean; maxLength: number }[] = [
  { field: 'device', label: 'Device', placeholder: '10.0.0.5, 44:d9:e7:01:02:03 or device name', hint: 'IP, MAC address or NMS name; authorized and discovered devices are searched.', maxLength: TEXT_LIMITS.line },
  { field: 'firstName', label: 'First name', maxLength: TEXT_LIMITS.name },
  { field: 'lastName', label: 'Last name', maxLength: TEXT_LIMITS.name },
  { field: 'email', label: 'Email', optional: true, maxLength: TEXT_LIMITS.email },
  { field: 'phone', label: 'Phone', optional: true, maxLength: TEXT_LIMITS.phone },
  { field: 'clientId', label: 'Existing CRM client id', optional: true, hint: 'Leave empty to find the client by name, or create one.', maxLength: 12 },
];

/** The fields answered by typeahead (the NMS devices, the CRM clients); typed text still works as before. */
const TYPEAHEAD_FIELDS: Partial<Record<ActivationField, string>> = { device: TYPEAHEAD.device, clientId: TYPEAHEAD.client };

export function activationForm({ origin, values = {}, problems = {}, notice }: ActivationFormInput): ModalView {
  const blocks: Block[] = [];
  if (notice) blocks.push(problem(escapeMrkdwn(notice)));
  blocks.push(section('A day of installs? Give them all at once as a sheet.', button({ actionId: ACTION.sheetOpen, text: 'Install sheet' })));
  for (const f of FIELDS) {
    const common = { blockId: f.field, label: f.label, initial: values[f.field], optional: f.optional ?? false, ...(f.placeholder && { placeholder: f.placeholder }), ...(f.hint && { hint: f.hint }) };
    const typeahead = TYPEAHEAD_FIELDS[f.field];
    const input = typeahead ? externalSelectInput({ ...common, actionId: typeahead }) : textInput({ ...common, actionId: ACTION.value, maxLength: f.maxLength });
    blocks.push(...withProblem(input, problems[f.field]));
  }
  blocks.push(context('Nothing is written until you submit; a plan that deletes a service asks for confirmation first.'));
  return modal({ callbackId: CALLBACK.activateForm, title: TITLE, submit: 'Activate', blocks, privateMetadata: encodeMetadata(ActivationMetaSchema, { origin }) });
}

/** Shown by the ack while the plan is computed; the listener replaces it with views.update. */
/** The form's values for a request (the form shown again after a confirmation that no longer applies). */
export function formValuesOf(request: ActivationRequest): ActivationFormValues {
  const { device, firstName, lastName, email, phone, clientId } = request;
  return { device, firstName, lastName, ...(email && { email }), ...(phone && { phone }), ...(clientId !== undefined && { clientId: String(clientId) }) };
}

export function activationChecking(request: ActivationRequest): ModalView {
  return modal({
    callbackId: CALLBACK.info,
    title: TITLE,
    close: 'Close',
    blocks: [section(`:hourglass_flowing_sand: Checking UISP for *${escapeMrkdwn(request.device)}* and ${escapeMrkdwn(fullName(request))}…`)],
  });
}

/**
 * Lists exactly what the run will delete, which device it takes off which client's site, and what it
 * creates; submitting it runs the activation. What was shown is carried in private_metadata: UISP is
 * read again on submission, and anything different is shown again (`notice`: what changed) before any write.
 */
export function activationConfirm(origin: Origin, request: ActivationRequest, plan: ActivationPlan, notice?: string): ModalView {
  const deletes = plan.service.action === 'create' ? plan.service.delete : [];
  const move = plan.move;
  const blocks: Block[] = [...(notice ? [problem(escapeMrkdwn(notice))] : [])];
  if (move) {
    blocks.push(
      section(
        `:warning: *${escapeMrkdwn(plan.device.name)} is in use on ${move.client.id === null ? 'a customer site of unknown owner' : "another client's site"}.* ` +
          `It is authorized on site *${escapeMrkdwn(move.site.name)}* ${move.client.id === null ? '(no CRM client is bound to it)' : `of ${escapeMrkdwn(describeOwner(move.client))}`}. ` +
          `Confirming moves it to ${escapeMrkdwn(targetName(plan))}'s site; that client's records (client, services, site) are left as they are.`,
      ),
    );
  }
  if (deletes.length) {
    blocks.push(
      section(`:warning: *This activation deletes ${deletes.length === 1 ? 'a service' : `${deletes.length} services`}.* UISP cannot upgrade a Quoted service or reactivate an Obsolete one, so they are replaced.`),
      ...sections('*Will delete:*', deletes.map((s) => `• ${escapeMrkdwn(s.statusLabel)} service #${s.id}${s.name ? ` _${escapeMrkdwn(s.name)}_` : ''}`)),
    );
  }
  const leftAlone = plan.service.action === 'create' ? plan.service.leftAlone : [];
  if (leftAlone.length) blocks.push(...sections('*Left alone* (another plan type):', leftAlone.map((s) => `• ${escapeMrkdwn(s.statusLabel)} service #${s.id}${s.name ? ` _${escapeMrkdwn(s.name)}_` : ''}`)));
  blocks.push(...sections('*Will create or reuse:*', planLines(plan).map((line) => `• ${line}`)), divider(), context(`Device: ${escapeMrkdwn(describeDevice(plan))}`));
  const submit = move ? (deletes.length ? 'Delete, move, activate' : 'Move and activate') : deletes.length ? 'Delete and activate' : 'Activate';
  return modal({
    callbackId: CALLBACK.activateConfirm,
    title: 'Confirm activation',
    submit,
    close: 'Back out',
    blocks,
    privateMetadata: encodeMetadata(ActivationMetaSchema, {
      origin,
      request,
      confirmedDeletes: deletes.map((s) => ({ id: s.id, status: s.status })),
      ...(move && { confirmedMove: { deviceId: plan.device.id, siteId: move.site.id } }),
      ...(plan.client.action === 'reuse' && { confirmedClientId: plan.client.client.id }),
    }),
  });
}

function targetName(plan: ActivationPlan): string {
  return plan.client.action === 'reuse' ? plan.client.client.name : `${plan.client.firstName} ${plan.client.lastName}`;
}

export function activationStarted(origin: Origin, request: ActivationRequest): ModalView {
  return modal({
    callbackId: CALLBACK.info,
    title: TITLE,
    close: 'Close',
    blocks: [section(`:rocket: Activation of *${escapeMrkdwn(request.device)}* for ${escapeMrkdwn(fullName(request))} started. Follow each step in the thread in ${channelLink(origin.channelId)}.`)],
  });
}

/** The name as the CRM will write it (Title Case), whatever case the agent typed. */
export function fullName(request: Pick<ActivationRequest, 'firstName' | 'lastName'>): string {
  return titleCase(`${request.firstName} ${request.lastName}`);
}

function describeDevice(plan: ActivationPlan): string {
  const d = plan.device;
  return `${d.name} (${[d.ip, d.mac].filter(Boolean).join(', ')}, ${d.list})`;
}

/** One escaped line per write or reuse the plan makes, deletions aside. */
function planLines(plan: ActivationPlan): string[] {
  const lines: string[] = [];
  lines.push(
    plan.client.action === 'reuse'
      ? `Reuse client #${plan.client.client.id} ${escapeMrkdwn(plan.client.client.name)}`
      : `Create client ${escapeMrkdwn(plan.client.firstName)} ${escapeMrkdwn(plan.client.lastName)}`,
  );
  lines.push(
    plan.service.action === 'reuse'
      ? `Reuse Active service #${plan.service.service.id}`
      : `Create an Active service: plan period ${plan.service.servicePlanPeriodId}, ${formatMoney(plan.service.price)}/month from ${plan.service.activeFrom}`,
  );
  lines.push(plan.site.action === 'reuse' ? `Reuse NMS site "${escapeMrkdwn(plan.site.site.name)}"` : `Create NMS site "${escapeMrkdwn(plan.site.name)}"`);
  lines.push(
    plan.authorize.action === 'skip'
      ? escapeMrkdwn(alreadyOnSite(plan.device, plan.authorize.site))
      : plan.move
        ? `Move ${escapeMrkdwn(plan.device.name)} from site "${escapeMrkdwn(plan.move.site.name)}" onto that site`
        : `Authorize ${escapeMrkdwn(plan.device.name)} onto that site`,
  );
  return lines;
}
