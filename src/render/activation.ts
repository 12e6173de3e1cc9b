/**
 * The activation's step events in words, the same for the terminal and Slack (each front end adds its
 * own marks and escaping). The services send facts; the sentences are chosen here.
 */
import { describeMove } from '../services/activation/planner.js';
import type { ServiceRef, StepEvent } from '../services/activation/types.js';
import { formatMoney } from '../services/money.js';

const BY_ANOTHER_RUN = 'created by another activation of the same customer';

const named = (service: ServiceRef) => (service.name ? ` (${service.name})` : '');
const afterDeleting = (deleted: number[]) => (deleted.length ? ` after deleting ${deleted.map((id) => `#${id}`).join(', ')}` : '');

/** One sentence for a step event, e.g. "Created client #1042 Ada Lovelace". */
export function stepSentence(event: StepEvent): string {
  if (event.status === 'failed') {
    const left = event.leftoverSite;
    if (!left) return event.error;
    return `Created NMS site "${left.site.name}" (${left.site.id}) for client #${left.clientId}, another activation's duplicate, and could not remove it: ${event.error}`;
  }
  switch (event.step) {
    case 'discover': {
      const { device } = event;
      return `Found ${device.name} (${[device.ip, device.mac].filter(Boolean).join(', ')}) in the ${device.list} devices list`;
    }
    case 'client': {
      if (event.status === 'planned') return event.plan.action === 'reuse' ? `Would reuse client #${event.plan.client.id} ${event.plan.client.name}` : `Would create client ${event.plan.firstName} ${event.plan.lastName}`;
      const { client } = event;
      if (event.kind === 'created') return `Created client #${client.id} ${client.name}`;
      return `Reusing client #${client.id} ${client.name}${event.kind === 'created-concurrently' ? `, ${BY_ANOTHER_RUN}` : ''}`;
    }
    case 'service': {
      if (event.status === 'planned') {
        const { plan } = event;
        if (plan.action === 'reuse') return `Would reuse Active service #${plan.service.id} (already activated)`;
        const deletions = plan.delete.map((s) => `delete ${s.statusLabel} service #${s.id}, then `).join('');
        return `Would ${deletions}create an Active service (plan period ${plan.servicePlanPeriodId}, ${formatMoney(plan.price)}/month from ${plan.activeFrom})`;
      }
      const { service } = event;
      if (event.kind === 'already-active') return `Already activated: service #${service.id}${named(service)} is Active`;
      if (event.kind === 'created-concurrently') return `Service #${service.id} is Active, ${BY_ANOTHER_RUN}${afterDeleting(event.deleted)}`;
      return `Created ${service.statusLabel} service #${service.id}${named(service)}: ${formatMoney(event.price, event.currency)}/month from ${event.activeFrom}${afterDeleting(event.deleted)}`;
    }
    case 'site': {
      if (event.status === 'planned') return event.plan.action === 'reuse' ? `Would reuse NMS site "${event.plan.site.name}"` : `Would create NMS site "${event.plan.name}"`;
      const { site } = event;
      if (event.kind === 'created') return `Created NMS site "${site.name}"`;
      return `Reusing NMS site "${site.name}"${event.kind === 'created-concurrently' ? `, ${BY_ANOTHER_RUN}` : ''}`;
    }
    case 'authorize': {
      const { device } = event;
      if (event.status === 'planned') {
        if (event.authorize.action === 'skip') return event.authorize.reason;
        return event.move ? `Would move ${device.name} from site ${describeMove(event.move)} onto that site (only when confirmed)` : `Would authorize ${device.name} onto that site`;
      }
      return event.status === 'done' ? `Authorized ${device.name} onto site "${event.site.name}"` : `${device.name} is already authorized on site "${event.site.name}"`;
    }
    case 'manual-link': {
      const { client, site, device } = event;
      return `Manual step: in the CRM web interface, link client #${client.id} ${client.name} (${event.crmClientUrl}) to NMS site "${site.name}" and device ${device.name}. SubOps does not perform this link.`;
    }
  }
}
