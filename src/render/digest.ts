/**
 * The daily digest's words, for both front ends: the title, the quiet-day line, and each part as a
 * heading with its lines. The Slack view (src/views/digest.ts) escapes them and links each line's
 * thread; the CLI prints them with the link after the line.
 */
import type { CurrencyTotal, Digest, DigestActivation, DigestActivity, DigestSuspension, MethodTotal } from '../services/digest/build.js';
import { isQuiet } from '../services/digest/build.js';
import { formatMoney } from '../services/money.js';
import { formatDuration } from '../services/lookups/format.js';

export interface DigestLine {
  text: string;
  /** Who did it, for a front end to name (a Slack mention, a CLI login). */
  by?: Pick<DigestActivity, 'actor' | 'actorVia'>;
  permalink?: string | null;
}

export interface DigestPart {
  heading: string;
  lines: DigestLine[];
}

export function digestTitle(digest: Pick<Digest, 'date'>): string {
  return `Daily digest for ${digest.date}`;
}

/** The whole digest of a day with nothing to tell. */
export function quietDayLine(digest: Pick<Digest, 'date'>): string {
  return `${digestTitle(digest)}: a quiet day. No activations, suspensions, lifted suspensions or payments, no site awaiting its CRM link, nothing for a person to look at.`;
}

/** Said when the digest was built without the audit channel (no AUDIT_CHANNEL_ID, or the CLI without SLACK_BOT_TOKEN). */
export const AUDIT_PARTS_MISSING =
  'Not included: activations, suspensions, lifted suspensions, late duplicates and failed UISP events, which are read from the audit channel (SLACK_BOT_TOKEN and AUDIT_CHANNEL_ID). Shown: payments and sites awaiting the CRM link, from UISP.';

/** The parts with something to tell, in the order they are shown; none on a quiet day. */
export function digestParts(digest: Digest): DigestPart[] {
  if (isQuiet(digest)) return [];
  const { audit, payments, awaitingLink, outages } = digest;
  const parts: DigestPart[] = [];
  const add = (heading: string, lines: DigestLine[]) => {
    if (lines.length) parts.push({ heading: `${heading} (${lines.length})`, lines });
  };
  if (audit) {
    add('Activations done', audit.activations.done.map(activationLine));
    add('Activations failed and not retried since', audit.activations.failed.map(activationLine));
    add('Suspensions', audit.suspensions.map(suspensionLine));
    add('Suspensions lifted', audit.lifts.map(suspensionLine));
  }
  if (payments.count) {
    parts.push({
      heading: `Payments (${payments.count})`,
      lines: [...payments.byCurrency.map((total) => ({ text: `Total: ${totalText(total)}` })), ...payments.byMethod.map((total) => ({ text: `${methodName(total)}: ${totalText(total)}` }))],
    });
  }
  if (outages?.count) {
    parts.push({ heading: `Outages (${outages.count})`, lines: [{ text: `${formatDuration(outages.downSeconds)} down in all, ${plural(outages.customerMinutes, 'customer-minute')} lost` }] });
  }
  add('Sites awaiting the manual CRM link', awaitingLink.map((site) => ({ text: `NMS site "${site.siteName}" of client #${site.clientId}` })));
  if (audit) {
    add(
      'Needs a person',
      [
        ...audit.lateDuplicates.map((found) => ({ text: `Late duplicate ${found.record}${found.lateIds.length > 1 ? 's' : ''} ${found.lateIds.map((id) => `#${id}`).join(', ')} of client #${found.clientId} (kept #${found.keptId}): see its notice in the audit channel` })),
        ...audit.failedWebhooks.map((failed) => ({ text: `UISP event ${failed.uuid}${failed.event === 'unknown' ? '' : ` (${failed.event})`} could not be processed: check the change in UISP` })),
      ],
    );
  }
  return parts;
}

function activationLine(activation: DigestActivation): DigestLine {
  return { text: activation.summary || `Device ${activation.device}${activation.clientId === null ? '' : `, client #${activation.clientId}`}`, by: activation, permalink: activation.permalink };
}

function suspensionLine(suspension: DigestSuspension): DigestLine {
  return { text: `Service #${suspension.serviceId}${suspension.clientId === null ? '' : ` of client #${suspension.clientId}`}`, by: suspension, permalink: suspension.permalink };
}

const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? '' : 's'}`;

function totalText(total: CurrencyTotal): string {
  return `${plural(total.count, 'payment')}, ${formatMoney(total.total, total.currency)}`;
}

const methodName = (total: MethodTotal) => total.method ?? 'No method';
