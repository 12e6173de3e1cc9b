/**
 * WebhookProcessor.onServiceWrite: a confirmed service add, edit or activation made outside this process
 * is handed on with its client (where late duplicates are looked for), once per event, even when the
 * event's processing is tried again; SubOps' own writes and other entities are not.
 */
import { describe, expect, it } from 'vitest';
import { touchesClientServices } from '../../src/services/events/changes.js';
import { OwnChanges } from '../../src/services/events/own-changes.js';
import { WebhookProcessor, type ServiceWrite } from '../../src/services/events/webhooks.js';
import type { CrmClient } from '../../src/services/uisp/crm-client.js';
import { UispUnavailableError } from '../../src/services/uisp/errors.js';
import { endpointOf } from '../../src/services/uisp/exchange.js';
import { SHARED_STATUSES } from '../../src/services/activation/service-status.js';
import { createLogger } from '../../src/slack/logging.js';
import { memoryClaims } from '../support/store.js';

const UUID = '00000000-0000-4000-8000-00000000000a';

function processor(event: { entity: string; changeType: string; entityId: number }, options: { own?: OwnChanges; serviceFailures?: number } = {}) {
  let serviceReads = 0;
  const crm = {
    getWebhookEvent: async (uuid: string) => ({ uuid, eventName: null, ...event }),
    getService: async (id: number) => {
      serviceReads += 1;
      // The first read is the hand-on's; the next ones the notice's, which fail `serviceFailures` times.
      if (serviceReads > 1 && serviceReads <= 1 + (options.serviceFailures ?? 0)) throw new UispUnavailableError({ system: 'crm', method: 'GET', path: `/crm/api/v1.0/clients/services/${id}` }, 'connection reset');
      return { id, clientId: 1004, status: 1, name: 'Standard Monthly', currencyCode: null, activeFrom: null, invoicingStart: null };
    },
    getClient: async (id: number) => ({ id, firstName: 'Shanice', lastName: 'Williams', companyName: null, userIdent: null, contacts: [] }),
  } as unknown as CrmClient;
  const writes: ServiceWrite[] = [];
  const webhooks = new WebhookProcessor({ crm, claims: memoryClaims(), ownChanges: options.own ?? new OwnChanges(), statuses: SHARED_STATUSES, logger: createLogger('silent'), attempts: 3, retryBackoffMs: 0 });
  webhooks.onServiceWrite((write) => void writes.push(write));
  return { webhooks, writes };
}

describe('onServiceWrite', () => {
  it.each([
    ['service', 'insert', true],
    ['service', 'edit', true],
    ['service', 'activate', true],
    ['service', 'suspend', false],
    ['service', 'delete', false],
    ['payment', 'insert', false],
    ['client', 'edit', false],
  ])('%s %s: %s', (entity, changeType, touches) => {
    expect(touchesClientServices({ entity, changeType, entityId: 107 })).toBe(touches);
  });

  it('a service edited in UISP: handed on with its client, although SubOps reports no edit', async () => {
    const { webhooks, writes } = processor({ entity: 'service', changeType: 'edit', entityId: 107 });
    webhooks.receive({ uuid: UUID });
    await webhooks.idle();
    expect(writes).toEqual([{ clientId: 1004, serviceId: 107, event: expect.objectContaining({ uuid: UUID, changeType: 'edit' }) }]);
  });

  it('once per event, when the rest of its processing is tried again', async () => {
    const { webhooks, writes } = processor({ entity: 'service', changeType: 'insert', entityId: 107 }, { serviceFailures: 2 });
    webhooks.receive({ uuid: UUID });
    await webhooks.idle();
    expect(writes.map((w) => w.serviceId)).toEqual([107]);
  });

  it('not for a service this process created, nor for other entities', async () => {
    const own = new OwnChanges();
    own.request({ system: 'crm', method: 'POST', path: '/crm/api/v1.0/clients/1004/services', endpoint: endpointOf('/crm/api/v1.0/clients/1004/services') })({ status: '2xx', durationMs: 5, body: { id: 107 } });
    const mine = processor({ entity: 'service', changeType: 'insert', entityId: 107 }, { own });
    mine.webhooks.receive({ uuid: UUID });
    await mine.webhooks.idle();
    expect(mine.writes).toEqual([]);

    const client = processor({ entity: 'client', changeType: 'edit', entityId: 1004 });
    client.webhooks.receive({ uuid: UUID });
    await client.webhooks.idle();
    expect(client.writes).toEqual([]);
  });
});
