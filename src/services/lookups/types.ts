/**
 * The cards a lookup returns: plain data, no Slack or terminal knowledge. The Slack views, the CLI's
 * text output and its `--json` objects all render these same objects.
 */
import type { LateDuplicate } from '../activation/types.js';
import type { OutageNote } from '../outages.js';
import type { SuspensionAction } from '../suspensions.js';
import type { Payment } from '../uisp/schemas.js';

/** A client as a short list shows it: what tells two clients of the same name apart. */
export interface ClientMatch {
  id: number;
  name: string;
  archived: boolean;
  /** Street and city, as the CRM has them; null when neither is set. */
  address: string | null;
  email: string | null;
  phone: string | null;
  /** The CRM's custom id, e.g. DW-1001. */
  userIdent: string | null;
}

export interface AccountSummary {
  /** Positive: a credit; negative: a debt (UISP's accountBalance). Null when the CRM does not say. */
  balance: number | null;
  /** What the client owes on unpaid invoices (accountOutstanding). */
  outstanding: number | null;
  currency: string | null;
}

export interface ServiceLine {
  id: number;
  name: string | null;
  /** The plan's name as the CRM reports it (servicePlanName), or null. */
  plan: string | null;
  status: number;
  /** The status named under the configured SERVICE_STATUS_* table (Active, Suspended, Quoted…). */
  statusLabel: string;
  /** The suspension reason's name when the service is suspended and the CRM names one. */
  suspensionReason: string | null;
  price: number | null;
  currency: string | null;
  /** Billing period in months (1 = monthly), or null. */
  periodMonths: number | null;
  /** The one of suspend / unsuspend that applies to this service now, or null. */
  action: SuspensionAction | null;
}

export interface DeviceLine {
  /** The NMS id. */
  id: string;
  name: string;
  model: string | null;
  ip: string | null;
  mac: string | null;
  /** The NMS status (active, disconnected, unauthorized…), or null. */
  status: string | null;
  /** True when NMS reports the device active. */
  online: boolean;
  /** Signal in dBm, for devices that report one (stations). */
  signal: number | null;
  uptimeSeconds: number | null;
  /** When NMS last heard from the device (ISO 8601), or null. */
  lastSeen: string | null;
  authorized: boolean;
  /** The NMS list it is in. */
  list: 'authorized' | 'discovered';
  role: string | null;
  siteId: string | null;
}

export interface SiteLine {
  id: string;
  name: string;
  /** How the site is known to be the client's: the CRM–NMS link, or only SubOps' note marker (the manual link is still missing). */
  linkedBy: 'crm' | 'marker';
  devices: DeviceLine[];
}

/** Which parts of a card could not be read; the rest is shown. */
export type CardGap = 'services' | 'payments' | 'nms' | 'outages';

export interface ClientCard {
  client: ClientMatch;
  crmUrl: string;
  account: AccountSummary;
  services: ServiceLine[];
  /** The newest payment, or null when there is none. */
  lastPayment: Payment | null;
  sites: SiteLine[];
  /** The outages in progress affecting the client's sites (none also when the NMS has no outages, or they could not be read: a gap). */
  outages: OutageNote[];
  /** What could not be read, with UISP's problem; the card shows the rest. */
  gaps: { part: CardGap; problem: string }[];
  /** Late duplicates among what the card read: two SubOps-made Active services or sites (none when a part could not be read). */
  duplicates: LateDuplicate[];
  /** The buttons that apply: activation prefill, when the client has no Active or Suspended service. */
  activate: ActivationPrefill | null;
}

/** What an Activate button fills in: the client's name as the activation form wants it, its id, a device. */
export interface ActivationPrefill {
  firstName?: string;
  lastName?: string;
  clientId?: number;
  device?: string;
}

export interface SiteOwnerLine {
  id: number;
  /** Null when the CRM could not be read or has no such client. */
  name: string | null;
  archived: boolean;
}

export interface DeviceCard {
  device: DeviceLine;
  site: { id: string; name: string; type: string | null } | null;
  /** The CRM client the device's site belongs to (CRM link or SubOps' marker), or null. */
  client: SiteOwnerLine | null;
  /** The outages in progress affecting the device: itself or its site down, or an infrastructure site above its site. */
  outages: OutageNote[];
  /** Set for a discovered (not yet authorized) device: the activation form filled with it. */
  activate: ActivationPrefill | null;
  gaps: { part: CardGap; problem: string }[];
}

export type ClientLookup =
  | { kind: 'card'; card: ClientCard }
  | { kind: 'matches'; query: string; matches: ClientMatch[] }
  | { kind: 'none'; query: string; activate: ActivationPrefill | null };

export type DeviceLookup =
  | { kind: 'card'; card: DeviceCard }
  | { kind: 'matches'; query: string; matches: DeviceLine[] }
  | { kind: 'none'; query: string };

/** An activation whose NMS site is not yet linked by hand to its CRM client. */
export interface MissingLink {
  siteId: string;
  siteName: string;
  clientId: number;
  /** The client's page in the CRM web interface, where the link is made. */
  crmUrl: string;
}
