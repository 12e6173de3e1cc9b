/** `/subops help`: every command, what it does and how to call it. */
import { escapeEntities } from '../slack/escape.js';
import { context, header, message, section, type SlackMessage } from './kit.js';

const COMMAND_HELP: { usage: string; text: string }[] = [
  {
    usage: '/activate [device] [first name] [last name]',
    text: 'Opens the activation form (pre-filled from the arguments, e.g. `/activate 10.0.0.5 jane doe`). Device is an IP, MAC or NMS name; email, phone and an existing CRM client id are optional. If the run would delete a Quoted or Obsolete service, or move the device off another client’s site, you confirm first; an AP, router or other infrastructure is never activated, and a client id must match the name. Progress is posted in a thread here; a failed run can be retried safely.',
  },
  { usage: '/activate sheet', text: 'Opens the install sheet form: a CSV file or its lines pasted (header included; Template sends the template). SubOps checks every row (nothing is written), lists each row’s plan or problem and what it deletes or moves; Run activates the rows, in one thread here.' },
  { usage: '/suspend [service id]', text: 'Suspends a CRM service: enter its id, or a client id and pick one of its services, then a reason. You confirm before anything changes.' },
  { usage: '/unsuspend [service id]', text: 'Lifts a suspension (through the CRM’s cancel-suspend), with the same form and confirmation.' },
  { usage: '/payments [client id or name] [from YYYY-MM-DD [to YYYY-MM-DD]]', text: 'Shows payments (the last 30 days, or all of one client’s, or the dates you give), 20 a page with Previous and Next, with totals per currency for the page and the whole range. *Filter…* changes the client and dates; *Export CSV* sends the whole range as a CSV file to your DM with SubOps. Only you see the listing.' },
  { usage: '/payments add [client id] [amount]', text: 'Opens the record-payment form: client, amount, method and note.' },
  { usage: '/client <name | id | #id>', text: 'Shows a client’s card: balance, services with their state, plan and price, the last payment, the NMS site and its devices. Buttons suspend or unsuspend a service, record a payment or activate, each opening its form pre-filled. Several matches are listed to pick from. Only you see the answer.' },
  { usage: '/device <ip | mac | name>', text: 'Shows a device: model, status, signal, uptime, IP and MAC, authorization, its site and that site’s client. A discovered device can be activated for a customer from there.' },
  { usage: '/subops help', text: 'This help. `/activate help` shows it too.' },
];

export function helpMessage(): SlackMessage {
  return message('SubOps commands', [
    header('SubOps commands'),
    // `<name | id>` would be read as a Slack link token: the usage's angle brackets are entities.
    ...COMMAND_HELP.map((c) => section(`\`${escapeEntities(c.usage)}\`\n${c.text}`)),
    context('Every change is recorded in the audit channel. After an activation, link the client to the NMS site in the CRM web interface: SubOps reminds you with the link.'),
  ]);
}

/** An ephemeral one-liner (refusals, bad arguments, failures); `text` must already be mrkdwn-safe. */
export function notice(text: string): SlackMessage {
  return message(text, [section(text)]);
}

export const ACCESS_REFUSED = ':no_entry: You are not allowed to run SubOps commands. Ask a SubOps admin to add you to the allowed users or user group. Nothing was run.';
