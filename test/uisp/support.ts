/**
 * Test harness for the UISP HTTP core: an offline undici MockAgent wired the way container.ts wires the
 * real clients (same base paths, same auth headers), with call history on so tests can inspect what
 * was actually sent.
 */
import { MockAgent, type Interceptable, type MockCallHistoryLog } from 'undici';
import { CrmClient } from '../../src/services/uisp/crm-client.js';
import { UispHttp, type RetryPolicy, type UispTimeouts } from '../../src/services/uisp/http.js';
import { NmsClient } from '../../src/services/uisp/nms-client.js';

export const ORIGIN = 'https://uisp.test';
export const CRM_BASE = '/crm/api/v1.0';
export const NMS_BASE = '/nms/api/v2.1';
/** Distinctive values so a leak is easy to spot in any string. */
export const CRM_TOKEN = 'crm-SECRET-7f3c9a1e5b2d';
export const NMS_TOKEN = 'nms-SECRET-0d4e8b6a2c1f';

export const JSON_HEADERS = { 'content-type': 'application/json' };

export interface Harness {
  agent: MockAgent;
  /** Interceptors for ORIGIN (both systems share one origin, as in production). */
  pool: Interceptable;
  crmHttp: UispHttp;
  nmsHttp: UispHttp;
  crm: CrmClient;
  nms: NmsClient;
  /** Every request that reached the mock, oldest first. */
  calls(): MockCallHistoryLog[];
  close(): Promise<void>;
}

export interface HarnessOptions {
  timeouts?: Partial<UispTimeouts>;
  retry?: Partial<RetryPolicy>;
}

export function createHarness(options: HarnessOptions = {}): Harness {
  const agent = new MockAgent({ enableCallHistory: true });
  agent.disableNetConnect();
  const common = {
    dispatcher: agent,
    timeouts: { connectMs: 200, requestMs: 200, ...options.timeouts },
    retry: { retries: 2, backoffMs: 1, ...options.retry },
  };
  // Mirrors src/services/container.ts: CRM sends the token under both header names.
  const crmHttp = new UispHttp({
    ...common,
    system: 'crm',
    baseUrl: `${ORIGIN}${CRM_BASE}`,
    headers: { 'X-Auth-Token': CRM_TOKEN, 'X-Auth-App-Key': CRM_TOKEN },
  });
  const nmsHttp = new UispHttp({ ...common, system: 'nms', baseUrl: `${ORIGIN}${NMS_BASE}`, headers: { 'X-Auth-Token': NMS_TOKEN } });
  return {
    agent,
    pool: agent.get(ORIGIN),
    crmHttp,
    nmsHttp,
    crm: new CrmClient(crmHttp),
    nms: new NmsClient(nmsHttp),
    calls: () => agent.getCallHistory()?.calls() ?? [],
    close: async () => {
      // A test that leaves an interceptor unused set up a request the code never made.
      agent.assertNoPendingInterceptors();
      await agent.close();
    },
  };
}

/** Request headers of a recorded call, names lower-cased. */
export function headersOf(call: MockCallHistoryLog): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(call.headers ?? {})) {
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

/** The JSON body of a recorded call, or undefined when none was sent. */
export function bodyOf(call: MockCallHistoryLog): unknown {
  return call.body == null || call.body === '' ? undefined : JSON.parse(call.body);
}

/** Minimal valid records for each response schema. */
export const fixtures = {
  client: (id = 1) => ({ id, firstName: 'Ada', lastName: 'Lovelace', companyName: null, contacts: [] }),
  service: (id = 5, clientId = 1, status = 1) => ({ id, clientId, status, name: 'Standard Monthly', servicePlanPeriodId: 37 }),
  suspensionReason: (id = 3) => ({ id, name: 'Non-payment' }),
  servicePlan: (id = 2) => ({ id, name: 'Standard', periods: [{ id: 37, period: 1, price: 10000, enabled: true }] }),
  paymentMethod: () => ({ id: '4145b5f5-3bbc-45e3-8fc5-9cda970c62fb', name: 'Cash', visible: true }),
  payment: (id = 1) => ({ id, clientId: 1, methodId: null, createdDate: '2025-01-02T10:00:00+0000', amount: 10000, currencyCode: 'GYD', note: null }),
  device: (id = 'd-1') => ({ identification: { id, name: 'cpe-ada', mac: 'AA:BB:CC:DD:EE:FF', ip: '10.0.0.9/24', authorized: true }, ipAddress: '10.0.0.9' }),
  site: (id = 's-1') => ({ id, identification: { id, name: 'Ada Lovelace', type: 'endpoint', parent: { id: 's-0', name: 'Tower' } } }),
  nmsStatus: () => ({ result: true, message: 'Device authorized.' }),
  webhookEvent: (uuid = '2c6984d7-03ae-4e48-a212-7b99378837a2') => ({ uuid, changeType: 'insert', entity: 'payment', entityId: 1 }),
};
