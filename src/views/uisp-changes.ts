/**
 * The audit channel's line for a change made in UISP outside SubOps (from a confirmed webhook event),
 * and the actionable notice for a payment by a client whose service is suspended: an Unsuspend button
 * per suspended service, which runs the normal un-suspend flow.
 */
import { z } from 'zod';
import type { ChangeNotice } from '../services/events/webhooks.js';
import { shownService, ShownServiceSchema } from '../services/suspensions.js';
import { clientDisplayName } from '../services/uisp/client-name.js';
import type { Client, Service } from '../services/uisp/schemas.js';
import { escapeMrkdwn } from '../slack/escape.js';
import { formatMoney, link, mention } from './format.js';
import { ACTION, BLOCK } from './ids.js';
import { actions, button, context, message, section, type Block, type SlackMessage } from './kit.js';

/**
 * The Unsuspend button's value: which service to lift, and what the notice showed of it (a press after
 * UISP changed it asks again). Buttons posted before they carried `shown` count as changed.
 */
export const UnsuspendValueSchema = z.object({ serviceId: z.number().int().positive(), shown: ShownServiceSchema.optional() });
const unsuspendValue = (service: Service) => JSON.stringify(UnsuspendValueSchema.parse({ serviceId: service.id, shown: shownService(service) }));
const unsuspendActionId = (serviceId: number) => `${ACTION.uispUnsuspend}:${serviceId}`;

// Not "outside SubOps": a change made with the subops CLI is reported too (the bot cannot tell it from a
// person's, since records the CLI posts are not trusted to hide a notice).
const OUTSIDE = 'in UISP, not through the SubOps bot';

export interface ChangeViewOptions {
  /** The client's page in the CRM web interface. */
  crmClientUrl: (clientId: number) => string;
}

function clientText(client: Client | null, clientId: number | null | undefined, { crmClientUrl }: ChangeViewOptions): string {
  if (client) return link(crmClientUrl(client.id), `#${client.id} ${clientDisplayName(client)}`);
  return clientId != null ? `#${clientId}` : 'no client';
}

function serviceText(service: Service): string {
  return `service #${service.id}${service.name ? ` (${escapeMrkdwn(service.name)})` : ''}`;
}

/** One line saying what changed, in words a support agent uses. */
export function changeLine({ change }: ChangeNotice, options: ChangeViewOptions): string {
  switch (change.kind) {
    case 'service-suspended':
      return `:double_vertical_bar: ${capitalised(serviceText(change.service))} of client ${clientText(change.client, change.service.clientId, options)} was *suspended* ${OUTSIDE}.`;
    case 'service-unsuspended':
      return `:arrow_forward: The suspension of ${serviceText(change.service)} of client ${clientText(change.client, change.service.clientId, options)} was *lifted* ${OUTSIDE}.`;
    case 'service-activated':
      return `:white_check_mark: ${capitalised(serviceText(change.service))} of client ${clientText(change.client, change.service.clientId, options)} was *activated* ${OUTSIDE}.`;
    case 'service-ended':
      return `:stop_button: ${capitalised(serviceText(change.service))} of client ${clientText(change.client, change.service.clientId, options)} was *ended* ${OUTSIDE}.`;
    case 'payment-added':
      return `:moneybag: A payment of *${formatMoney(change.payment.amount, change.payment.currencyCode)}* (#${change.payment.id}) for client ${clientText(change.client, change.payment.clientId, options)} was *recorded* ${OUTSIDE}.`;
    case 'client-created':
      return `:bust_in_silhouette: Client ${clientText(change.client, change.client.id, options)} was *created* ${OUTSIDE}.`;
    case 'client-archived':
      return `:file_cabinet: Client ${clientText(change.client, change.client.id, options)} was *archived* ${OUTSIDE}.`;
  }
}

const capitalised = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** Metadata event types of the notices: what the daily digest reads back (src/services/digest/build.ts). */
export const UISP_CHANGE_EVENT_TYPE = 'subops_uisp_change';
export const WEBHOOK_FAILED_EVENT_TYPE = 'subops_webhook_failed';

/** The notice's metadata: which change, of which event, on which service and client. */
export function changeMetadata({ change, event }: ChangeNotice): { event_type: string; event_payload: Record<string, string | number> } {
  const clientId = 'service' in change ? change.service.clientId : 'payment' in change ? change.payment.clientId : change.client.id;
  const ids = { ...('service' in change && { serviceId: change.service.id }), ...(clientId != null && { clientId }) };
  return { event_type: UISP_CHANGE_EVENT_TYPE, event_payload: { change: change.kind, uuid: event.uuid, ...ids } };
}

/** A webhook event SubOps gave up on: someone should look at the change in UISP. */
export function webhookFailedNotice({ uuid, entity }: { uuid: string; entity: string }): SlackMessage & { metadata: { event_type: string; event_payload: Record<string, string> } } {
  const text = `:warning: SubOps could not process UISP event \`${escapeMrkdwn(uuid)}\`${entity === 'unknown' ? '' : ` (${escapeMrkdwn(entity)})`}: UISP did not answer. It is processed if UISP sends it again; meanwhile check the change in UISP.`;
  return { ...message(text, [section(text)]), metadata: { event_type: WEBHOOK_FAILED_EVENT_TYPE, event_payload: { uuid, event: entity } } };
}

/** The message: the line, the event's reference, and for a payment by a suspended client the Unsuspend buttons. */
export function changeNotice(notice: ChangeNotice, options: ChangeViewOptions): SlackMessage {
  const line = changeLine(notice, options);
  const blocks: Block[] = [section(line)];
  const { change, event } = notice;
  if (change.kind === 'payment-added' && change.suspendedServices.length) {
    const services = change.suspendedServices.map(serviceText).join(', ');
    blocks.push(section(`:warning: This client has a suspended service: ${services}. Lift the suspension now that they have paid?`));
    blocks.push(
      actions(
        BLOCK.uispUnsuspend,
        change.suspendedServices.map((service) =>
          button({ actionId: unsuspendActionId(service.id), text: `Unsuspend #${service.id}`, style: 'primary', value: unsuspendValue(service) }),
        ),
      ),
    );
  }
  blocks.push(context(`UISP event ${escapeMrkdwn(event.eventName ?? `${event.entity}.${event.changeType}`)}`));
  return message(line, blocks);
}

/** The notice after its button was pressed: that button gone, who pressed it noted. */
export function unsuspendPressed(blocks: Block[], serviceId: number, userId: string): Block[] {
  const kept = blocks.flatMap((block): Block[] => {
    if (block.type !== 'actions' || block.block_id !== BLOCK.uispUnsuspend) return [block];
    const elements = block.elements.filter((element) => !('action_id' in element) || element.action_id !== unsuspendActionId(serviceId));
    return elements.length ? [{ ...block, elements }] : [];
  });
  return [...kept, context(`:arrow_forward: Unsuspend of service #${serviceId} started by ${mention(userId)}`)];
}
