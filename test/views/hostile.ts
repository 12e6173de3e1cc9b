/**
 * Every Slack surface SubOps renders, built from data whose every UISP- or user-supplied string is one
 * hostile value: what a CPE reporting its own hostname, a client's name typed into the CRM, a payment
 * note or an agent's typed text can carry. Ids, amounts, dates and Slack user ids stay well-formed:
 * UISP's schemas and Slack's payloads check those before a view sees them.
 */
import type { ActivationPlan, ActivationRequest, ActivationResult, DeviceRef, LateDuplicate, StepEvent } from '../../src/services/activation/types.js';
import type { ClientCard, DeviceCard, DeviceLine } from '../../src/services/lookups/index.js';
import type { Client, Payment, PaymentMethod, Service, SuspensionReason } from '../../src/services/uisp/schemas.js';
import type { Digest } from '../../src/services/digest/build.js';
import type { RemovalOutcome } from '../../src/services/duplicates.js';
import type { PendingLink } from '../../src/services/events/link-watch.js';
import type { UispChange } from '../../src/services/events/changes.js';
import type { ApprovalRequest, Origin, StoredRequest } from '../../src/slack/metadata.js';
import { accessRefusalText } from '../../src/views/access.js';
import { activationChecking, activationConfirm, activationForm, activationStarted } from '../../src/views/activation.js';
import { activationFailure, activationParent, activationStep, activationStopped, manualLinkReminder } from '../../src/views/activation-progress.js';
import { approvalAskedAgain, approvalNotPostedView, approvalRequestedView, approvalRequestMessage, approvedRunStopped, decidedRequestMessage, outcomeReply, pendingApprovalBlocks } from '../../src/views/approvals.js';
import { auditMessage } from '../../src/views/audit.js';
import { digestMessage } from '../../src/views/digest.js';
import { lateDuplicateNotice, noticeAfterClick, removalApprovalAsked, removalLine } from '../../src/views/duplicates.js';
import { homeView } from '../../src/views/home.js';
import { linkedReply, linkReminder } from '../../src/views/link-watch.js';
import { clientCardMessage, clientMatchesMessage, deviceCardMessage, deviceMatchesMessage, noClientMessage, noDeviceMessage } from '../../src/views/lookups.js';
import { paymentFilterForm, paymentForm, paymentRecordedMessage, paymentRecordedView, paymentsExported, paymentsList } from '../../src/views/payments.js';
import { operationStopped } from '../../src/views/process.js';
import { suspensionConfirm, suspensionForm, suspensionParent, suspensionResultReply, suspensionStopped } from '../../src/views/suspension.js';
import { threadNotPosted } from '../../src/views/thread-not-posted.js';
import { typeaheadOptions } from '../../src/views/typeahead.js';
import { changeNotice, webhookFailedNotice } from '../../src/views/uisp-changes.js';
import { acknowledgedReply, everyAffected, flappingMessage, outageParent, recoveredReply, redrawnParent, updateModal, updateReply } from '../../src/views/outages.js';
import type { OutageInProgress } from '../../src/services/outages.js';
import { section } from '../../src/views/kit.js';
import { sheetAskingApproval, sheetChecking, sheetCheckView, sheetContinued, sheetForm, sheetLinkReminders, sheetNotRun, sheetParent, sheetPlanSections, sheetReading, sheetRowsReply, sheetStarted, sheetStopped, sheetTemplateFailed, sheetTemplateSending, sheetTemplateSent } from '../../src/views/sheet.js';
import type { SheetCheck } from '../../src/services/sheets/types.js';
import { removalSentence } from '../../src/render/duplicates.js';

/** The repros: a phishing link that pings the channel, a spoofed line, formatting, a quote and every line break. */
export const HOSTILE_VALUES = [
  '<!channel> <https://evil.example/login|Verify your account>',
  '*Nothing is suspended. Safe to approve*\n• spoof',
  '_x_ ~y~ `z`',
  '> quoted\r\nnewline-cr\u2028newline-ls\u2029newline-ps',
] as const;

export const CRM = 'https://uisp.example.net';
const crmClientUrl = (id: number) => `${CRM}/crm/client/${id}`;
const PERMALINK = 'https://x.slack.com/archives/C0SUPPORT/p1700000000000100';
const origin: Origin = { channelId: 'C0SUPPORT', userId: 'U0AGENT', responseUrl: 'https://hooks.slack.com/commands/T0001/1/abcdef' };
const statusLabel = (status: number) => (status === 1 ? 'Active' : status === 3 ? 'Suspended' : `status ${status}`);

/** Every surface, by the view function that builds it (and the case, after a comma). */
export function surfaces(v: string): Record<string, unknown> {
  const device: DeviceRef = { id: 'dev-1', name: v, ip: '10.20.1.51', mac: '78:8A:20:4C:1E:51', list: 'discovered', siteId: null, authorized: false, role: v };
  const client = { id: 1002, name: v };
  const site = { id: 's-1', name: v };
  const service = { id: 140, status: 1, statusLabel: v, name: v };
  const request: ActivationRequest = { device: v, firstName: v, lastName: v, email: 'a@b.gy', phone: '+592 600 1234', clientId: 1002 };
  const plan: ActivationPlan = {
    device,
    client: { action: 'reuse', client },
    service: { action: 'create', delete: [{ ...service, id: 102, status: 6 }], leftAlone: [{ ...service, id: 300, status: 6 }], servicePlanPeriodId: 37, price: 10000, activeFrom: '2025-01-15' },
    site: { action: 'create', name: v, parentSiteId: 'root' },
    authorize: { action: 'authorize' },
    move: { site, client },
    destructive: true,
  };
  const newClientPlan: ActivationPlan = { ...plan, client: { action: 'create', firstName: v, lastName: v }, site: { action: 'reuse', site }, authorize: { action: 'skip', site }, move: { site, client: { id: null, name: null } } };
  const steps: StepEvent[] = [
    { type: 'step', step: 'discover', status: 'done', device, ids: { deviceId: v } },
    { type: 'step', step: 'client', status: 'done', kind: 'created', client, ids: { clientId: 1002 } },
    { type: 'step', step: 'client', status: 'planned', plan: { action: 'create', firstName: v, lastName: v }, ids: {} },
    { type: 'step', step: 'service', status: 'done', kind: 'created', service, price: 10000, currency: v, activeFrom: '2025-01-15', deleted: [102], ids: { serviceId: 140 } },
    { type: 'step', step: 'service', status: 'failed', error: { code: 'uisp-error', problem: 'request', detail: v, mayHaveApplied: true, beforeWrites: false }, ids: {} },
    { type: 'step', step: 'site', status: 'skipped', kind: 'reused', site, ids: { siteId: v } },
    { type: 'step', step: 'authorize', status: 'planned', device, authorize: { action: 'skip', site }, move: { site, client }, ids: {} },
    { type: 'step', step: 'authorize', status: 'done', device, site, ids: {} },
  ];
  const activated: ActivationResult = { type: 'result', outcome: 'activated', client, service, site, device, movedFrom: { site, client }, crmClientUrl: crmClientUrl(1002), done: [{ kind: 'authorized', device, site }], notDone: [] };
  const failed: ActivationResult = {
    type: 'result',
    outcome: 'failed',
    failedStep: 'discover',
    client,
    done: [
      { kind: 'client-created', client },
      { kind: 'service-delete-refused', service, detail: v },
      { kind: 'site-created', site: { name: v } },
      { kind: 'duplicate-refused', record: 'site', id: v, detail: v },
    ],
    notDone: [{ kind: 'create-client', firstName: v, lastName: v }, { kind: 'create-site', name: v }, { kind: 'authorize', device }],
    error: { code: 'device-ambiguous', query: { kind: 'name', name: v }, devices: [device, { ...device, id: 'dev-2' }] },
  };
  const refusedClient: ActivationResult = { ...failed, error: { code: 'client-ambiguous', typedName: v, candidates: [{ ...client, email: v, phone: v, address: v, archived: false }] } };
  const uispClient: Client = { id: 1002, firstName: v, lastName: v, companyName: v, clientType: 1, userIdent: v, isLead: false, isArchived: false, contacts: [], tags: [] };
  const uispService: Service = { id: 201, clientId: 1002, status: 3, name: v, servicePlanPeriodId: 37, price: 10000, currencyCode: v, activeFrom: '2024-01-01', invoicingStart: '2024-01-01', suspensionReasonId: 1 };
  const reason: SuspensionReason = { id: 1, name: v };
  const method: PaymentMethod = { id: '7efa7c8f-1c2d-4e5f-8a9b-0c1d2e3f4a5b', name: v, visible: true };
  const payment: Payment = { id: 5000, clientId: 1002, methodId: method.id, createdDate: v, amount: 10000.5, currencyCode: v, note: v };
  const line: DeviceLine = { id: 'dev-1', name: v, model: v, ip: v, mac: v, status: v, online: false, signal: -60, uptimeSeconds: 100, lastSeen: v, authorized: false, list: 'discovered', role: v, siteId: 's-1' };
  const duplicate = (record: LateDuplicate['record']): LateDuplicate => ({ record, client, kept: { id: record === 'site' ? v : 1, name: v }, others: [{ id: record === 'site' ? `${v}-late` : 2, name: v }] });
  const card: ClientCard = {
    client: { id: 1002, name: v, archived: false, address: v, email: v, phone: v, userIdent: v },
    crmUrl: crmClientUrl(1002),
    account: { balance: -10, outstanding: 10, currency: v },
    services: [{ id: 201, name: v, plan: v, status: 3, statusLabel: v, suspensionReason: v, price: 10000, currency: v, periodMonths: 1, action: 'unsuspend' }],
    lastPayment: payment,
    sites: [{ id: 's-1', name: v, linkedBy: 'marker', devices: [line] }],
    outages: [{ id: 'o-1', since: v, device: v, site: v }],
    gaps: [{ part: 'payments', problem: v }],
    duplicates: [duplicate('service'), duplicate('site')],
    activate: null,
  };
  const deviceCard: DeviceCard = { device: line, site: { id: 's-1', name: v, type: v }, client: { id: 1002, name: v, archived: true }, outages: [{ id: 'o-1', since: v, device: v, site: v }], activate: { device: v, firstName: v, lastName: v }, gaps: [{ part: 'nms', problem: v }] };
  const approval = (operation: ApprovalRequest['operation']): ApprovalRequest => ({
    id: 'req-1',
    requester: 'U0AGENT',
    origin,
    requestedAt: 0,
    expiresAt: 3_600_000,
    reasons: [{ kind: 'delete-service', serviceIds: [102] }, { kind: 'move-device', fromSite: v }, { kind: 'large-payment', amount: 200000, above: 100000 }, { kind: 'suspension' }],
    operation,
  });
  const approvals = {
    activation: approval({ kind: 'activation', request, confirmedDeletes: [{ id: 102, status: 6 }] }),
    suspension: approval({ kind: 'suspension', action: 'suspend', serviceId: 201, status: 1, clientName: v }),
    payment: approval({ kind: 'payment', input: { clientId: 1002, amount: 200000, method: method.id, note: v }, clientName: v, currency: v }),
  };
  const stored: StoredRequest[] = Object.values(approvals).map((r) => ({ channel: 'C0APPROVALS', ts: '1700000000.000100', request: r }));
  const pending: PendingLink = { siteId: 's-1', siteName: v, clientId: 1002, crmClientUrl: crmClientUrl(1002), since: 0, thread: null, reminded: false };
  const change = (c: UispChange) => changeNotice({ event: { uuid: v, entity: v, changeType: v, entityId: 1, eventName: v }, change: c }, { crmClientUrl });
  const removed: RemovalOutcome = { kind: 'removed', request: { clientId: 1002, record: 'site', keptId: v, duplicateId: `${v}-late` }, duplicate: { id: `${v}-late`, name: v }, kept: { id: v, name: v } };
  const refused: RemovalOutcome = { kind: 'refused', request: removed.request, refusal: { reason: 'kept-not-active', status: 3, statusLabel: v }, duplicate: { id: `${v}-late`, name: v }, kept: { id: v, name: v } };
  const removalFailed: RemovalOutcome = { kind: 'failed', request: removed.request, detail: v, mayHaveApplied: true, duplicate: { id: `${v}-late`, name: v }, kept: { id: v, name: v } };
  const siteNotice = lateDuplicateNotice(duplicate('site'), 'card', { crmClientUrl });
  const digest: Digest = {
    date: '2025-01-15',
    timeZone: 'America/Guyana',
    payments: { count: 2, byCurrency: [{ currency: v, count: 2, total: 20 }], byMethod: [{ method: v, currency: v, count: 2, total: 20 }] },
    awaitingLink: [{ siteId: 's-1', siteName: v, clientId: 1002 }],
    outages: { count: 2, downSeconds: 5400, customerMinutes: 150 },
    audit: {
      activations: { done: [{ permalink: PERMALINK, actor: v, actorVia: 'cli', summary: v, device: v, clientId: 1002 }], failed: [{ permalink: null, actor: 'U0AGENT', actorVia: 'slack', summary: '', device: v, clientId: null }] },
      suspensions: [{ permalink: PERMALINK, actor: v, actorVia: 'uisp', summary: v, serviceId: 201, clientId: 1002 }],
      lifts: [],
      lateDuplicates: [{ record: v, clientId: 1002, keptId: v, lateIds: [v] }],
      failedWebhooks: [{ uuid: v, event: v }],
    },
  };
  const audit = { action: 'activate' as const, targets: { device: v, clientId: 1002 }, result: v, ok: false, summary: v, permalink: PERMALINK };
  const sheet: SheetCheck = {
    rows: [
      { row: 1, line: 2, kind: 'plan', request, plan, confirm: { deletes: [{ ...service, id: 102, status: 6 }], move: plan.move }, alreadyDone: false },
      { row: 2, line: 3, kind: 'refused', request, error: failed.error },
      { row: 3, line: 4, kind: 'problem', request: null, problem: { code: 'invalid', problems: [{ column: v, problem: v }] } },
    ],
    totals: { rows: 3, toRun: 1, needConfirmation: 1, alreadyDone: 0, inError: 2 },
  };
  const auditLine = { action: v, result: v, ok: true, summary: v, ts: '1700000000.000100', permalink: PERMALINK };

  return {
    sheetForm: sheetForm(origin, v, v),
    'sheetForm, a problem with the file': sheetForm(origin, undefined, v, 'file'),
    sheetReading: sheetReading(v),
    sheetTemplateSending: sheetTemplateSending(),
    sheetTemplateSent: sheetTemplateSent(v),
    sheetTemplateFailed: sheetTemplateFailed(v),
    sheetChecking: sheetChecking(3),
    sheetCheckView: sheetCheckView(origin, '0b6c2f0e-8a3e-4d6a-9c1e-2f4b5a6c7d8e', sheet),
    'sheetCheckView, a row needing approval': sheetCheckView(origin, '0b6c2f0e-8a3e-4d6a-9c1e-2f4b5a6c7d8e', sheet, new Set([1])),
    sheetPlanSections: sheetPlanSections(sheet, new Set([1]), 10),
    sheetAskingApproval: sheetAskingApproval(),
    'approvalRequestMessage, sheet': approvalRequestMessage(approval({ kind: 'sheet', sheetId: '0b6c2f0e-8a3e-4d6a-9c1e-2f4b5a6c7d8e', check: sheet, approvalRows: [1] })),
    sheetStarted: sheetStarted(origin, 3),
    sheetNotRun: sheetNotRun('tampered'),
    sheetStopped: sheetStopped('U0AGENT', { sheetId: '0b6c2f0e-8a3e-4d6a-9c1e-2f4b5a6c7d8e', approvalId: '0b6c2f0e-8a3e-4d6a-9c1e-2f4b5a6c7d8e' }),
    sheetContinued: sheetContinued('U0AGENT', 3),
    sheetParent: sheetParent('U0AGENT', sheet.totals),
    'sheetParent, done': sheetParent('U0AGENT', sheet.totals, { done: 1, 'already-done': 0, failed: 1, refused: 1 }),
    sheetRowsReply: sheetRowsReply([{ row: 1, line: 2, request, outcome: 'failed', sentence: v }, { row: 2, line: 3, request }, { row: 3, line: 4, request: null, outcome: 'refused', sentence: v }]),
    // A mrkdwn sentence a view returns for a caller to place: shown here in a section of its own.
    'accessRefusalText': section(accessRefusalText({ allowed: false, action: 'suspend', needs: { groupIds: ['S0LEADS'], userIds: ['U0LEAD'] } })),
    'activationForm': activationForm({ origin, values: { device: v, firstName: v, lastName: v, email: v, phone: v, clientId: v }, problems: { device: v, firstName: v, clientId: v }, notice: v }),
    'activationChecking': activationChecking(request),
    'activationConfirm, reused client moved off its site': activationConfirm(origin, request, plan, v),
    'activationConfirm, new client, site of unknown owner': activationConfirm(origin, request, newClientPlan),
    'activationStarted': activationStarted(origin, request),
    ...Object.fromEntries(steps.map((step, i) => [`activationStep, ${i} ${step.step} ${step.status}`, activationStep(step)])),
    'activationParent, running': activationParent({ request, startedBy: 'U0AGENT' }),
    'activationParent, activated': activationParent({ request, startedBy: 'U0AGENT', result: activated }),
    'activationParent, already activated': activationParent({ request, startedBy: 'U0AGENT', result: { ...activated, outcome: 'already-activated' } }),
    'activationParent, failed': activationParent({ request, startedBy: 'U0AGENT', result: failed }),
    'activationFailure, several devices': activationFailure(request, 'U0AGENT', failed),
    'activationFailure, several clients': activationFailure(request, 'U0AGENT', refusedClient),
    'activationStopped': activationStopped(request, 'U0AGENT'),
    'manualLinkReminder': manualLinkReminder(activated),
    'manualLinkReminder, without a CRM link': manualLinkReminder({ ...activated, crmClientUrl: undefined }),
    sheetLinkReminders: sheetLinkReminders([{ place: { row: 1, line: 2 }, result: activated }, { place: { row: 2, line: 3 }, result: { ...activated, crmClientUrl: undefined } }]),
    ...Object.fromEntries(Object.entries(approvals).map(([kind, r]) => [`approvalRequestMessage, ${kind}`, approvalRequestMessage(r)])),
    'decidedRequestMessage': decidedRequestMessage(approvals.suspension, 'approved', 'U0LEAD'),
    'outcomeReply, activation': outcomeReply(approvals.activation, 'U0LEAD', { ok: true, sentence: `Activated ${v}: service #140, site "${v}", device ${v}.` }),
    'outcomeReply, failure quoting UISP': outcomeReply(approvals.payment, 'U0LEAD', { ok: false, sentence: `Could not read UISP again: ${v} Nothing was written.` }),
    'approvedRunStopped': approvedRunStopped(approvals.payment.requester, 'U0LEAD'),
    'approvalAskedAgain, asked': approvalAskedAgain(approvals.activation, 'U0AGENT', { asked: 'C0APPROVALS' }),
    'approvalAskedAgain, not posted': approvalAskedAgain(approvals.activation, 'U0AGENT', { problem: v }),
    'approvalNotPostedView': approvalNotPostedView('Activate subscriber', v),
    'approvalRequestedView': approvalRequestedView('Activate subscriber', approvals.activation, 'C0APPROVALS'),
    'pendingApprovalBlocks': pendingApprovalBlocks(stored, stored),
    'auditMessage, from Slack': auditMessage({ ...audit, actor: { via: 'slack', userId: 'U0AGENT' }, approvedBy: 'U0LEAD' }),
    'auditMessage, from the CLI': auditMessage({ ...audit, actor: { via: 'cli', username: v } }),
    'digestMessage': digestMessage(digest),
    'digestMessage, without the audit channel': digestMessage({ ...digest, audit: null }),
    ...Object.fromEntries((['client', 'service', 'site'] as const).map((record) => [`lateDuplicateNotice, ${record}`, lateDuplicateNotice(duplicate(record), 'event', { crmClientUrl })])),
    ...Object.fromEntries(
      [removed, refused, removalFailed].map((outcome) => [`removalLine, ${outcome.kind}`, { blocks: noticeAfterClick(siteNotice.blocks, outcome, removalLine(outcome, removalSentence(outcome), 'U0LEAD')) }]),
    ),
    'removalApprovalAsked, asked': { text: removalApprovalAsked({ record: 'client', duplicateId: 1009 }, { asked: 'C0APPROVALS' }) },
    'removalApprovalAsked, not posted': { text: removalApprovalAsked({ record: 'service', duplicateId: 109 }, { problem: v }) },
    'homeView': homeView({
      userId: 'U0AGENT',
      operations: { ok: true, value: { mine: [{ ...auditLine, actor: { via: 'cli', username: v } }], team: [{ ...auditLine, actor: { via: 'slack', userId: 'U0LEAD' } }] } },
      missingLinks: { ok: true, value: [{ siteId: 's-1', siteName: v, clientId: 1002, crmUrl: crmClientUrl(1002) }] },
      outages: { ok: true, value: { available: true, outages: [{ id: 'o-1', since: v, device: { id: 'dev-1', name: v, model: v, role: v, ip: v }, devicesDown: 2, site: { id: 's-1', name: v, kind: 'infrastructure' }, affected: [] }] } },
      approvals: { ok: true, value: { mine: stored, waiting: stored } },
    }),
    'homeView, parts that could not be read': homeView({ userId: 'U0AGENT', operations: { ok: false, problem: v }, missingLinks: { ok: false, problem: v }, outages: { ok: false, problem: v }, approvals: { ok: false, problem: v } }),
    'linkedReply': linkedReply({ kind: 'linked', link: pending, boundClientId: 1002 }),
    'linkedReply, linked to another client': linkedReply({ kind: 'linked', link: pending, boundClientId: 1003 }),
    'linkReminder': linkReminder(pending, 24),
    'clientCardMessage': clientCardMessage(card, () => v),
    'clientMatchesMessage': clientMatchesMessage(v, [card.client, { ...card.client, id: 1003, archived: true }]),
    'noClientMessage': noClientMessage(v, { firstName: v, lastName: v }),
    'deviceCardMessage': deviceCardMessage(deviceCard),
    'deviceMatchesMessage': deviceMatchesMessage(v, [line, { ...line, id: 'dev-2', online: true }], (d) => d.id),
    'noDeviceMessage': noDeviceMessage(v),
    'paymentsList': paymentsList({ summary: { query: { from: '2024-12-16', to: '2025-01-15' }, payments: [payment, { ...payment, id: 4999 }], totals: [{ currency: v, amount: 5, count: 2 }], pageTotals: [{ currency: v, amount: 5, count: 2 }], count: 40 }, clientNames: new Map([[1002, v]]), methodNames: new Map([[method.id, v]]) }),
    'paymentsList, of a client, none': paymentsList({ summary: { query: { from: '2024-12-16', to: '2025-01-15', clientId: 1002 }, payments: [], totals: [], pageTotals: [], count: 0 }, client: uispClient, clientNames: new Map(), methodNames: new Map() }),
    'paymentFilterForm': paymentFilterForm({ origin, values: { client: v, from: v, to: v }, problems: { client: v, from: v, to: v } }),
    'paymentsExported': paymentsExported({ count: 2, from: '2024-12-16', to: '2025-01-15', filename: v }),
    'paymentForm': paymentForm({ origin, methods: [method], values: { client: v, amount: v, note: v }, problems: { client: v, amount: v, method: v, note: v }, notice: v }),
    'paymentRecordedView': paymentRecordedView({ payment, client: uispClient, method }, origin),
    'paymentRecordedMessage': paymentRecordedMessage({ payment, client: uispClient, method }, 'U0AGENT'),
    'operationStopped': operationStopped(`this suspension of service #201`, `Look at client #1002 with /client before trying again.`),
    'suspensionStopped': suspensionStopped('unsuspend', 201, 1002),
    'suspensionForm, a client picked': suspensionForm({
      action: 'suspend',
      origin,
      reasons: [reason],
      client: { client: uispClient, services: [{ service: { ...uispService, status: 1 }, applies: 'suspend' }, { service: uispService, applies: 'unsuspend' }] },
      problems: { service: v, client: v, clientService: v, reason: v },
      notice: v,
      statusLabel,
    }),
    'suspensionForm, nothing applies': suspensionForm({ action: 'unsuspend', origin, reasons: 'loading', client: { client: uispClient, services: [{ service: uispService, applies: undefined }] }, problems: { clientService: v }, statusLabel }),
    'suspensionForm, no services': suspensionForm({ action: 'unsuspend', origin, reasons: 'loading', client: { client: uispClient, services: [] }, statusLabel }),
    'suspensionConfirm': suspensionConfirm('suspend', origin, { service: uispService, client: uispClient, reason }, statusLabel, v),
    'suspensionParent': suspensionParent({ action: 'suspend', actorId: 'U0AGENT', target: { service: uispService, client: uispClient, reason }, result: { ok: false, message: v, changed: v } }),
    'suspensionResultReply, done': suspensionResultReply('suspend', { ok: true, outcome: { kind: 'done', action: 'suspend', service: uispService, after: uispService, suspensionReason: reason } }, () => v),
    'suspensionResultReply, refused': suspensionResultReply('suspend', { ok: true, outcome: { kind: 'refused', action: 'suspend', service: uispService, reason: 'not-active', status: 3 } }, () => v),
    'suspensionResultReply, failed': suspensionResultReply('unsuspend', { ok: false, message: v, changed: v }, statusLabel),
    'threadNotPosted': threadNotPosted('C0SUPPORT', [v], suspensionResultReply('unsuspend', { ok: false, message: v, changed: v }, statusLabel)),
    'typeaheadOptions': typeaheadOptions({ query: v, suggestions: [{ label: v, value: '1002', detail: v }], complete: false }),
    'changeNotice, a service suspended': change({ kind: 'service-suspended', service: uispService, client: uispClient }),
    'changeNotice, a service ended, its client gone': change({ kind: 'service-ended', service: uispService, client: null }),
    'changeNotice, a payment by a suspended client': change({ kind: 'payment-added', payment, client: uispClient, suspendedServices: [uispService] }),
    'changeNotice, a client archived': change({ kind: 'client-archived', client: uispClient }),
    'webhookFailedNotice': webhookFailedNotice({ uuid: v, entity: v }),
    ...outageSurfaces(v),
  };
}

/** The outage thread's messages (src/views/outages.ts), every name in them hostile. */
function outageSurfaces(v: string): Record<string, unknown> {
  const customer = { clientId: 1001, name: v, siteId: 's-9', service: { id: 101, name: v, status: 1, statusLabel: v } };
  const outage: OutageInProgress = {
    id: 'o-1',
    since: '2026-11-28T14:02:00.000Z',
    device: { id: 'd-1', name: v, model: v, role: v, ip: v },
    devicesDown: 2,
    site: { id: 's-1', name: v, kind: 'infrastructure' },
    affected: Array.from({ length: 12 }, (_, i) => ({ ...customer, siteId: `s-${i}` })),
  };
  const { message, state } = outageParent('site:s-1@1', outage);
  const changed = { ...state, acknowledgedBy: 'U0LEAD', acknowledgedAt: 1, update: { by: 'U0LEAD', at: 2, note: v }, ended: { at: '2026-11-28T15:07:00.000Z', known: true } };
  return {
    'outageParent': message,
    'redrawnParent': { text: message.text, blocks: redrawnParent(message.blocks, changed) },
    'recoveredReply, in its thread': recoveredReply({ outage, end: '2026-11-28T15:07:00.000Z', endKnown: true }, true),
    'recoveredReply, in the channel': recoveredReply({ outage, end: '2026-11-28T15:07:00.000Z', endKnown: false }, false),
    'flappingMessage': flappingMessage({ outage, times: 3, downMs: 140_000, windowMs: 3_600_000 }),
    'acknowledgedReply': acknowledgedReply('U0LEAD'),
    'updateReply': updateReply('U0LEAD', v),
    'updateModal': updateModal('{"channel":"C0OUTAGES","ts":"1.0"}'),
    'everyAffected': everyAffected(outage),
  };
}
