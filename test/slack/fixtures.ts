/** Representative data for view tests: hostile names, long names, many rows. */
import type { ActivationPlan, ActivationRequest, ActivationResult, DoneEntry, StepEvent } from '../../src/services/activation/types.js';
import type { PaymentSummary } from '../../src/services/payments.js';
import type { Client, Payment, PaymentMethod, Service, SuspensionReason } from '../../src/services/uisp/schemas.js';
import type { Origin } from '../../src/slack/metadata.js';

export const HOSTILE = '<!channel> & <@U999> <https://evil.example|click>';
export const LONG = 'Bartholomew-Maximilian '.repeat(20).trim();

export const origin: Origin = { channelId: 'C0SUPPORT', userId: 'U0AGENT', responseUrl: 'https://hooks.slack.com/commands/T0001/1/abcdef' };

export const request: ActivationRequest = { device: '10.20.1.51', firstName: HOSTILE, lastName: LONG, email: 'a@b.gy', phone: '+592 600 1234', clientId: 1002 };

export const plan: ActivationPlan = {
  device: { id: 'dev-1', name: `LBE ${HOSTILE}`, ip: '10.20.1.51', mac: '78:8A:20:4C:1E:51', list: 'discovered', siteId: null, authorized: false, role: 'station' },
  client: { action: 'reuse', client: { id: 1002, name: HOSTILE } },
  service: {
    action: 'create',
    delete: Array.from({ length: 40 }, (_, i) => ({ id: 100 + i, status: 6, statusLabel: 'Quoted', name: `${LONG} ${i}` })),
    leftAlone: [{ id: 300, status: 6, statusLabel: 'Quoted', name: `Cable TV ${HOSTILE}` }],
    servicePlanPeriodId: 37,
    price: 10000,
    activeFrom: '2025-01-15',
  },
  site: { action: 'create', name: HOSTILE, parentSiteId: 'root' },
  authorize: { action: 'authorize' },
  move: null,
  destructive: true,
};

export const steps: StepEvent[] = [
  { type: 'step', step: 'discover', status: 'done', device: plan.device, ids: { deviceId: 'dev-1' } },
  { type: 'step', step: 'client', status: 'skipped', kind: 'reused', client: { id: 1002, name: HOSTILE }, ids: { clientId: 1002 } },
  { type: 'step', step: 'service', status: 'failed', error: { code: 'uisp-error', problem: 'request', detail: LONG.repeat(20), mayHaveApplied: true, beforeWrites: false }, ids: {} },
  { type: 'step', step: 'site', status: 'planned', plan: plan.site, ids: { siteId: 's-1' } },
  { type: 'step', step: 'manual-link', status: 'manual', client: { id: 1002, name: HOSTILE }, crmClientUrl: 'https://uisp.example.net/crm/client/1002', site: { id: 's-1', name: HOSTILE }, device: plan.device, ids: { clientId: 1002, siteId: 's-1', deviceId: 'dev-1' } },
];

const reached = { client: { id: 1002, name: HOSTILE }, service: { id: 140, status: 1, statusLabel: 'Active', name: null }, site: { id: 's-1', name: HOSTILE }, device: plan.device };

const created: DoneEntry = { kind: 'service-created', service: reached.service, price: 10000, currency: 'GYD', activeFrom: '2025-01-15', deleted: [] };
export const activated: ActivationResult = { type: 'result', outcome: 'activated', ...reached, crmClientUrl: 'https://uisp.example.net/crm/client/1002?a=1&b=2', done: [created], notDone: [] };
export const alreadyActivated: ActivationResult = { type: 'result', outcome: 'already-activated', ...reached, crmClientUrl: 'https://uisp.example.net/crm/client/1002?a=1&b=2', done: [], notDone: [] };
export const failed: ActivationResult = {
  type: 'result',
  outcome: 'failed',
  failedStep: 'discover',
  client: reached.client,
  done: Array.from({ length: 80 }, (_, i) => ({ kind: 'duplicate-refused', record: 'site', id: `s-${i}`, detail: `${LONG} ${HOSTILE}` }) as const),
  notDone: [{ kind: 'create-site', name: HOSTILE }, { kind: 'authorize', device: plan.device }],
  error: { code: 'device-ambiguous', query: { kind: 'name', name: HOSTILE }, devices: Array.from({ length: 30 }, (_, i) => ({ ...plan.device, id: `dev-${i}`, name: `cpe-${i} ${HOSTILE}` })) },
};

export const client: Client = { id: 1002, firstName: HOSTILE, lastName: LONG, companyName: null, clientType: 1, userIdent: null, isLead: false, isArchived: false, contacts: [], tags: [] };

export const services: Service[] = Array.from({ length: 130 }, (_, i) => ({ id: 200 + i, clientId: 1002, status: i % 2 ? 1 : 3, name: `${HOSTILE} ${LONG}`, servicePlanPeriodId: 37, price: 10000, currencyCode: 'GYD', activeFrom: '2024-01-01', invoicingStart: '2024-01-01', suspensionReasonId: null }));

export const reasons: SuspensionReason[] = Array.from({ length: 120 }, (_, i) => ({ id: i + 1, name: i === 0 ? HOSTILE : `${LONG} ${i}` }));

export const methods: PaymentMethod[] = [
  { id: '6efa7c8f-1c2d-4e5f-8a9b-0c1d2e3f4a5b', name: 'Cash', visible: true },
  { id: '7efa7c8f-1c2d-4e5f-8a9b-0c1d2e3f4a5b', name: HOSTILE, visible: true },
  { id: '8efa7c8f-1c2d-4e5f-8a9b-0c1d2e3f4a5b', name: 'Hidden', visible: false },
];

export function payments(count: number): Payment[] {
  return Array.from({ length: count }, (_, i) => ({
    id: 5000 - i,
    clientId: 1000 + (i % 7),
    methodId: methods[i % 2]!.id,
    createdDate: `2025-01-${String(1 + (i % 28)).padStart(2, '0')}T10:00:00-0400`,
    amount: 10000 + i * 0.5,
    currencyCode: i % 5 ? 'GYD' : 'USD',
    note: HOSTILE,
  }));
}

export function summary(count: number): PaymentSummary {
  const list = payments(count);
  return {
    query: { from: '2024-12-16', to: '2025-01-15' },
    payments: list,
    totals: [
      { currency: 'GYD', amount: 480_000, count: count - 12 },
      { currency: 'USD', amount: 120_000.5, count: 12 },
    ],
    pageTotals: [
      { currency: 'GYD', amount: 10_000 * count, count },
    ],
    count: count + 1000,
  };
}

export const clientNames = new Map(Array.from({ length: 7 }, (_, i) => [1000 + i, i === 2 ? HOSTILE : `${LONG} ${i}`] as const));
export const methodNames = new Map(methods.map((m) => [m.id, m.name]));
