/**
 * Gathers what one day's digest is built from: UISP's payments of that day in ISP_TIMEZONE, the sites
 * still awaiting the manual CRM link (asked among the endpoint sites not bound to the CRM, not read from
 * the whole site list: ../network.ts), the day's outages (../outages.ts `during`), and (when the front end can read it) the audit channel from the
 * day's start until now. No Slack here: the audit channel comes through `AuditSource`, which the Slack
 * side implements (src/slack/audit.ts).
 */
import { awaitsLink, markedClientId } from '../sites.js';
import { dayBoundsIn, daysBefore } from '../dates.js';
import type { CrmClient } from '../uisp/crm-client.js';
import type { NetworkReads } from '../network.js';
import type { OutageService } from '../outages.js';
import type { Payment, PaymentMethod } from '../uisp/schemas.js';
import { buildDigest, type Digest, type TrailMessage } from './build.js';

/** SubOps' own messages in the audit channel posted between two instants, in any order. */
export type AuditSource = (from: Date, to: Date) => AsyncIterable<TrailMessage>;

export interface DigestReadDeps {
  crm: Pick<CrmClient, 'payments' | 'listPaymentMethods'>;
  network: Pick<NetworkReads, 'sitesNotBound'>;
  /** The day's outages: how many, how long, the customer-minutes lost (none from an NMS without GET /outages). */
  outages: Pick<OutageService, 'during'>;
  timeZone: string;
  /** Undefined when the audit channel cannot be read: the digest's audit parts are null. */
  audit: AuditSource | undefined;
  now?: () => Date;
}

/** The digest of a calendar day (YYYY-MM-DD in `timeZone`). UISP and Slack failures are thrown. */
export async function readDigest({ crm, network, outages, timeZone, audit, now = () => new Date() }: DigestReadDeps, date: string): Promise<Digest> {
  const day = dayBoundsIn(date, timeZone);
  const [payments, methods, sites, dayOutages, trail] = await Promise.all([
    paymentsAround(crm, date),
    // Without the names, methods are shown by id: not worth failing the digest for.
    crm.listPaymentMethods().catch((): PaymentMethod[] => []),
    network.sitesNotBound(),
    outages.during(day, now()),
    audit ? collect(audit(day.start, now())) : Promise.resolve(null),
  ]);
  const awaitingLink = sites.filter((site) => awaitsLink(site)).map((site) => ({ siteId: site.id, siteName: site.identification.name, clientId: markedClientId(site)! }));
  return buildDigest({ date, timeZone, day, payments, methods, awaitingLink, outages: dayOutages, trail });
}

/**
 * The CRM filters payments by the calendar date of createdDate in its own zone, which need not be
 * ISP_TIMEZONE: a day either side covers every offset, and buildDigest keeps the day's instants.
 */
async function paymentsAround(crm: DigestReadDeps['crm'], date: string): Promise<Payment[]> {
  return collect(crm.payments({ createdDateFrom: daysBefore(date, 1), createdDateTo: daysBefore(date, -1), direction: 'ASC' }));
}

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}
