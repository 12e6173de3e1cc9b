/**
 * Every view and message builder, fed hostile and oversized data, produces Block Kit that passes the
 * JSON Schema and Slack's limits, and never lets user or UISP text become a mention or a link.
 */
import { describe, expect, it } from 'vitest';
import { activationChecking, activationConfirm, activationForm, activationStarted } from '../../src/views/activation.js';
import { activationFailure, activationParent, activationStep, manualLinkReminder, retryStarted } from '../../src/views/activation-progress.js';
import { auditMessage } from '../../src/views/audit.js';
import { ACCESS_REFUSED, helpMessage, notice } from '../../src/views/help.js';
import type { ActivationResult } from '../../src/services/activation/types.js';
import type { Block } from '../../src/views/kit.js';
import { LIMITS } from '../../src/views/limits.js';
import { paymentForm, paymentRecordedMessage, paymentRecordedView, paymentRecording, paymentsList } from '../../src/views/payments.js';
import type { UispChange } from '../../src/services/events/changes.js';
import type { PendingLink } from '../../src/services/events/link-watch.js';
import { linkedReply, linkReminder } from '../../src/views/link-watch.js';
import { changeNotice } from '../../src/views/uisp-changes.js';
import { suspensionChecking, suspensionConfirm, suspensionForm, suspensionParent, suspensionResultReply, suspensionSubmitted } from '../../src/views/suspension.js';
import { expectValidMessage, expectValidModal } from './block-kit.js';
import * as f from './fixtures.js';
import { sheetCheckView, sheetForm, sheetParent, sheetRowsReply } from '../../src/views/sheet.js';
import type { SheetCheck } from '../../src/services/sheets/types.js';
import type { ApprovalRequest } from '../../src/slack/metadata.js';
import { approvalRequestedView, approvalRequestMessage, decidedRequestMessage } from '../../src/views/approvals.js';

/** A full sheet (200 rows, the most one may hold), every row with a long hostile plan, half of them to confirm. */
const fullSheet: SheetCheck = {
  rows: Array.from({ length: 200 }, (_, i) => ({
    row: i + 1,
    line: i + 2,
    kind: 'plan' as const,
    request: { ...f.request, device: `${f.HOSTILE} ${i}` },
    plan: f.plan,
    confirm: i % 2 ? { deletes: [], move: null } : null,
    alreadyDone: false,
  })),
  totals: { rows: 200, toRun: 200, needConfirmation: 100, alreadyDone: 0, inError: 0 },
};
const fullSheetApprovalRows = fullSheet.rows.filter((row) => row.kind === 'plan' && row.confirm).map((row) => row.row);
/** Its approval request: every row's delete and a move off a long hostile site each, for the plan the approver sees. */
const fullSheetApproval: ApprovalRequest = {
  id: 'apr-1',
  requester: 'U0AGENT',
  origin: f.origin,
  requestedAt: 0,
  expiresAt: 3_600_000,
  reasons: [{ kind: 'delete-service', serviceIds: Array.from({ length: 200 }, (_, i) => 1000 + i) }, ...Array.from({ length: 100 }, (_, i) => ({ kind: 'move-device' as const, fromSite: `${f.HOSTILE} ${f.LONG} ${i}` }))],
  operation: { kind: 'sheet', sheetId: '0b6c2f0e-8a3e-4d6a-9c1e-2f4b5a6c7d8e', check: fullSheet, approvalRows: fullSheetApprovalRows },
};
const fullSheetRows = fullSheet.rows.map(({ row, line, request }, i) => ({ row, line, request, ...(i % 3 ? { outcome: 'failed' as const, sentence: `${f.HOSTILE} ${f.LONG}` } : {}) }));

const statusLabel = (status: number) => (status === 1 ? 'Active' : status === 3 ? 'Suspended' : `status ${status}`);

/** Every mrkdwn string (and the message fallback text): where Slack would parse `<…>`. */
function mrkdwnTexts(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(mrkdwnTexts);
  if (!value || typeof value !== 'object') return [];
  const record = value as Record<string, unknown>;
  const own = record.type === 'mrkdwn' && typeof record.text === 'string' ? [record.text] : [];
  return [...own, ...Object.values(record).flatMap(mrkdwnTexts)];
}

function expectNoInjectedMarkup(built: unknown): void {
  const texts = [...mrkdwnTexts(built), ...(built && typeof (built as { text?: unknown }).text === 'string' && (built as { type?: string }).type !== 'modal' ? [(built as { text: string }).text] : [])];
  expect(texts.length).toBeGreaterThan(0);
  for (const text of texts) {
    expect(text).not.toContain('<!channel>');
    expect(text).not.toContain('<@U999>');
    expect(text).not.toContain('<https://evil');
  }
}

/** When the confirmed plan's reads started: carried by the confirmation, so the run can tell how old it is. */

const modals = {
  'sheet form with a problem': sheetForm(f.origin, f.HOSTILE, f.HOSTILE),
  'sheet check, 200 rows': sheetCheckView(f.origin, '0b6c2f0e-8a3e-4d6a-9c1e-2f4b5a6c7d8e', fullSheet),
  'sheet check asking approval, 200 rows': sheetCheckView(f.origin, '0b6c2f0e-8a3e-4d6a-9c1e-2f4b5a6c7d8e', fullSheet, new Set(fullSheetApprovalRows)),
  'sheet approval requested': approvalRequestedView('Install sheet', fullSheetApproval, 'C0APPROVALS'),
  'activation form': activationForm({ origin: f.origin, values: { device: f.HOSTILE, firstName: f.LONG } }),
  'activation form with problems': activationForm({ origin: f.origin, values: { device: 'x' }, problems: { device: f.HOSTILE, clientId: f.LONG.repeat(10) }, notice: f.HOSTILE }),
  'activation checking': activationChecking(f.request),
  'activation confirm': activationConfirm(f.origin, f.request, f.plan, f.HOSTILE),
  'activation confirm, device move': activationConfirm(f.origin, f.request, { ...f.plan, move: { site: { id: 's-9', name: f.HOSTILE }, client: { id: 1007, name: f.HOSTILE } } }),
  'activation confirm, move off an unowned site': activationConfirm(f.origin, f.request, { ...f.plan, service: { ...f.plan.service, delete: [] } as typeof f.plan.service, move: { site: { id: 's-9', name: f.LONG }, client: { id: null, name: null } } }),
  'activation started': activationStarted(f.origin, f.request),
  'suspend form, loading': suspensionForm({ action: 'suspend', origin: f.origin, reasons: 'loading', statusLabel }),
  'suspend form, client picked': suspensionForm({
    action: 'suspend',
    origin: f.origin,
    reasons: f.reasons,
    client: { client: f.client, services: f.services.map((service) => ({ service, applies: 'suspend' as const })) },
    values: { serviceId: '12', clientId: '1002', clientServiceId: '201', reasonId: '1' },
    problems: { service: f.HOSTILE, client: f.HOSTILE, clientService: f.HOSTILE, reason: f.HOSTILE },
    statusLabel,
  }),
  'suspend form, services in every state': suspensionForm({
    action: 'suspend',
    origin: f.origin,
    reasons: f.reasons,
    client: { client: f.client, services: f.services.map((service, i) => ({ service, applies: (['suspend', 'unsuspend', undefined] as const)[i % 3] })) },
    statusLabel,
  }),
  'suspend form, picked service no longer offered': suspensionForm({
    action: 'suspend',
    origin: f.origin,
    reasons: f.reasons,
    client: { client: f.client, services: [{ service: f.services[0]!, applies: 'unsuspend' }] },
    problems: { clientService: f.HOSTILE },
    statusLabel,
  }),
  'suspend form, reasons unavailable': suspensionForm({ action: 'suspend', origin: f.origin, reasons: 'unavailable', notice: f.HOSTILE, statusLabel }),
  'unsuspend form, client without services': suspensionForm({ action: 'unsuspend', origin: f.origin, reasons: 'loading', client: { client: f.client, services: [] }, statusLabel }),
  'suspend checking': suspensionChecking('suspend'),
  'suspend confirm': suspensionConfirm('suspend', f.origin, { service: f.services[0]!, client: f.client, reason: f.reasons[0] }, statusLabel),
  'unsuspend confirm': suspensionConfirm('unsuspend', f.origin, { service: f.services[0]!, client: f.client }, statusLabel),
  'unsuspend offered instead': suspensionConfirm('unsuspend', f.origin, { service: f.services[0]!, client: f.client }, statusLabel, f.HOSTILE),
  'unsuspend submitted': suspensionSubmitted('unsuspend', f.origin),
  'payment form, loading': paymentForm({ origin: f.origin }),
  'payment form': paymentForm({ origin: f.origin, methods: f.methods, values: { client: '1002', amount: '10', method: f.methods[1]!.id, note: f.HOSTILE }, problems: { amount: f.HOSTILE }, notice: f.HOSTILE }),
  'payment recording': paymentRecording(),
  'payment recorded': paymentRecordedView({ payment: f.payments(1)[0]!, client: f.client, method: f.methods[1] }, f.origin),
};

const crmClientUrl = (id: number) => `https://uisp.example.net/crm/client/${id}`;
const uispChange = (change: UispChange) => changeNotice({ event: { uuid: 'u-1', entity: 'service', changeType: 'suspend', entityId: 1, eventName: f.HOSTILE }, change }, { crmClientUrl });
const pendingLink: PendingLink = { siteId: 's-1', siteName: `${f.HOSTILE} ${f.LONG}`, clientId: 1002, crmClientUrl: crmClientUrl(1002), since: 0, thread: null, reminded: false };

const messages = {
  'sheet parent, running': sheetParent('U0AGENT', fullSheet.totals),
  'sheet parent, done': sheetParent('U0AGENT', fullSheet.totals, { done: 1, 'already-done': 2, failed: 3, refused: 4 }),
  'sheet rows, 200 long rows': sheetRowsReply(fullSheetRows),
  'sheet approval request, 200 rows': approvalRequestMessage(fullSheetApproval),
  'sheet approval request, decided': decidedRequestMessage(fullSheetApproval, 'approved', 'U0LEAD'),
  'uisp change: a service suspended': uispChange({ kind: 'service-suspended', service: f.services[0]!, client: f.client }),
  'uisp change: a service ended, its client gone': uispChange({ kind: 'service-ended', service: f.services[0]!, client: null }),
  'uisp change: a payment by a client with 130 suspended services': uispChange({ kind: 'payment-added', payment: f.payments(1)[0]!, client: f.client, suspendedServices: f.services }),
  'uisp change: a client archived': uispChange({ kind: 'client-archived', client: f.client }),
  'link: linked': linkedReply({ kind: 'linked', link: pendingLink, boundClientId: 1002 }),
  'link: linked to another client': linkedReply({ kind: 'linked', link: pendingLink, boundClientId: 1003 }),
  'link: reminder': linkReminder(pendingLink, 24),
  'activation parent, running': activationParent({ request: f.request, startedBy: 'U0AGENT' }),
  'activation parent, activated': activationParent({ request: f.request, startedBy: 'U0AGENT', result: f.activated }),
  'activation parent, already': activationParent({ request: f.request, startedBy: 'U0AGENT', result: f.alreadyActivated }),
  'activation parent, failed': activationParent({ request: f.request, startedBy: 'U0AGENT', result: f.failed }),
  ...Object.fromEntries(f.steps.map((step) => [`step ${step.step} ${step.status}`, activationStep(step)])),
  'activation failure': activationFailure(f.request, 'U0AGENT', f.failed),
  'manual link reminder': manualLinkReminder(f.activated),
  'retry started': retryStarted('U0AGENT'),
  'suspension parent, running': suspensionParent({ action: 'suspend', actorId: 'U0AGENT', target: { service: f.services[0]!, client: f.client, reason: f.reasons[0] } }),
  'suspension parent, failed': suspensionParent({ action: 'unsuspend', actorId: 'U0AGENT', target: { service: f.services[0]!, client: f.client }, result: { ok: false, message: f.HOSTILE, changed: 'Nothing was changed.' } }),
  'suspension result': suspensionResultReply('suspend', { ok: true, outcome: { kind: 'done', action: 'suspend', service: f.services[0]!, after: { ...f.services[0]!, status: 3 }, suspensionReason: f.reasons[0]! } }, statusLabel),
  'suspension already': suspensionResultReply('suspend', { ok: true, outcome: { kind: 'already', action: 'suspend', service: f.services[0]! } }, statusLabel),
  'suspension refused': suspensionResultReply('suspend', { ok: true, outcome: { kind: 'refused', action: 'suspend', service: f.services[0]!, reason: 'not-active', status: 6 } }, statusLabel),
  'unsuspension refused, another suspension now': suspensionResultReply('unsuspend', { ok: true, outcome: { kind: 'refused', action: 'unsuspend', service: f.services[0]!, reason: 'changed', status: 3 } }, statusLabel),
  'suspension failure': suspensionResultReply('unsuspend', { ok: false, message: f.HOSTILE, changed: f.HOSTILE }, statusLabel),
  'payments, 60': paymentsList({ summary: f.summary(60), clientNames: f.clientNames, methodNames: f.methodNames }),
  'payments of a client': paymentsList({ summary: f.summary(3), client: f.client, clientNames: f.clientNames, methodNames: f.methodNames }),
  'payments, none': paymentsList({ summary: { ...f.summary(0), totals: [], count: 0 }, clientNames: new Map(), methodNames: new Map() }),
  'payment recorded message': paymentRecordedMessage({ payment: f.payments(1)[0]!, client: f.client, method: f.methods[1] }, 'U0AGENT'),
  help: helpMessage(),
  refusal: notice(ACCESS_REFUSED),
  'audit, from the CLI': auditMessage({ actor: { via: 'cli', username: f.HOSTILE }, action: 'suspend', targets: { serviceId: 101 }, result: 'suspended', ok: true, summary: f.HOSTILE }),
  audit: auditMessage({ actor: { via: 'slack', userId: 'U0AGENT' }, action: 'activate', targets: { device: f.HOSTILE, clientId: 1002 }, result: 'failed', ok: false, summary: f.HOSTILE, permalink: 'https://x.slack.com/archives/C1/p1?a=1&b=2' }),
};

describe('modals', () => {
  it.each(Object.entries(modals))('%s passes the modal schema and limits', (_name, view) => {
    expectValidModal(view);
    expect(view.title.text.length).toBeLessThanOrEqual(LIMITS.viewTitle);
    expect(view.blocks.length).toBeLessThanOrEqual(LIMITS.modalBlocks);
    expect((view.private_metadata ?? '').length).toBeLessThanOrEqual(LIMITS.privateMetadata);
  });

  it.each(Object.entries(modals).filter(([name]) => !/checking|recording|started|submitted|loading$/.test(name)))('%s escapes user and UISP text', (_name, view) => {
    expectNoInjectedMarkup(view);
  });

  it('a move confirmation names the site and its client (or says it has none) and carries exactly that move', () => {
    const owned = activationConfirm(f.origin, f.request, { ...f.plan, move: { site: { id: 's-9', name: 'Leon Hope' }, client: { id: 1007, name: 'Leon Hope' } } });
    expect(JSON.stringify(owned)).toContain("is in use on another client's site.* It is authorized on site *Leon Hope* of client #1007 Leon Hope.");
    expect(owned.submit).toMatchObject({ text: 'Delete, move, activate' });
    expect(JSON.parse(owned.private_metadata!)).toMatchObject({ confirmedMove: { deviceId: 'dev-1', siteId: 's-9' } });
    const unowned = activationConfirm(f.origin, f.request, { ...f.plan, service: { action: 'reuse', service: { id: 1, status: 1, statusLabel: 'Active', name: null } }, move: { site: { id: 's-9', name: 'Old house' }, client: { id: null, name: null } } });
    expect(JSON.stringify(unowned)).toContain('is in use on a customer site of unknown owner.* It is authorized on site *Old house* (no CRM client is bound to it).');
    expect(JSON.stringify(unowned)).not.toContain('Will delete');
    expect(unowned.submit).toMatchObject({ text: 'Move and activate' });
  });

  it('the confirmation lists every service it will delete and everything it will create', () => {
    const text = JSON.stringify(activationConfirm(f.origin, f.request, f.plan));
    for (const service of f.plan.service.action === 'create' ? f.plan.service.delete : []) expect(text).toContain(`service #${service.id}`);
    expect(text).toContain('Reuse client #1002');
    expect(text).toContain('Create an Active service: plan period 37, 10,000.00/month from 2025-01-15');
    expect(text).toContain('Create NMS site');
    expect(text).toContain('Authorize LBE');
  });

  it('each suspension confirmation asks its own question', () => {
    expect(JSON.stringify(modals['suspend confirm'])).toContain('Suspend this service?');
    expect(JSON.stringify(modals['unsuspend confirm'])).toContain('Lift the suspension of this service?');
  });

  it('a client’s services: only those the action applies to can be picked; the others show their state and their action', () => {
    const view = modals['suspend form, services in every state'];
    const select = (view.blocks as Block[]).flatMap((b) => (b.type === 'input' && b.block_id === 'clientService' && b.element.type === 'static_select' ? [b.element] : []))[0]!;
    expect(select.options!.map((o) => o.value)).toEqual(f.services.filter((_s, i) => i % 3 === 0).map((s) => String(s.id)));
    const text = JSON.stringify(view);
    expect(text).toContain('use `/unsuspend 201`');
    expect(text).toContain('(Suspended): neither suspend nor unsuspend applies');
  });

  it('a picked service that is no longer offered keeps its problem on the form', () => {
    const view = modals['suspend form, picked service no longer offered'];
    expect(JSON.stringify(view.blocks)).toContain('"text":":warning: &lt;!channel&gt; &amp; &lt;@U999&gt;');
  });

  it('option lists are capped at Slack’s 100 and option texts at 75 characters', () => {
    const view = modals['suspend form, client picked'];
    const selects = (view.blocks as Block[]).flatMap((b) => (b.type === 'input' && b.element.type === 'static_select' ? [b.element] : []));
    expect(selects).toHaveLength(2);
    for (const select of selects) {
      expect(select.options!.length).toBe(100);
      for (const option of select.options!) expect(option.text.text.length).toBeLessThanOrEqual(75);
    }
  });
});

describe('messages', () => {
  it.each(Object.entries(messages))('%s passes the Block Kit schema and the 50-block limit', (_name, message) => {
    expectValidMessage(message);
  });

  it.each(Object.entries(messages).filter(([name]) => !/^(help|refusal|retry started|payments, none)$/.test(name)))('%s escapes user and UISP text', (_name, message) => {
    expectNoInjectedMarkup(message);
  });

  it('help shows each usage with its angle brackets, not as a Slack link', () => {
    const text = JSON.stringify(messages.help);
    expect(text).toContain('`/client &lt;name | id | #id&gt;`');
    expect(text).toContain('`/device &lt;ip | mac | name&gt;`');
    expect(text).not.toMatch(/<(name|ip) \|/);
  });

  it("a failed activation's summary ends its UISP sentence before pointing at the thread", () => {
    const sentence = activationParent({ request: f.request, startedBy: 'U0AGENT', result: { ...f.failed, error: { code: 'uisp-error', problem: 'request', detail: 'The CRM answered 503', mayHaveApplied: true, beforeWrites: false } } as ActivationResult });
    expect(JSON.stringify(sentence)).not.toMatch(/[^.!?] See the thread/);
  });

  it('the payments listing shows the newest payments and every currency total', () => {
    const text = JSON.stringify(messages['payments, 60']);
    expect(text).toContain('`2025-01-01`  #1000 Bartholomew');
    expect(text).toContain('*GYD 10,000.50*  &lt;!channel&gt;');
    expect(text).toContain('GYD 480,000.00');
    expect(text).toContain('USD 120,000.50');
    expect(text).toContain('Showing the newest 60 of 1060');
    // No row was clipped: the oldest shown payment is still there.
    expect(text).toContain('10,029.50');
  });

  it('a currency code from UISP is escaped like any other UISP text', () => {
    const base = f.summary(1);
    const hostile = { ...base, payments: base.payments.map((p) => ({ ...p, currencyCode: '<!here>' })), totals: [{ currency: '<!here>', amount: 5, count: 1 }] };
    const text = JSON.stringify(paymentsList({ summary: hostile, clientNames: f.clientNames, methodNames: f.methodNames }));
    expect(text).toContain('&lt;!here&gt; 5.00');
    expect(text).not.toContain('<!here>');
  });

  it('the failure report keeps the Retry button with the whole request in its value', () => {
    const message = messages['activation failure'];
    const actions = message.blocks.find((b) => b.type === 'actions');
    expect(actions).toBeDefined();
    const retry = actions!.type === 'actions' ? actions!.elements[0] : undefined;
    expect(JSON.parse((retry as { value: string }).value)).toEqual({ request: f.request, startedBy: 'U0AGENT' });
  });

  it('the reminder links the CRM client page', () => {
    expect(messages['manual link reminder'].text).toContain('<https://uisp.example.net/crm/client/1002?a=1&amp;b=2|#1002 &lt;!channel&gt;');
  });
});

describe('an install sheet of 200 rows', () => {
  it('its approval request names the rows that run, and the rows in error apart', () => {
    const withErrors = { ...fullSheetApproval, operation: { ...fullSheetApproval.operation, check: { ...fullSheet, totals: { ...fullSheet.totals, toRun: 197, inError: 3 } } } };
    expect(JSON.stringify(approvalRequestMessage(withErrors).blocks)).toContain('asks to run an install sheet of *197 rows* (and 3 in error, which do not run)');
  });

  it('shows every row: the check in the modal, the rows reply in one message, none left out', () => {
    for (const surface of [modals['sheet check, 200 rows'], messages['sheet rows, 200 long rows']]) {
      const text = JSON.stringify(surface.blocks);
      expect(text).toContain('row 200 (line 201)');
      expect(text).not.toContain('more not shown');
    }
  });
});
