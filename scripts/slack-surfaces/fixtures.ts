/**
 * Fixed data for docs/slack-surfaces.md: customers, devices and payments of the simulator's sample data
 * (src/simulator/sample-data.json), written out so the page never depends on the clock or on a run.
 * Every timestamp is a constant.
 */
import type { OutageInProgress } from '../../src/services/outages.js';
import type { ActivationPlan, ActivationRequest, ActivationResult, DeviceRef, StepEvent } from '../../src/services/activation/types.js';
import type { Digest } from '../../src/services/digest/build.js';
import type { ChangeNotice } from '../../src/services/events/webhooks.js';
import type { ClientCard, DeviceCard, DeviceLine } from '../../src/services/lookups/index.js';
import type { PaymentSummary } from '../../src/services/payments.js';
import type { Client, Payment, Service, SuspensionReason } from '../../src/services/uisp/schemas.js';
import type { ApprovalRequest, Origin } from '../../src/slack/metadata.js';
import type { AuditLine } from '../../src/views/home.js';
import type { SheetCheck } from '../../src/services/sheets/types.js';
import type { SheetRowLine } from '../../src/views/sheet.js';

export const AGENT = 'U0AGENT';
export const LEAD = 'U0LEAD';
export const SUPPORT = 'C0SUPPORT';
export const AUDIT = 'C0AUDIT';
export const DISPLAY_NAMES = {
  users: { [AGENT]: 'agent', [LEAD]: 'lead' } as Record<string, string>,
  channels: { [SUPPORT]: 'support', [AUDIT]: 'subops-audit' } as Record<string, string>,
};

const CRM = 'https://uisp.example.net/crm/client';
export const crmClientUrl = (clientId: number) => `${CRM}/${clientId}`;
const THREAD = 'https://example.slack.com/archives/C0SUPPORT/p1795430520000100';

/** 2026-11-23 18:02 UTC, as Slack writes a message ts. */
const AN_EVENING = 1_795_456_920;

export const origin: Origin = { channelId: SUPPORT, userId: AGENT, responseUrl: 'https://hooks.slack.com/commands/T0001/1/abcdef' };

// ---------- Activation: a brand-new customer on the discovered PowerBeam ----------

export const newCustomer: ActivationRequest = { device: '10.20.1.88', firstName: 'Ada', lastName: 'Lovelace' };

const powerBeam: DeviceRef = { id: 'c1d2e3f4-0000-4a00-8000-000000000088', name: 'PowerBeam 5AC', ip: '10.20.1.88', mac: '74:83:C2:0F:AB:88', list: 'discovered', siteId: null, authorized: false, role: 'station' };
const ada = { id: 1010, name: 'Ada Lovelace' };
const adaService = { id: 106, status: 1, statusLabel: 'Active', name: 'Standard Monthly' };
const adaSite = { id: 'b7a1c2d3-0000-4b00-8000-000000001010', name: 'Ada Lovelace' };
const ids = { deviceId: powerBeam.id, clientId: ada.id, serviceId: adaService.id, siteId: adaSite.id };

export const newCustomerSteps: StepEvent[] = [
  { type: 'step', step: 'discover', status: 'done', device: powerBeam, ids: { deviceId: powerBeam.id } },
  { type: 'step', step: 'client', status: 'done', kind: 'created', client: ada, ids: { clientId: ada.id } },
  { type: 'step', step: 'service', status: 'done', kind: 'created', service: adaService, price: 10000, currency: 'GYD', activeFrom: '2026-11-23', deleted: [], ids: { serviceId: adaService.id } },
  { type: 'step', step: 'site', status: 'done', kind: 'created', site: adaSite, ids: { siteId: adaSite.id } },
  { type: 'step', step: 'authorize', status: 'done', device: { ...powerBeam, list: 'authorized', authorized: true, siteId: adaSite.id }, site: adaSite, ids: { deviceId: powerBeam.id, siteId: adaSite.id } },
  { type: 'step', step: 'manual-link', status: 'manual', client: ada, crmClientUrl: crmClientUrl(ada.id), site: adaSite, device: powerBeam, ids },
];

export const newCustomerActivated: ActivationResult = {
  type: 'result',
  outcome: 'activated',
  device: { ...powerBeam, list: 'authorized', authorized: true, siteId: adaSite.id },
  client: ada,
  service: adaService,
  site: adaSite,
  crmClientUrl: crmClientUrl(ada.id),
  done: [
    { kind: 'client-created', client: ada },
    { kind: 'service-created', service: adaService, price: 10000, currency: 'GYD', activeFrom: '2026-11-23', deleted: [] },
    { kind: 'site-created', site: { name: adaSite.name } },
    { kind: 'authorized', device: powerBeam, site: adaSite },
  ],
  notDone: [],
};

/** The same activation when UISP does not answer the service's creation: the client and site stay, Retry finishes it. */
export const newCustomerFailed: ActivationResult = {
  type: 'result',
  outcome: 'failed',
  failedStep: 'service',
  client: ada,
  error: { code: 'uisp-error', problem: 'request', detail: 'UISP is unavailable (HTTP 503) (tried 5 times; UISP does not show it yet, it may still appear)', mayHaveApplied: true, beforeWrites: false },
  done: [{ kind: 'client-created', client: ada }],
  notDone: [{ kind: 'create-service' }, { kind: 'create-site', name: adaSite.name }, { kind: 'authorize', device: powerBeam }],
};

// ---------- Activation confirmation: Priya's Quoted service is replaced ----------

export const priyaRequest: ActivationRequest = { device: '10.20.1.51', firstName: 'Priya', lastName: 'Ramnarine' };
const priyaQuoted = { id: 102, status: 6, statusLabel: 'Quoted', name: 'Standard Monthly' };

export const priyaPlan: ActivationPlan = {
  device: { id: 'c1d2e3f4-0000-4a00-8000-000000000051', name: 'LBE-Ramnarine', ip: '10.20.1.51', mac: '78:8A:20:4C:1E:51', list: 'discovered', siteId: null, authorized: false, role: 'station' },
  client: { action: 'reuse', client: { id: 1002, name: 'Priya Ramnarine' } },
  service: { action: 'create', delete: [priyaQuoted], leftAlone: [], servicePlanPeriodId: 37, price: 10000, activeFrom: '2026-11-23' },
  site: { action: 'create', name: 'Priya Ramnarine', parentSiteId: '3f6b2c1e-8d4a-4e7b-9c2d-5a1e0f7b3c01' },
  authorize: { action: 'authorize' },
  move: null,
  destructive: true,
};

// ---------- Install sheet: Priya, Ada and a row in error ----------

const adaPlan: ActivationPlan = {
  device: powerBeam,
  client: { action: 'create', firstName: 'Ada', lastName: 'Lovelace' },
  service: { action: 'create', delete: [], leftAlone: [], servicePlanPeriodId: 37, price: 10000, activeFrom: '2026-11-23' },
  site: { action: 'create', name: 'Ada Lovelace', parentSiteId: '3f6b2c1e-8d4a-4e7b-9c2d-5a1e0f7b3c01' },
  authorize: { action: 'authorize' },
  move: null,
  destructive: false,
};

export const sheetCheck: SheetCheck = {
  rows: [
    { row: 1, line: 2, kind: 'plan', request: { ...priyaRequest, clientId: 1002 }, plan: priyaPlan, confirm: { deletes: [priyaQuoted], move: null }, alreadyDone: false },
    { row: 2, line: 3, kind: 'plan', request: newCustomer, plan: adaPlan, confirm: null, alreadyDone: false },
    { row: 3, line: 4, kind: 'problem', request: null, problem: { code: 'invalid', problems: [{ column: 'last_name', problem: 'Last name may contain only letters, spaces, hyphens, apostrophes and periods.' }] } },
  ],
  totals: { rows: 3, toRun: 2, needConfirmation: 1, alreadyDone: 0, inError: 1 },
};

/** The rows reply while Ada's row still runs, then once every row ended. */
export const sheetRowsRunning: SheetRowLine[] = [
  { row: 1, line: 2, request: sheetCheck.rows[0]!.request, outcome: 'done', sentence: 'Activated Priya Ramnarine: service #107, site "Priya Ramnarine", device LBE-Ramnarine.' },
  { row: 2, line: 3, request: newCustomer },
  { row: 3, line: 4, request: null, outcome: 'refused', sentence: 'last_name: Last name may contain only letters, spaces, hyphens, apostrophes and periods. Nothing was changed.' },
];
export const sheetRowsDone: SheetRowLine[] = sheetRowsRunning.map((row) => (row.row === 2 ? { ...row, outcome: 'done', sentence: 'Activated Ada Lovelace: service #106, site "Ada Lovelace", device PowerBeam 5AC.' } : row));

// ---------- Suspension: Marcus Baptiste's service 101 ----------

const contact = (email: string, phone: string) => [{ email, phone }];

export const marcus: Client = {
  id: 1001,
  firstName: 'Marcus',
  lastName: 'Baptiste',
  companyName: null,
  clientType: 1,
  userIdent: 'DW-1001',
  isLead: false,
  isArchived: false,
  contacts: contact('marcus.baptiste@example.com', '+592 600 1001'),
  tags: [],
};

export const marcusService: Service = {
  id: 101,
  clientId: 1001,
  status: 1,
  name: 'Standard Monthly',
  servicePlanPeriodId: 37,
  price: 10000,
  currencyCode: 'GYD',
  activeFrom: '2024-03-01',
  invoicingStart: '2024-03-01',
  suspensionReasonId: null,
};

export const customerRequest: SuspensionReason = { id: 2, name: 'Customer request' };

export const statusLabel = (status: number): string => ({ 1: 'Active', 3: 'Suspended' })[status] ?? `status ${status}`;

// ---------- A payment recorded in UISP for Ravi Persaud, whose service is suspended ----------

export const ravi: Client = {
  id: 1005,
  firstName: 'Ravi',
  lastName: 'Persaud',
  companyName: null,
  clientType: 1,
  userIdent: 'DW-1005',
  isLead: false,
  isArchived: false,
  contacts: contact('ravi.persaud@example.com', '+592 644 9012'),
  tags: [],
};

const raviSuspended: Service = { ...marcusService, id: 104, clientId: 1005, status: 3, suspensionReasonId: 1 };
const CHECK = '4145b5f5-3bbc-45e3-8fc5-9cda970c62fb';
const raviPayment: Payment = { id: 3193, clientId: 1005, methodId: CHECK, createdDate: '2026-11-21T10:15:00-0400', amount: 29000, currencyCode: 'GYD', note: null };

export const paymentNotice: ChangeNotice = {
  event: { uuid: '5f1c9a7e-2b3d-4e8f-9a0b-1c2d3e4f5a6b', changeType: 'insert', entity: 'payment', entityId: 3193, eventName: 'payment.add' },
  change: { kind: 'payment-added', payment: raviPayment, client: ravi, suspendedServices: [raviSuspended] },
};

// ---------- The payments listing of Marcus Baptiste ----------

const MOBILE_MONEY = 'c3a9e5f1-7b2d-4e8a-9f6c-1d4b8e2a7c53';
const CASH = '6efe0fa8-36b2-4dd1-b049-427bffc7d369';
export const methodNames = new Map([
  [MOBILE_MONEY, 'Mobile money'],
  [CASH, 'Cash'],
  [CHECK, 'Check'],
]);
export const clientNames = new Map([[1001, 'Marcus Baptiste']]);

const marcusPayments: Payment[] = [
  { id: 3201, clientId: 1001, methodId: MOBILE_MONEY, createdDate: '2026-11-22T09:30:00-0400', amount: 10000, currencyCode: 'GYD', note: null },
  { id: 3150, clientId: 1001, methodId: CASH, createdDate: '2026-10-21T16:05:00-0400', amount: 10000, currencyCode: 'GYD', note: 'Paid at the counter' },
  { id: 3088, clientId: 1001, methodId: MOBILE_MONEY, createdDate: '2026-09-20T11:42:00-0400', amount: 10000, currencyCode: 'GYD', note: null },
];

export const marcusPaymentSummary: PaymentSummary = {
  query: { clientId: 1001, from: '2026-08-25', to: '2026-11-23' },
  payments: marcusPayments,
  totals: [{ currency: 'GYD', amount: 30000, count: 3 }],
  pageTotals: [{ currency: 'GYD', amount: 30000, count: 3 }],
  count: 3,
};

// ---------- Cards: Ravi Persaud's client card, the discovered PowerBeam's device card ----------

const persaudRadio: DeviceLine = {
  id: 'c1d2e3f4-0000-4a00-8000-000000000044',
  name: 'cpe-persaud',
  model: 'NanoBeam 5AC Gen2',
  ip: '10.20.2.44',
  mac: 'fc:ec:da:2c:44:01',
  status: 'active',
  online: true,
  signal: -63,
  uptimeSeconds: 1_904_400,
  lastSeen: '2026-11-23T18:00:00Z',
  authorized: true,
  list: 'authorized',
  role: 'station',
  siteId: 'b7a1c2d3-0000-4b00-8000-000000001005',
};

export const raviCard: ClientCard = {
  client: { id: 1005, name: 'Ravi Persaud', archived: false, address: '88 Lusignan Pasture, East Coast Demerara', email: 'ravi.persaud@example.com', phone: '+592 644 9012', userIdent: 'DW-1005' },
  crmUrl: crmClientUrl(1005),
  account: { balance: -20000, outstanding: 20000, currency: 'GYD' },
  services: [{ id: 104, name: 'Standard Monthly', plan: 'Standard Monthly', status: 3, statusLabel: 'Suspended', suspensionReason: 'Non-payment', price: 10000, currency: 'GYD', periodMonths: 1, action: 'unsuspend' }],
  lastPayment: raviPayment,
  sites: [{ id: persaudRadio.siteId!, name: 'Ravi Persaud', linkedBy: 'crm', devices: [persaudRadio] }],
  // Ravi Persaud is below Enmore Tower, whose AP is down.
  outages: [{ id: 'a3f0c1d2-0000-4c00-8000-000000000001', since: '2026-11-23T17:40:00Z', device: 'enmore-ap1', site: 'Enmore Tower' }],
  gaps: [],
  duplicates: [],
  activate: null,
};

export const powerBeamCard: DeviceCard = {
  device: { ...powerBeam, model: 'PowerBeam 5AC 400', status: 'unauthorized', online: false, signal: null, uptimeSeconds: null, lastSeen: null, siteId: null },
  site: null,
  client: null,
  outages: [],
  activate: { device: '10.20.1.88' },
  gaps: [],
};

// ---------- Approval: Priya's activation deletes a Quoted service ----------

export const approvalRequest: ApprovalRequest = {
  id: 'apr-7c1e9b2d',
  requester: AGENT,
  origin,
  requestedAt: AN_EVENING * 1000,
  expiresAt: (AN_EVENING + 4 * 3600) * 1000,
  reasons: [{ kind: 'delete-service', serviceIds: [102] }],
  operation: { kind: 'activation', request: priyaRequest, confirmedDeletes: [{ id: 102, status: 6 }] },
};

/** The install sheet above, its row 1 deleting Priya's Quoted service: one approval for the whole sheet. */
export const sheetApprovalRequest: ApprovalRequest = {
  ...approvalRequest,
  id: 'apr-3f08a6c1',
  operation: { kind: 'sheet', sheetId: '0b6c2f0e-8a3e-4d6a-9c1e-2f4b5a6c7d8e', check: sheetCheck, approvalRows: [1] },
};

// ---------- App Home ----------

const activation: AuditLine = {
  action: 'activate',
  result: 'activated',
  ok: true,
  actor: { via: 'slack', userId: AGENT },
  summary: 'Activated Ada Lovelace: client #1010, service #106, NMS site Ada Lovelace',
  ts: `${AN_EVENING}.000100`,
  permalink: THREAD,
};
const payment: AuditLine = {
  action: 'payment',
  result: 'recorded',
  ok: true,
  actor: { via: 'cli', username: 'alice' },
  summary: 'Payment of GYD 5,000.00 recorded for client #1002',
  ts: `${AN_EVENING + 120}.000200`,
};
export const homeOperations = { mine: [activation], team: [payment, activation] };
/** When the Home tab is read: how long its outages have lasted. */
export const homeNow = new Date(AN_EVENING * 1000);
export const homeOutages: OutageInProgress[] = [
  {
    id: 'a3f0c1d2-0000-4c00-8000-000000000001',
    since: '2026-11-23T17:40:00Z',
    device: { id: '2d1a6f9c-3b4e-4c5d-8f7a-8e9b0c1d2e03', name: 'enmore-ap1', model: 'Rocket 5AC PtMP', role: 'ap', ip: '10.20.2.2/24' },
    devicesDown: 1,
    site: { id: 'b2e4f6a8-1c3d-4e5f-a7b9-c0d2e4f6a823', name: 'Enmore Tower', kind: 'infrastructure' },
    affected: [{ clientId: 1005, name: 'Ravi Persaud', siteId: persaudRadio.siteId!, service: { id: 104, name: 'Standard Monthly', status: 3, statusLabel: 'Suspended' } }],
  },
];
export const homeMissingLinks = [{ siteId: adaSite.id, siteName: adaSite.name, clientId: ada.id, crmUrl: crmClientUrl(ada.id) }];

// ---------- The daily digest of 2026-11-23 ----------

export const digest: Digest = {
  date: '2026-11-23',
  timeZone: 'America/Guyana',
  payments: {
    count: 4,
    byCurrency: [{ currency: 'GYD', count: 4, total: 54000 }],
    byMethod: [
      { method: 'Mobile money', currency: 'GYD', count: 2, total: 20000 },
      { method: 'Check', currency: 'GYD', count: 1, total: 29000 },
      { method: 'Cash', currency: 'GYD', count: 1, total: 5000 },
    ],
  },
  awaitingLink: [{ siteId: adaSite.id, siteName: adaSite.name, clientId: ada.id }],
  outages: { count: 2, downSeconds: 5400, customerMinutes: 150 },
  audit: {
    activations: {
      done: [{ device: '10.20.1.88', clientId: ada.id, actor: AGENT, actorVia: 'slack', summary: activation.summary, permalink: THREAD }],
      failed: [],
    },
    suspensions: [{ serviceId: 101, clientId: 1001, actor: AGENT, actorVia: 'slack', summary: 'Suspended service #101 of client #1001 Marcus Baptiste (Customer request)', permalink: null }],
    lifts: [{ serviceId: 104, clientId: 1005, actor: 'UISP', actorVia: 'uisp', summary: 'Suspension of service #104 lifted in UISP', permalink: null }],
    lateDuplicates: [],
    failedWebhooks: [],
  },
};

/** Diamond Tower's AP down since 14:02 (issue #40): the customers below it, as the outage watch reads them. */
export const diamondOutage: OutageInProgress = {
  id: 'f0e1d2c3-b4a5-4697-8879-6a5b4c3d2e1f',
  since: '2026-11-28T14:02:00.000Z',
  device: { id: '1c0f5e8b-2a3d-4b4c-9e6f-7d8a9b0c1d02', name: 'diamond-ap1', model: 'Rocket 5AC Prism', role: 'ap', ip: '10.20.1.2/24' },
  devicesDown: 1,
  site: { id: '7c1d9e2a-4b3f-4a6c-8e5d-2f9b0c1a7d12', name: 'Diamond Tower', kind: 'infrastructure' },
  affected: [
    { clientId: 1007, name: 'Leon Hope', siteId: '4d5e6f7a-8b9c-4dae-9f10-3b4c5d6e7f89', service: null },
    { clientId: 1001, name: 'Marcus Baptiste', siteId: '1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c56', service: { id: 101, name: 'Standard Monthly', status: 1, statusLabel: 'Active' } },
  ],
};
