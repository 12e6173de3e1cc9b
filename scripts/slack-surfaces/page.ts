/**
 * docs/slack-surfaces.md: what an agent sees in Slack, built by the same view functions the bot uses
 * (src/views/*) from fixed data (./fixtures.ts), each surface as the terminal demo renders it
 * (src/playground/render-text.ts, modal-form.ts) and as a Block Kit Builder link that opens the real
 * blocks. Pure: the same code always gives the same page, which test/docs/slack-surfaces.test.ts checks.
 */
import { readModal, modalLines } from '../../src/playground/modal-form.js';
import { renderMessage, type DisplayNames } from '../../src/playground/render-text.js';
import { activationConfirm, activationForm } from '../../src/views/activation.js';
import { activationFailure, activationParent, activationStep, manualLinkReminder } from '../../src/views/activation-progress.js';
import { approvalRequestMessage } from '../../src/views/approvals.js';
import { digestMessage } from '../../src/views/digest.js';
import { helpMessage } from '../../src/views/help.js';
import { homeView } from '../../src/views/home.js';
import type { ModalView, SlackMessage } from '../../src/views/kit.js';
import { clientCardMessage, deviceCardMessage } from '../../src/views/lookups.js';
import { paymentsList } from '../../src/views/payments.js';
import { endedBeforeSentence } from '../../src/render/sheet.js';
import { sheetCheckView, sheetContinued, sheetForm, sheetLinkReminders, sheetParent, sheetRowsReply, sheetStopped } from '../../src/views/sheet.js';
import { suspensionConfirm, suspensionParent, suspensionResultReply } from '../../src/views/suspension.js';
import { changeNotice } from '../../src/views/uisp-changes.js';
import { acknowledgedReply, outageParent, recoveredReply, redrawnParent, updateReply } from '../../src/views/outages.js';
import * as f from './fixtures.js';

export const SURFACES_COMMAND = 'npm run docs:surfaces';

const names: DisplayNames = { user: (id) => f.DISPLAY_NAMES.users[id], channel: (id) => f.DISPLAY_NAMES.channels[id] };

/** What Block Kit Builder opens: a message's blocks, a modal, or a Home tab. */
type Preview = { blocks: unknown } | ModalView | { type: 'home'; blocks: unknown };

/**
 * The Block Kit Builder URL that opens this payload (its JSON in the fragment). Parentheses are
 * encoded too, which encodeURIComponent leaves alone, so the URL can stand in a markdown link.
 */
export function blockKitBuilderUrl(payload: Preview): string {
  const fragment = encodeURIComponent(JSON.stringify(payload)).replace(/\(/g, '%28').replace(/\)/g, '%29');
  return `https://app.slack.com/block-kit-builder/#${fragment}`;
}

interface Surface {
  title: string;
  /** When the agent sees it, in one or two sentences. */
  when: string;
  /** The surface as text, one line each. */
  text: string[];
  /** One or more payloads, each with a label, for Block Kit Builder. */
  previews: { label: string; payload: Preview }[];
}

const messageText = (message: SlackMessage, prefix = '') => renderMessage(message, names).map((line) => `${prefix}${line}`.trimEnd());
const modalText = (view: ModalView) => {
  const form = readModal(view as unknown as Record<string, unknown>, names);
  return modalLines(form, (field) => field.initial);
};
const blocksOf = (message: SlackMessage) => ({ blocks: message.blocks });

/** A thread: the parent message, then each reply indented under it. */
function threadText(parent: SlackMessage, replies: SlackMessage[]): string[] {
  return [...messageText(parent), ...replies.flatMap((reply) => messageText(reply).map((line, i) => `  ${i === 0 ? '↳ ' : '  '}${line}`.trimEnd()))];
}

function surfaces(): Surface[] {
  const activationForm_ = activationForm({ origin: f.origin, values: { device: f.newCustomer.device, firstName: f.newCustomer.firstName, lastName: f.newCustomer.lastName } });
  const confirm = activationConfirm(f.origin, f.priyaRequest, f.priyaPlan);
  const parent = activationParent({ request: f.newCustomer, startedBy: f.AGENT, result: f.newCustomerActivated });
  const steps = f.newCustomerSteps.map(activationStep);
  const reminder = manualLinkReminder(f.newCustomerActivated);
  const failedParent = activationParent({ request: f.newCustomer, startedBy: f.AGENT, result: f.newCustomerFailed });
  const failure = activationFailure(f.newCustomer, f.AGENT, f.newCustomerFailed);
  const sheetFormShown = sheetForm(f.origin);
  const sheetChecked = sheetCheckView(f.origin, '0b6c2f0e-8a3e-4d6a-9c1e-2f4b5a6c7d8e', f.sheetCheck);
  const sheetDone = sheetParent(f.AGENT, f.sheetCheck.totals, { done: 2, 'already-done': 0, failed: 0, refused: 1 });
  const sheetRows = sheetRowsReply(f.sheetRowsDone);
  const sheetLinks = sheetLinkReminders([{ place: { row: 2, line: 3 }, result: f.newCustomerActivated }]);
  const sheetStoppedMessage = sheetStopped(f.AGENT, { sheetId: '0b6c2f0e-8a3e-4d6a-9c1e-2f4b5a6c7d8e' });
  // Rows 1 and 3 ended before the stop; Continue ran row 2.
  const sheetRowsContinued = f.sheetRowsDone.map((row) => (row.outcome && row.row !== 2 ? { ...row, sentence: endedBeforeSentence(row.outcome) } : row));
  const suspendTarget = { service: f.marcusService, client: f.marcus, reason: f.customerRequest };
  const suspendConfirm = suspensionConfirm('suspend', f.origin, suspendTarget, f.statusLabel);
  const suspended = { ok: true as const, outcome: { kind: 'done' as const, action: 'suspend' as const, service: f.marcusService, after: { ...f.marcusService, status: 3, suspensionReasonId: 2 }, suspensionReason: f.customerRequest } };
  const suspendParent = suspensionParent({ action: 'suspend', actorId: f.AGENT, target: suspendTarget, result: suspended });
  const suspendReply = suspensionResultReply('suspend', suspended, f.statusLabel);
  const notice = changeNotice(f.paymentNotice, { crmClientUrl: f.crmClientUrl });
  const outage = outageParent('site:diamond@1', f.diamondOutage);
  const outageEnd = '2026-11-28T15:07:00.000Z';
  const outageState = { ...outage.state, acknowledgedBy: f.LEAD, acknowledgedAt: Date.parse('2026-11-28T14:06:00.000Z'), update: { by: f.LEAD, at: Date.parse('2026-11-28T14:40:00.000Z'), note: 'Crew on site: replacing the AP' } };
  const outageOngoing = { text: outage.message.text, blocks: redrawnParent(outage.message.blocks, outageState) };
  const outageBack = { text: outage.message.text, blocks: redrawnParent(outage.message.blocks, { ...outageState, ended: { at: outageEnd, known: true } }) };
  const outageReplies = [acknowledgedReply(f.LEAD), updateReply(f.LEAD, 'Crew on site: replacing the AP'), recoveredReply({ outage: f.diamondOutage, end: outageEnd, endKnown: true }, true)];
  const listing = paymentsList({ summary: f.marcusPaymentSummary, clientNames: f.clientNames, methodNames: f.methodNames, client: f.marcus });
  const clientCard = clientCardMessage(f.raviCard, (id) => f.methodNames.get(id));
  const deviceCard = deviceCardMessage(f.powerBeamCard);
  const approval = approvalRequestMessage(f.approvalRequest);
  // Row 1 deletes Priya's Quoted service, which needs approval.
  const sheetAsking = sheetCheckView(f.origin, '0b6c2f0e-8a3e-4d6a-9c1e-2f4b5a6c7d8e', f.sheetCheck, new Set([1]));
  const sheetApproval = approvalRequestMessage(f.sheetApprovalRequest);
  const home = homeView({
    userId: f.AGENT,
    operations: { ok: true, value: f.homeOperations },
    missingLinks: { ok: true, value: f.homeMissingLinks },
    outages: { ok: true, value: { available: true, outages: f.homeOutages } },
    now: f.homeNow,
  });
  const digest = digestMessage(f.digest);
  const help = helpMessage();

  return [
    {
      title: 'Activation form',
      when: '`/activate 10.20.1.88 ada lovelace` opens it, filled in from the text. The device and client fields search UISP as you type.',
      text: modalText(activationForm_),
      previews: [{ label: 'the form', payload: activationForm_ }],
    },
    {
      title: 'Activation confirmation',
      when: 'Shown before anything is written when the activation deletes a Quoted or Obsolete service (here Priya Ramnarine’s Quoted service #102) or moves a device off another client’s site.',
      text: modalText(confirm),
      previews: [{ label: 'the confirmation', payload: confirm }],
    },
    {
      title: 'Activation progress thread',
      when: 'Posted in the channel where the agent ran `/activate`: the parent message is updated to the final status, each step is a reply, and the last reply is the manual CRM–NMS link reminder.',
      text: threadText(parent, [...steps, reminder]),
      previews: [
        { label: 'the parent message', payload: blocksOf(parent) },
        { label: 'the manual-link reminder', payload: blocksOf(reminder) },
      ],
    },
    {
      title: 'Failed activation, with Retry',
      when: 'When a step fails, the thread’s last reply says what was and was not done, with **Retry**: it re-reads UISP and does only what is missing.',
      text: threadText(failedParent, [steps[0]!, steps[1]!, failure]),
      previews: [{ label: 'the failure reply', payload: blocksOf(failure) }],
    },
    {
      title: 'Install sheet: the form and the check',
      when: '`/activate sheet` (or **Install sheet** on the activation form or the Home tab) opens the form: a CSV file or pasted lines; **Template** sends the template CSV to your messages with SubOps. **Check** reads UISP (nothing is written) and lists each row’s plan or problem, and what Run deletes or moves.',
      text: [...modalText(sheetFormShown), '', ...modalText(sheetChecked)],
      previews: [
        { label: 'the form', payload: sheetFormShown },
        { label: 'the check', payload: sheetChecked },
      ],
    },
    {
      title: 'Install sheet thread',
      when: 'After **Run**, in the channel of the command: the parent gives the totals, then the counts; one reply lists every row, updated as rows end (here while row 2 runs, then at the end); then one reply collects the manual CRM–NMS links the rows left, each watched (“Linked in CRM” comes in this thread).',
      text: [...threadText(sheetParent(f.AGENT, f.sheetCheck.totals), [sheetRowsReply(f.sheetRowsRunning)]), '', ...threadText(sheetDone, [sheetRows, sheetLinks])],
      previews: [
        { label: 'the parent, done', payload: blocksOf(sheetDone) },
        { label: 'the rows reply', payload: blocksOf(sheetRows) },
        { label: 'the manual links', payload: blocksOf(sheetLinks) },
      ],
    },
    {
      title: 'Install sheet: SubOps stopped, Continue',
      when: 'When the process running a sheet was killed, restarted or stalled, the next SubOps process says so in the sheet’s thread once its lease has run out, with **Continue**. Continue runs the rows that did not end (and those that failed) in the same thread, each reading UISP first; its rows reply marks the rows that ended before the stop.',
      text: threadText(sheetParent(f.AGENT, f.sheetCheck.totals), [sheetRowsReply(f.sheetRowsRunning), sheetStoppedMessage, sheetContinued(f.AGENT, 1), sheetRowsReply(sheetRowsContinued)]),
      previews: [
        { label: 'the stop message', payload: blocksOf(sheetStoppedMessage) },
        { label: 'the rows reply after Continue', payload: blocksOf(sheetRowsReply(sheetRowsContinued)) },
      ],
    },
    {
      title: 'Suspension confirmation and result',
      when: 'The second step of `/suspend 101`: the service, its current status and the reason. After **Suspend**, the result is posted in the channel with a thread.',
      text: [...modalText(suspendConfirm), '', ...threadText(suspendParent, [suspendReply])],
      previews: [
        { label: 'the confirmation', payload: suspendConfirm },
        { label: 'the result message', payload: blocksOf(suspendParent) },
      ],
    },
    {
      title: 'Payment notice (a change made in UISP)',
      when: 'Posted in the audit channel when a payment is recorded in UISP outside SubOps (UISP webhooks on). A client with a suspended service gets an **Unsuspend** button per service.',
      text: messageText(notice),
      previews: [{ label: 'the notice', payload: blocksOf(notice) }],
    },
    {
      title: 'Outage thread',
      when: 'Posted in the outages channel (`OUTAGES_CHANNEL_ID`, else the audit channel) once a device has been down `OUTAGE_MIN_MINUTES` (2): what is down, where, since when, and every customer below it (the first ten, then **Show all**). **Acknowledge** (once) and **Add update** write on the parent and in the thread; when the device is back the thread says so and the parent shows ✅ with the duration.',
      text: threadText(outageBack, outageReplies),
      previews: [
        { label: 'the outage as first posted', payload: blocksOf(outage.message) },
        { label: 'the outage, acknowledged, with an update', payload: blocksOf(outageOngoing) },
        { label: 'the outage, back up', payload: blocksOf(outageBack) },
      ],
    },
    {
      title: 'Payments listing',
      when: '`/payments #1001`, shown only to the agent: 20 a page, totals per currency for the page and the whole range.',
      text: messageText(listing),
      previews: [{ label: 'the listing', payload: blocksOf(listing) }],
    },
    {
      title: 'Client card',
      when: '`/client 1005`, shown only to the agent, here while the AP of the tower above the client is down. The buttons open the forms that apply, pre-filled.',
      text: messageText(clientCard),
      previews: [{ label: 'the card', payload: blocksOf(clientCard) }],
    },
    {
      title: 'Device card',
      when: '`/device 10.20.1.88`, shown only to the agent: a discovered device, offered for activation.',
      text: messageText(deviceCard),
      previews: [{ label: 'the card', payload: blocksOf(deviceCard) }],
    },
    {
      title: 'Approval request',
      when: 'Posted in the approvals channel when `APPROVAL_REQUIRED_FOR` names the change (here `delete-service`); nothing is written until an approver other than the requester presses **Approve**.',
      text: messageText(approval),
      previews: [{ label: 'the request', payload: blocksOf(approval) }],
    },
    {
      title: 'Install sheet: one approval',
      when: 'When a row of the sheet deletes or moves what `APPROVAL_REQUIRED_FOR` names: the check marks it and its button becomes **Ask approval**; one request for the whole sheet, showing the same plan, goes to the approvals channel. On **Approve** every row runs, as the requester’s, in one thread of the channel the sheet came from (see Install sheet thread).',
      text: [...modalText(sheetAsking), '', ...messageText(sheetApproval)],
      previews: [
        { label: 'the check', payload: sheetAsking },
        { label: 'the request', payload: blocksOf(sheetApproval) },
      ],
    },
    {
      title: 'App Home',
      when: 'SubOps’ **Home** tab, read again each time it is opened, here with an outage in progress (no such section when none is). Dates are shown in UTC here; Slack shows them in the reader’s time zone.',
      text: messageText({ text: '', blocks: home.blocks as SlackMessage['blocks'] }),
      previews: [{ label: 'the Home tab', payload: { type: 'home', blocks: home.blocks } }],
    },
    {
      title: 'Daily digest',
      when: 'Posted every day at `DIGEST_TIME` in `DIGEST_CHANNEL_ID`: the previous day in `ISP_TIMEZONE` (its outages: how many, their time down within the day and the customer-minutes lost).',
      text: messageText(digest),
      previews: [{ label: 'the digest', payload: blocksOf(digest) }],
    },
    {
      title: 'Help',
      when: '`/subops help`, shown only to the agent.',
      text: messageText(help),
      previews: [{ label: 'the help', payload: blocksOf(help) }],
    },
  ];
}

const slug = (title: string) =>
  title
    .toLowerCase()
    .replace(/[^\p{L}\p{N} -]/gu, '')
    .replace(/ /g, '-');

/** The whole page, as committed in docs/slack-surfaces.md. */
export function slackSurfacesPage(): string {
  const all = surfaces();
  const lines = [
    '# What an agent sees in Slack',
    '',
    `<!-- Generated by scripts/slack-surfaces.ts from src/views/*: do not edit; run \`${SURFACES_COMMAND}\`. -->`,
    '',
    'Each surface below is built by the view functions the bot uses, from fixed sample data (the',
    'simulator’s customers), and shown as text the way the terminal demo (`npm run demo`) prints it:',
    'buttons in brackets, `▾` for menus, thread replies indented under their parent. The link under each',
    'opens the real Block Kit in Slack’s Block Kit Builder. What each command does is in',
    '[Using SubOps in Slack](slack.md).',
    '',
    ...all.map((s) => `- [${s.title}](#${slug(s.title)})`),
    '',
  ];
  for (const surface of all) {
    lines.push(`## ${surface.title}`, '', surface.when, '', '```text', ...surface.text, '```', '');
    lines.push(`Open ${surface.previews.map((p) => `[${p.label}](${blockKitBuilderUrl(p.payload)})`).join(', ')} in Block Kit Builder.`, '');
  }
  return lines.join('\n');
}
