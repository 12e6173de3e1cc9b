/**
 * zod schemas for every UISP response field SubOps reads. Shapes follow the UISP CRM API Blueprint and
 * the UISP NMS API Swagger (origins in test/fixtures/SOURCES.md); unknown fields pass through untouched
 * (`looseObject`) so a newer UISP with more fields still parses, while a missing or mistyped field we
 * rely on fails loudly at the boundary.
 */
import { z } from 'zod';

/** UISP ids: CRM uses integers, NMS uses GUID strings; the spec calls site parent ids integers. */
const nmsId = z.union([z.string(), z.number()]).transform(String);
const nullableString = z.string().nullable().default(null);

// ---------- CRM ----------

export const ClientSchema = z.looseObject({
  id: z.number().int(),
  firstName: nullableString,
  lastName: nullableString,
  companyName: nullableString,
  clientType: z.number().int().nullish(),
  userIdent: nullableString,
  isLead: z.boolean().nullish(),
  isArchived: z.boolean().nullish(),
  street1: z.string().nullish(),
  city: z.string().nullish(),
  /** Optional in the type: records SubOps builds itself (tests, views) need not carry it. */
  note: z.string().nullish(),
  contacts: z
    .array(z.looseObject({ email: nullableString, phone: nullableString }))
    .nullish()
    .transform((v) => v ?? []),
  tags: z.array(z.looseObject({ id: z.number().int(), name: z.string() })).nullish(),
  /** Positive: the client has a credit; negative: a debt (CRM API Blueprint, ClientReadOnly). */
  accountBalance: z.number().nullish(),
  accountOutstanding: z.number().nullish(),
  accountCredit: z.number().nullish(),
  currencyCode: z.string().nullish(),
});
export type Client = z.infer<typeof ClientSchema>;

/**
 * What a client's display name needs, and nothing else: a listing read for names (50,000 clients, say)
 * keeps no more of each record than this while it is decoded.
 */
export const ClientNameFieldsSchema = z.object({ id: ClientSchema.shape.id, firstName: nullableString, lastName: nullableString, companyName: nullableString });
export type ClientNameFields = z.infer<typeof ClientNameFieldsSchema>;

export const ServiceSchema = z.looseObject({
  id: z.number().int(),
  clientId: z.number().int(),
  status: z.number().int(),
  name: nullableString,
  servicePlanPeriodId: z.number().int().nullish(),
  price: z.number().nullish(),
  currencyCode: nullableString,
  activeFrom: nullableString,
  invoicingStart: nullableString,
  suspensionReasonId: z.number().int().nullish(),
  /** ServiceReadOnly: the service's suspensions; the one in force has no endDate. */
  suspensionPeriods: z.array(z.looseObject({ id: z.number().int(), startDate: z.string().nullish(), endDate: z.string().nullish() })).nullish(),
  note: z.string().nullish(),
  /** The plan's name and its period in months, filled in by the CRM from the plan period. */
  servicePlanName: z.string().nullish(),
  servicePlanPeriod: z.number().int().nullish(),
  /** ServiceReadOnly: the end of the last invoiced period (recurring services); null while never invoiced. */
  lastInvoicedDate: z.string().nullish(),
  servicePlanId: z.number().int().nullish(),
  /** ServiceReadOnly: `Internet` or `General` (cable TV, VoIP…); an activation touches only its own plan's type. */
  servicePlanType: z.string().nullish(),
  /** "Connected UISP Location ID": the NMS site this service is bound to (stock UISP keeps the binding here). */
  unmsClientSiteId: z.string().nullish(),
});
export type Service = z.infer<typeof ServiceSchema>;

export const SuspensionReasonSchema = z.looseObject({
  id: z.number().int(),
  name: z.string(),
});
export type SuspensionReason = z.infer<typeof SuspensionReasonSchema>;

export const ServicePlanSchema = z.looseObject({
  id: z.number().int(),
  name: z.string(),
  /** `Internet` or `General`. */
  servicePlanType: z.string().nullish(),
  periods: z
    .array(z.looseObject({ id: z.number().int(), period: z.number().int(), price: z.number().nullish(), enabled: z.boolean().nullish() }))
    .nullish()
    .transform((v) => v ?? []),
});
export type ServicePlan = z.infer<typeof ServicePlanSchema>;

export const PaymentSchema = z.looseObject({
  id: z.number().int(),
  clientId: z.number().int().nullish(),
  methodId: nullableString,
  createdDate: z.string(),
  amount: z.number(),
  currencyCode: nullableString,
  note: nullableString,
});
export type Payment = z.infer<typeof PaymentSchema>;

export const PaymentMethodSchema = z.looseObject({
  id: z.string(),
  name: z.string(),
  visible: z.boolean().nullish(),
});
export type PaymentMethod = z.infer<typeof PaymentMethodSchema>;

/**
 * InvoiceReadOnly, as far as SubOps reads it: which client, which status (InvoiceStatus: 0 draft, 1 unpaid,
 * 2 partially paid, 3 paid, 4 void, 5 processed proforma) and which services its items bill
 * (InvoiceItemReadOnly.serviceId, null for a product, fee or custom item).
 */
export const InvoiceSchema = z.looseObject({
  id: z.number().int(),
  clientId: z.number().int(),
  number: z.string().nullish(),
  status: z.number().int().nullish(),
  createdDate: z.string().nullish(),
  items: z
    .array(z.looseObject({ id: z.number().int().nullish(), serviceId: z.number().int().nullish(), type: z.string().nullish() }))
    .nullish()
    .transform((v) => v ?? []),
});
export type Invoice = z.infer<typeof InvoiceSchema>;


/**
 * GET /webhook-events/{uuid}: the CRM's own record of an event it sent (entity names such as client,
 * service, payment; change types such as insert, edit, suspend, unsuspend, end, archive).
 */
export const WebhookEventSchema = z.looseObject({
  uuid: z.string(),
  changeType: z.string(),
  entity: z.string(),
  /** A number in the blueprint; webhook bodies carry it as a string. Null for events about no record ("test"). */
  entityId: z
    .union([z.number().int(), z.string().regex(/^\d+$/)])
    .nullish()
    .transform((v) => (v == null ? null : Number(v))),
  eventName: nullableString,
});
export type WebhookEvent = z.infer<typeof WebhookEventSchema>;

// ---------- NMS ----------

const SiteRefSchema = z.looseObject({
  id: nmsId,
  name: nullableString,
  type: nullableString,
});

export const DeviceSchema = z.looseObject({
  identification: z.looseObject({
    id: nmsId,
    name: nullableString,
    hostname: nullableString,
    displayName: nullableString,
    mac: nullableString,
    ip: nullableString,
    model: nullableString,
    modelName: z.string().nullish(),
    /** station, ap, router, switch, gateway… (the NMS Swagger's enum); only a station is a subscriber CPE. */
    role: z.string().nullish(),
    authorized: z.boolean().nullish(),
    site: SiteRefSchema.nullish(),
  }),
  ipAddress: nullableString,
  /** DeviceOverview in the NMS Swagger: status (active, disconnected…), signal in dBm, uptime in seconds, lastSeen (date-time). */
  overview: z
    .looseObject({
      status: nullableString,
      signal: z.number().nullish(),
      uptime: z.number().nullish(),
      lastSeen: z.string().nullish(),
    })
    .nullish(),
});
export type Device = z.infer<typeof DeviceSchema>;

export const SiteSchema = z.looseObject({
  id: nmsId,
  identification: z.looseObject({
    id: nmsId.optional(),
    name: z.string(),
    type: nullableString,
    status: nullableString,
    parent: z.looseObject({ id: nmsId, name: nullableString }).nullish(),
  }),
  description: z
    .looseObject({
      ucrmId: z.union([z.string(), z.number()]).nullish().transform((v) => (v == null ? null : String(v))),
      note: nullableString,
    })
    .nullish(),
  /**
   * The CRM binding, present only when asked with `ucrmDetails=true`. Stock UISP binds a site to a CRM
   * *service* (`service`), whose client is `client`; `description.ucrmId` is that service's id, never a
   * client's (./sites.ts reads ownership).
   */
  ucrm: z
    .looseObject({
      client: z.looseObject({ id: z.union([z.string(), z.number()]).transform(String), name: nullableString }).nullish(),
      /** Swagger `service`: its name and CRM status number too (the numbering is the CRM's). */
      service: z.looseObject({ id: z.union([z.string(), z.number()]).transform(String), name: z.string().nullish(), status: z.number().int().nullish() }).nullish(),
    })
    .nullish(),
});
export type Site = z.infer<typeof SiteSchema>;

/** The Swagger's SiteIdentification, as an outage names its site. */
const OutageSiteSchema = z.looseObject({ id: nmsId, name: nullableString, type: nullableString });

/**
 * GET /outages' `Outage` (NMS Swagger): a device down since `startTimestamp`; with `grouped=true` one
 * site's devices down together are one item (`children`: the others' outage ids, `affectedDevices`).
 */
export const OutageSchema = z.looseObject({
  id: nmsId,
  startTimestamp: z.string(),
  endTimestamp: z.string().nullish(),
  type: z.string().nullish(),
  inProgress: z.boolean(),
  site: OutageSiteSchema.nullish(),
  device: z
    .looseObject({
      id: nmsId,
      name: nullableString,
      displayName: z.string().nullish(),
      model: z.string().nullish(),
      modelName: z.string().nullish(),
      role: z.string().nullish(),
      ip: z.string().nullish(),
      site: OutageSiteSchema.nullish(),
    })
    .nullish(),
  affectedDevices: z.number().nullish(),
  children: z.array(z.string()).nullish(),
});
export type Outage = z.infer<typeof OutageSchema>;

/** GET /outages' answer: one page of outages. */
export const OutagesPageSchema = z.looseObject({
  pagination: z.looseObject({ page: z.number(), pages: z.number() }),
  items: z.array(OutageSchema),
});

/** GET /crm/api/v1.0/version (the Blueprint's `Version`). */
export const VersionSchema = z.looseObject({ version: z.string().nullish() });

/** NMS answers writes such as authorize with `{result, message}`. */
export const NmsStatusSchema = z.looseObject({ result: z.boolean(), message: nullableString });

/** Error bodies: CRM `{code, message, errors}`, NMS `{statusCode, error, message, validation}`. */
export const UispErrorBodySchema = z.looseObject({
  code: z.number().optional(),
  statusCode: z.number().optional(),
  message: z.string().optional(),
  error: z.string().optional(),
  errors: z.record(z.string(), z.union([z.array(z.string()), z.string()])).optional(),
  validation: z.unknown().optional(),
});
