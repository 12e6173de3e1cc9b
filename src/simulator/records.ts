/**
 * The UISP records the simulator stores and serves, as zod schemas. Shapes follow the CRM API Blueprint
 * (ClientReadOnly, ServiceReadOnly, PaymentReadOnly, TariffReadOnly, ...) and the NMS Swagger
 * (DeviceStatusOverview, Site). A data file may leave out any field with a default: parsing fills in
 * UISP's value, so the live state always holds complete records. Unknown fields are kept as they are.
 *
 * Fields derived from other collections (a service's plan name, a device's site reference, ...) are filled
 * in by the `complete*` functions, which both the data loader and the route handlers use.
 */
import { z } from 'zod';

/** UISP's date-time format, e.g. 2016-09-12T00:00:00+0000 (the simulator keeps everything in UTC). */
export function uispDateTime(date: Date): string {
  return `${date.toISOString().slice(0, 19)}+0000`;
}

/** An ISO 8601 date-time with its offset, as the CRM documents date fields (2026-11-22T00:00:00-0400). */
const ZONED_DATE_TIME = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})(:\d{2})?(?:\.\d+)?(Z|[+-]\d{2}:?\d{2})$/;

/**
 * A date field: accepts YYYY-MM-DD or an ISO 8601 date-time, stores UISP's format. A date-time keeps
 * its wall clock and offset (the calendar date the client meant); a bare date is midnight UTC.
 */
export const UispDate = z
  .string()
  .refine((value) => /^\d{4}-\d{2}-\d{2}/.test(value) && !Number.isNaN(Date.parse(value)), 'This value is not a valid date.')
  .transform((value) => {
    const zoned = ZONED_DATE_TIME.exec(value);
    if (!zoned) return uispDateTime(new Date(value));
    const [, date, time, seconds = ':00', offset] = zoned;
    return `${date}T${time}${seconds}${offset === 'Z' ? '+0000' : offset!.replace(':', '')}`;
  });

const text = z.string().nullable().default(null);
const number = z.number().nullable().default(null);
const id = z.number().int().positive();
/** NMS and CRM cross-references are strings in NMS records ("ucrmId": "135"); data files may use numbers. */
const stringId = z.union([z.string().min(1), z.number()]).transform(String);

/** A new copy of a default each time (a plain `[]` without structuredClone: millions are made at 30,000 customers). */
function fresh(value: object): () => unknown {
  return Array.isArray(value) && value.length === 0 ? () => [] : () => structuredClone(value);
}

/** Fields the simulator only carries: each defaults to UISP's value when absent. */
function carried<T extends Record<string, unknown>>(defaults: T): { [K in keyof T]: z.ZodDefault<z.ZodUnknown> } {
  return Object.fromEntries(
    Object.entries(defaults).map(([key, value]) => [key, z.unknown().default(typeof value === 'object' && value !== null ? fresh(value) : value)]),
  ) as { [K in keyof T]: z.ZodDefault<z.ZodUnknown> };
}

// ---------- CRM ----------

export const ContactRecordSchema = z.looseObject({
  /** Assigned by completeClient when absent. */
  id: id.optional(),
  clientId: id.optional(),
  email: text,
  phone: text,
  name: text,
  isBilling: z.boolean().default(true),
  isContact: z.boolean().default(true),
  types: z.array(z.unknown()).default(() => []),
});

export const ClientRecordSchema = z.looseObject({
  id,
  userIdent: text,
  clientType: z.union([z.literal(1), z.literal(2)]).default(1),
  isLead: z.boolean().default(false),
  isArchived: z.boolean().default(false),
  firstName: text,
  lastName: text,
  companyName: text,
  street1: text,
  street2: text,
  city: text,
  zipCode: text,
  fullAddress: text,
  countryId: z.number().int().nullable().default(null),
  note: text,
  registrationDate: UispDate.default(() => uispDateTime(new Date())),
  contacts: z.array(ContactRecordSchema).default(() => []),
  tags: z.array(z.looseObject({ id, name: z.string(), colorBackground: text, colorText: text })).default(() => []),
  /** Filled from the organization by completeClient when absent. */
  currencyCode: text,
  organizationName: text,
  organizationId: id.default(1),
  ...carried({
    previousIsp: null,
    companyRegistrationNumber: null,
    companyTaxId: null,
    companyWebsite: null,
    companyContactFirstName: null,
    companyContactLastName: null,
    stateId: null,
    invoiceStreet1: null,
    invoiceStreet2: null,
    invoiceCity: null,
    invoiceStateId: null,
    invoiceCountryId: null,
    invoiceZipCode: null,
    invoiceAddressSameAsContact: true,
    sendInvoiceByPost: null,
    invoiceMaturityDays: null,
    stopServiceDue: null,
    stopServiceDueDays: null,
    tax1Id: null,
    tax2Id: null,
    tax3Id: null,
    username: null,
    avatarColor: '#2196F3',
    addressGpsLat: null,
    addressGpsLon: null,
    generateProformaInvoices: null,
    referral: null,
    isActive: false,
    attributes: [],
    accountBalance: 0,
    accountCredit: 0,
    accountOutstanding: 0,
    bankAccounts: [],
    invitationEmailSentDate: null,
    usesProforma: false,
    hasOverdueInvoice: false,
    hasOutage: false,
    hasServiceWithoutDevices: false,
    leadConvertedAt: null,
    hasPaymentSubscription: false,
    hasAutopayCreditCard: false,
  }),
});
export type ClientRecord = z.output<typeof ClientRecordSchema>;

const SuspensionPeriodSchema = z.looseObject({ id, startDate: UispDate, endDate: UispDate.nullable().default(null) });

export const ServiceRecordSchema = z.looseObject({
  id,
  clientId: id,
  status: z.number().int().min(0),
  servicePlanPeriodId: id,
  activeFrom: UispDate,
  invoicingStart: UispDate,
  activeTo: UispDate.nullable().default(null),
  /** Default to the plan's name and the plan period's price (completeService). */
  name: text,
  price: number,
  note: text,
  invoiceLabel: text,
  contractId: text,
  currencyCode: text,
  unmsClientSiteId: text,
  suspensionReasonId: id.nullable().default(null),
  suspensionPeriods: z.array(SuspensionPeriodSchema).default(() => []),
  ...carried({
    prepaid: false,
    invoicingPeriodType: 2,
    invoicingPeriodStartDay: 1,
    nextInvoicingDayAdjustment: 0,
    invoicingProratedSeparately: true,
    invoicingSeparately: false,
    sendEmailsAutomatically: null,
    useCreditAutomatically: true,
    fullAddress: null,
    street1: null,
    street2: null,
    city: null,
    countryId: null,
    stateId: null,
    zipCode: null,
    addressGpsLat: null,
    addressGpsLon: null,
    contractLengthType: 1,
    minimumContractLengthMonths: null,
    contractEndDate: null,
    discountType: 0,
    discountValue: null,
    discountInvoiceLabel: null,
    discountFrom: null,
    discountTo: null,
    tax1Id: null,
    tax2Id: null,
    tax3Id: null,
    fccBlockId: null,
    servicePlanGroupId: null,
    hasOutage: false,
    unmsClientSiteStatus: null,
    lastInvoicedDate: null,
    attributes: [],
    serviceChangeRequestId: null,
    setupFeePrice: null,
    earlyTerminationFeePrice: null,
    downloadSpeedOverride: null,
    uploadSpeedOverride: null,
    trafficShapingOverrideEnd: null,
    trafficShapingOverrideEnabled: false,
    surcharges: [],
  }),
});
export type ServiceRecord = z.output<typeof ServiceRecordSchema>;

export const SuspensionReasonRecordSchema = z.looseObject({ id, name: z.string().min(1) });
export type SuspensionReasonRecord = z.output<typeof SuspensionReasonRecordSchema>;

const PlanPeriodSchema = z.looseObject({
  id,
  period: z.union([z.literal(1), z.literal(3), z.literal(6), z.literal(12), z.literal(24)]),
  price: number,
  enabled: z.boolean().default(false),
});
export type PlanPeriodRecord = z.output<typeof PlanPeriodSchema>;

export const ServicePlanRecordSchema = z.looseObject({
  id,
  name: z.string().min(1),
  servicePlanType: z.enum(['Internet', 'General']).default('Internet'),
  downloadSpeed: number,
  uploadSpeed: number,
  periods: z.array(PlanPeriodSchema).default(() => []),
  ...carried({
    organizationId: 1,
    invoiceLabel: null,
    downloadBurst: null,
    uploadBurst: null,
    dataUsageLimit: null,
    downloadSpeedLimited: null,
    uploadSpeedLimited: null,
    aggregation: null,
    taxable: false,
    amountExemptFromTaxation: null,
    setupFee: null,
    earlyTerminationFee: null,
    minimumContractLengthMonths: null,
    public: true,
    prepaid: false,
    prepaidConfiguration: null,
    defaultServicePlanGroupId: null,
    archived: false,
    servicePlanGroups: [],
  }),
});
export type ServicePlanRecord = z.output<typeof ServicePlanRecordSchema>;

export const PaymentMethodRecordSchema = z.looseObject({
  id: z.string().min(1),
  name: z.string().min(1),
  visible: z.boolean().default(true),
  sort: z.number().int().default(0),
  isSystem: z.boolean().default(false),
});
export type PaymentMethodRecord = z.output<typeof PaymentMethodRecordSchema>;

export const PaymentRecordSchema = z.looseObject({
  id,
  clientId: id.nullable(),
  methodId: text,
  createdDate: UispDate,
  amount: z.number(),
  /** Default to the client's currency and to the amount (no invoices to cover) in completePayment. */
  currencyCode: text,
  creditAmount: number,
  note: text,
  checkNumber: text,
  ...carried({
    receiptSentDate: null,
    paymentCovers: [],
    attributes: [],
    providerName: null,
    providerPaymentId: null,
    providerPaymentTime: null,
    userId: null,
  }),
});
export type PaymentRecord = z.output<typeof PaymentRecordSchema>;

/**
 * InvoiceReadOnly with the fields SubOps reads: the client, the status (InvoiceStatus 0 draft … 5 processed
 * proforma) and the items, each naming the service it bills (InvoiceItemReadOnly.serviceId) or none. The
 * simulator creates no invoices on its own: a data file or a test gives them.
 */
const InvoiceItemRecordSchema = z.looseObject({
  id: id.optional(),
  serviceId: id.nullable().default(null),
  type: z.enum(['service', 'fee', 'product', 'surcharge', 'other']).default('service'),
  label: text,
  price: number,
  quantity: z.number().default(1),
  total: z.number().default(0),
  ...carried({ serviceSurchargeId: null, productId: null, feeId: null, discountPrice: null, discountQuantity: null, discountTotal: null, unit: null }),
});

export const InvoiceRecordSchema = z.looseObject({
  id,
  clientId: id,
  number: text,
  status: z.number().int().min(0).max(5).default(1),
  createdDate: UispDate.default(() => uispDateTime(new Date())),
  currencyCode: text,
  items: z.array(InvoiceItemRecordSchema).default(() => []),
  total: z.number().default(0),
  ...carried({ dueDate: null, amountPaid: 0, amountToPay: 0, proforma: false, uncollectible: false, notes: null, adminNotes: null }),
});
export type InvoiceRecord = z.output<typeof InvoiceRecordSchema>;

// ---------- NMS ----------

const SiteStatus = z.enum(['active', 'disconnected', 'inactive', 'unknown']);
const DeviceStatus = z.enum([
  'active',
  'connecting',
  'discovered',
  'inactive',
  'disabled',
  'disconnected',
  'unauthorized',
  'proposed',
  'unknown',
  'unplaced',
  'custom',
  'maintenance',
]);
/** A reference to a site by id; completeSite/completeDevice fill in its name, status, type and parent. */
const SiteLink = z.looseObject({ id: z.string().min(1) });

export const SiteRecordSchema = z.looseObject({
  id: z.string().min(1),
  identification: z.looseObject({
    id: z.string().optional(),
    name: z.string().min(1).max(100),
    type: z.enum(['site', 'endpoint']).default('site'),
    status: SiteStatus.default('active'),
    parent: SiteLink.nullable().default(null),
    suspended: z.boolean().default(false),
    updated: z.string().default(() => new Date().toISOString()),
  }),
  description: z
    .looseObject({
      address: text,
      note: text,
      contact: z.looseObject({ name: text, phone: text, email: text }).prefault({}),
      location: z.looseObject({ latitude: z.number(), longitude: z.number() }).nullable().default(null),
      height: number,
      elevation: number,
      ucrmId: stringId.nullable().default(null),
      regulatoryDomain: z.string().default('GY'),
      ...carried({ endpoints: [], deviceCount: 0, deviceOutageCount: 0, deviceListStatus: 'active', ipAddresses: [], sla: null }),
    })
    .prefault({}),
  ucrm: z
    .looseObject({
      client: z.looseObject({ id: stringId, name: z.string(), isLead: z.boolean().default(false) }).nullable().default(null),
      service: z.unknown().default(null),
    })
    .nullable()
    .default(null),
  ...carried({
    notifications: { type: 'system', users: [] },
    qos: { enabled: false, propagation: 'all', downloadSpeed: 0, downloadBurstSize: 0, uploadSpeed: 0, uploadBurstSize: 0, aggregation: 1 },
    lastSpeedReport: null,
    isMisconfigured: false,
  }),
});
export type SiteRecord = z.output<typeof SiteRecordSchema>;

export const DeviceRecordSchema = z.looseObject({
  identification: z.looseObject({
    id: z.string().min(1),
    name: z.string().min(1),
    /** Default to the name (completeDevice). */
    hostname: text,
    displayName: text,
    mac: text,
    ip: text,
    model: text,
    modelName: text,
    type: text,
    role: text,
    category: text,
    firmwareVersion: text,
    serialNumber: text,
    vendor: z.string().default('Ubiquiti'),
    vendorName: z.string().default('Ubiquiti Inc.'),
    authorized: z.boolean(),
    site: SiteLink.nullable().default(null),
    /** Defaults to active when authorized, unauthorized otherwise (completeDevice). */
    status: DeviceStatus.optional(),
    started: text,
    updated: z.string().default(() => new Date().toISOString()),
  }),
  ipAddress: z.string().min(1),
  enabled: z.boolean().default(true),
  mode: text,
  overview: z
    .looseObject({
      status: DeviceStatus.optional(),
      cpu: number,
      ram: number,
      uptime: number,
      signal: number,
      frequency: number,
      stationsCount: number,
      lastSeen: text,
      createdAt: text,
    })
    .prefault({}),
  ...carried({
    meta: { alias: null, customIpAddress: null, failedMessageDecryption: false, maintenance: false, restartTimestamp: null, firmwareCompatibility: 'compatible', note: null },
    firmware: null,
    upgrade: null,
    location: null,
    uplinkDevice: null,
    attributes: null,
    features: null,
    discovery: null,
    latestBackup: null,
  }),
});
export type DeviceRecord = z.output<typeof DeviceRecordSchema>;

/** An NMS outage (./outages.ts): a device down from `start` until `end`. */
export const OutageRecordSchema = z.object({
  id: z.string().min(1),
  deviceId: z.string().min(1),
  type: z.enum(['outage', 'unreachable']).default('outage'),
  /** ISO 8601. */
  start: z.string().min(1),
  /** ISO 8601; null while the device is still down. */
  end: z.string().nullable().default(null),
});
export type OutageRecord = z.output<typeof OutageRecordSchema>;

// ---------- derived fields ----------

interface Organization {
  currencyCode: string;
  name?: string | undefined;
}

/** The highest id in use plus one (ids start at `first`). */
export function nextId(ids: Iterable<number>, first = 1): number {
  let max = first - 1;
  for (const value of ids) max = Math.max(max, value);
  return max + 1;
}

/** Contact ids and client ids on contacts, and the organization's currency and name. */
export function completeClient(client: ClientRecord, organization: Organization, nextContactId: () => number): ClientRecord {
  for (const contact of client.contacts) {
    contact.id ??= nextContactId();
    contact.clientId = client.id;
  }
  client.currencyCode ??= organization.currencyCode;
  client.organizationName ??= organization.name ?? null;
  return client;
}

/** Plan-derived fields, as UISP fills them from the chosen plan period. */
export function completeService(service: ServiceRecord, plan: ServicePlanRecord, period: PlanPeriodRecord, client: ClientRecord): ServiceRecord {
  service.name ??= plan.name;
  service.price ??= period.price;
  service.currencyCode ??= client.currencyCode;
  return Object.assign(service, {
    servicePlanId: plan.id,
    servicePlanName: plan.name,
    servicePlanPrice: period.price,
    servicePlanPeriod: period.period,
    servicePlanType: plan.servicePlanType,
    downloadSpeed: plan.downloadSpeed,
    uploadSpeed: plan.uploadSpeed,
    hasIndividualPrice: service.price !== period.price,
    totalPrice: service.price,
  });
}

export function completePayment(payment: PaymentRecord, currencyCode: string): PaymentRecord {
  payment.currencyCode ??= currencyCode;
  payment.creditAmount ??= payment.amount;
  return payment;
}

/** A site by its id (the state's index). */
export type SiteLookup = (id: string) => SiteRecord | undefined;

/** How a site is referred to from a device or a child site. */
export function siteReference(site: SiteRecord, siteOf: SiteLookup) {
  const parent = site.identification.parent && siteOf(site.identification.parent.id);
  return {
    id: site.id,
    name: site.identification.name,
    status: site.identification.status,
    type: site.identification.type,
    parent: parent ? { id: parent.id, name: parent.identification.name, status: parent.identification.status, type: parent.identification.type } : null,
  };
}

/** identification.id, the parent's name, status and type, and ucrmId from the linked CRM client. */
export function completeSite(site: SiteRecord, siteOf: SiteLookup): SiteRecord {
  site.identification.id = site.id;
  site.identification.parent = siteReference(site, siteOf).parent;
  site.description.ucrmId ??= site.ucrm?.client?.id ?? null;
  return site;
}

/** Status, last seen, host and display names, and the full site reference (null for a discovered device). */
export function completeDevice(device: DeviceRecord, site: SiteRecord | undefined, siteOf: SiteLookup): DeviceRecord {
  const identification = device.identification;
  identification.status ??= identification.authorized ? 'active' : 'unauthorized';
  identification.hostname ??= identification.name;
  identification.displayName ??= identification.name;
  identification.site = site ? siteReference(site, siteOf) : null;
  device.overview.status ??= identification.status;
  // A device the data file gives no lastSeen for was seen when the record was loaded (NMS keeps it current).
  device.overview.lastSeen ??= identification.updated;
  return device;
}
