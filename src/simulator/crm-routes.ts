/**
 * CRM v1.0 endpoints: clients, services, suspension, plans, payment methods, payments and invoices (read only).
 * Behaviour follows the interface spec, with the UISP CRM API Blueprint (origin in test/fixtures/SOURCES.md)
 * filling the gaps: request bodies are parsed with the writable shapes below, so fields UISP treats as read-only
 * (a client's tags; a service's status, activeFrom and invoicingStart on update) are silently dropped.
 */
import { STATUS_CODES } from 'node:http';
import { z } from 'zod';
import { currencyOf, findClient, findPlanPeriod, organizationOf, type SimulatorData } from './data.js';
import { indexesOf } from './indexes.js';
import {
  ClientRecordSchema,
  completeClient,
  completePayment,
  completeService,
  ContactRecordSchema,
  nextId,
  PaymentRecordSchema,
  ServiceRecordSchema,
  UispDate,
  uispDateTime,
  type ClientRecord,
  type InvoiceRecord,
  type PaymentRecord,
  type ServiceRecord,
} from './records.js';
import { ApiError, issuesByField, Router, type Api, type Reply, type RouteRequest } from './router.js';
import { STOCK_VERSION, WORLD_STATUSES } from './world.js';

/** Active, Ended and Suspended are the same number in both worlds (./world.ts); Quoted is not. */
const SERVICE_STATUS = WORLD_STATUSES.interface;

const CRM_MESSAGES: Record<number, string> = {
  400: 'Bad request.',
  401: 'User authentication failed.',
  404: 'Object is not found.',
  422: 'Validation failed.',
  429: 'Too Many Requests.',
};

function crmError(status: number, message?: string): Reply {
  return { status, body: { code: status, message: message ?? CRM_MESSAGES[status] ?? STATUS_CODES[status] ?? 'Error.' } };
}

function notFound(): ApiError {
  return new ApiError(crmError(404));
}

function invalid(errors: Record<string, string[]>, message = CRM_MESSAGES[422]): ApiError {
  return new ApiError({ status: 422, body: { code: 422, message, errors } });
}

const BLANK = 'This value should not be blank.';

function parse<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input ?? {});
  if (!result.success) throw invalid(issuesByField(result.error, input ?? {}, BLANK));
  return result.data;
}

const ok = (body: unknown): Reply => ({ status: 200, body });
const created = (body: unknown): Reply => ({ status: 201, body });

// ---------- request shapes ----------

const optionalText = z.string().nullable().optional();
const count = z.string().regex(/^\d+$/, 'This value should be a non-negative integer.').transform(Number);
const flag = z.enum(['0', '1', 'true', 'false']).transform((v) => v === '1' || v === 'true');
const Paging = { limit: count.optional(), offset: count.default(0) };

const ContactBody = z.object({ email: optionalText, phone: optionalText, name: optionalText, isBilling: z.boolean().optional(), isContact: z.boolean().optional() });

/** ClientWritable: no tags (assigning tags is not possible through the interface, spec §2). */
const ClientBody = z
  .object({
    userIdent: optionalText,
    clientType: z.union([z.literal(1), z.literal(2)]),
    isLead: z.boolean(),
    firstName: optionalText,
    lastName: optionalText,
    companyName: optionalText,
    companyContactFirstName: optionalText,
    companyContactLastName: optionalText,
    street1: optionalText,
    street2: optionalText,
    city: optionalText,
    zipCode: optionalText,
    countryId: z.number().int().nullable(),
    note: optionalText,
    username: optionalText,
    registrationDate: UispDate,
    contacts: z.array(ContactBody),
  })
  .partial();

const ClientQuery = z.object({
  query: z.string().optional(),
  email: z.string().optional(),
  phone: z.string().optional(),
  userIdent: z.string().optional(),
  isArchived: flag.default(false),
  ...Paging,
});

/** ServiceWritable plus the `status` the spec sends (1 = Active; anything else creates a Quoted service). */
const ServiceBody = z.object({
  status: z.number().int().optional(),
  servicePlanPeriodId: z.number().int(),
  activeFrom: UispDate,
  invoicingStart: UispDate,
  activeTo: UispDate.nullable().optional(),
  name: optionalText,
  price: z.number().nonnegative().nullable().optional(),
  note: optionalText,
  invoiceLabel: optionalText,
  contractId: optionalText,
  unmsClientSiteId: optionalText,
});

/** ServiceUpdate: status, activeFrom and invoicingStart are set at creation only (spec §2, §3). */
const ServiceUpdateBody = ServiceBody.omit({ status: true, activeFrom: true, invoicingStart: true, unmsClientSiteId: true }).partial();

const SuspendBody = z.object({ suspensionReasonId: z.number().int() });

/** The CRM refuses pages over 500 payments (spec §8). */
const MAX_PAYMENTS_LIMIT = 500;

/** clientId and the createdDate day range (inclusive) that GET /payments and GET /invoices filter by. */
const ClientAndDays = {
  clientId: count.optional(),
  createdDateFrom: z.iso.date('Use the YYYY-MM-DD format.').optional(),
  createdDateTo: z.iso.date('Use the YYYY-MM-DD format.').optional(),
};

const PaymentQuery = z.object({
  ...ClientAndDays,
  order: z.enum(['id', 'createdDate', 'amount']).default('createdDate'),
  direction: z.enum(['ASC', 'DESC']).default('ASC'),
  ...Paging,
  limit: count.pipe(z.number().max(MAX_PAYMENTS_LIMIT, `This value should be ${MAX_PAYMENTS_LIMIT} or less.`)).optional(),
});

const PaymentBody = z.object({
  clientId: z.number().int(),
  amount: z.number().positive('This value should be greater than 0.'),
  methodId: optionalText,
  currencyCode: z.string().length(3).nullable().optional(),
  createdDate: UispDate.optional(),
  note: optionalText,
  checkNumber: optionalText,
  applyToInvoicesAutomatically: z.boolean().optional(),
  invoiceIds: z.array(z.number().int()).optional(),
});

/** GET /invoices: by client and createdDate day range, in createdDate order (then id), paged. */
const InvoiceQuery = z.object({ ...ClientAndDays, direction: z.enum(['ASC', 'DESC']).default('ASC'), ...Paging });

/**
 * A new id for a client, service or payment: above every id in use and every id ever handed out, as the
 * CRM's auto-increment does. Reusing a deleted record's id would let a late delete of the old record remove
 * the new one.
 */
const issued = new WeakMap<SimulatorData, Map<string, number>>();
function newId(data: SimulatorData, kind: 'clients' | 'services' | 'payments'): number {
  const byKind = issued.get(data) ?? new Map<string, number>();
  issued.set(data, byKind);
  const id = Math.max(nextId(data[kind].map((record) => record.id)), (byKind.get(kind) ?? 0) + 1);
  byKind.set(kind, id);
  return id;
}

// ---------- lookups ----------

function numericId(value: string | undefined): number {
  if (!value || !/^\d+$/.test(value)) throw notFound();
  return Number(value);
}

function clientById(data: SimulatorData, id: string | undefined): ClientRecord {
  const client = findClient(data, numericId(id));
  if (!client) throw notFound();
  return client;
}

function serviceById(data: SimulatorData, id: string | undefined): ServiceRecord {
  const service = indexesOf(data).serviceById.get(numericId(id));
  if (!service) throw notFound();
  return service;
}

function present(data: SimulatorData, client: ClientRecord) {
  return { ...client, hasSuspendedService: servicesOf(data, client.id).some((s) => s.status === SERVICE_STATUS.suspended) };
}

/** A client's services, through the index (GET /clients lists each client's suspension: no scan per client). */
function servicesOf(data: SimulatorData, clientId: number): readonly ServiceRecord[] {
  return indexesOf(data).servicesByClient.get(String(clientId));
}

/** Whether `list` is in `inOrder`'s order (a plain loop: it runs over every payment for every page). */
function isSorted<T>(list: readonly T[], inOrder: (a: T, b: T) => number): boolean {
  for (let i = 1; i < list.length; i++) if (inOrder(list[i - 1]!, list[i]!) > 0) return false;
  return true;
}

/** The first index of a sorted list where `reached` holds (it holds from there on); the length if nowhere. */
function firstIndex<T>(list: readonly T[], reached: (item: T) => boolean): number {
  let low = 0;
  let high = list.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (reached(list[middle]!)) high = middle;
    else low = middle + 1;
  }
  return low;
}

function page<T>(list: T[], { limit, offset }: { limit?: number | undefined; offset: number }): T[] {
  return list.slice(offset, limit === undefined ? undefined : offset + limit);
}

const digits = (value: string) => value.replace(/\D/g, '');

function compare(a: string | number, b: string | number): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

// ---------- clients ----------

/** The query without the parameters of filters this simulator does not honour (./world.ts): UISP without them ignores them. */
function honoured(query: Record<string, string>, honours: RouteRequest['honours']): Record<string, string> {
  const ignored = [...(honours('clients.query') ? [] : ['query']), ...(honours('clients.paging') ? [] : ['limit', 'offset']), ...(honours('services.clientId') ? [] : ['clientId'])];
  return Object.fromEntries(Object.entries(query).filter(([key]) => !ignored.includes(key)));
}

function listClients({ data, query, honours, indexes }: RouteRequest): Reply {
  const filters = parse(ClientQuery, honoured(query, honours));
  const needle = filters.query?.trim().toLowerCase();
  const email = filters.email?.trim().toLowerCase();
  const phone = filters.phone === undefined ? undefined : digits(filters.phone);
  const matches = indexes.scan(data.clients).filter((client) => {
    if (client.isArchived !== filters.isArchived) return false;
    if (filters.userIdent !== undefined && client.userIdent !== filters.userIdent) return false;
    if (email !== undefined && !client.contacts.some((c) => c.email?.toLowerCase() === email)) return false;
    if (phone !== undefined && !client.contacts.some((c) => c.phone && digits(c.phone).includes(phone))) return false;
    if (needle) {
      const haystack = [`${client.firstName ?? ''} ${client.lastName ?? ''}`, client.companyName ?? '', client.userIdent ?? ''];
      if (!haystack.some((text) => text.toLowerCase().includes(needle))) return false;
    }
    return true;
  });
  return ok(page(matches, filters).map((client) => present(data, client)));
}

/** Residential clients need first and last names, companies a company name (ClientWritable). */
function requireNames(client: { clientType?: number | undefined; firstName?: string | null | undefined; lastName?: string | null | undefined; companyName?: string | null | undefined }) {
  const fields = client.clientType === 2 ? (['companyName'] as const) : (['firstName', 'lastName'] as const);
  const missing = fields.filter((field) => !client[field]?.trim());
  if (missing.length > 0) throw invalid(Object.fromEntries(missing.map((field) => [field, [BLANK]])));
}

/** Replaces the client's contacts, numbering the new ones after every contact id in use. */
function setContacts(data: SimulatorData, client: ClientRecord, contacts: z.output<typeof ContactBody>[]): ClientRecord {
  let contactId = nextId(data.clients.flatMap((c) => c.contacts.map((contact) => contact.id ?? 0)));
  client.contacts = contacts.map((contact) => ContactRecordSchema.parse(contact));
  return completeClient(client, organizationOf(data), () => contactId++);
}

function createClient({ data, body, emit }: RouteRequest): Reply {
  const fields = parse(ClientBody, body);
  requireNames({ clientType: 1, ...fields });
  const { contacts = [], ...rest } = fields;
  const client = ClientRecordSchema.parse({ ...rest, id: newId(data, 'clients') });
  data.clients.push(setContacts(data, client, contacts));
  emit({ entity: 'client', entityId: client.id, changeType: 'insert', eventName: 'client.add', record: present(data, client) });
  return created(present(data, client));
}

function updateClient({ data, params, body, emit }: RouteRequest): Reply {
  const client = clientById(data, params.id);
  const { contacts, ...fields } = parse(ClientBody, body);
  requireNames({ ...client, ...fields });
  Object.assign(client, fields);
  if (contacts) setContacts(data, client, contacts);
  emit({ entity: 'client', entityId: client.id, changeType: 'edit', eventName: 'client.edit', record: present(data, client) });
  return ok(present(data, client));
}

/** PATCH /clients/{id}/archive (CRM blueprint). */
function archiveClient({ data, params, emit }: RouteRequest): Reply {
  const client = clientById(data, params.id);
  if (!client.isArchived) {
    client.isArchived = true;
    emit({ entity: 'client', entityId: client.id, changeType: 'archive', eventName: 'client.archive', record: present(data, client) });
  }
  return ok(present(data, client));
}

/** Permanent deletion takes the client's services, payments and invoices with it, as in UISP. */
function deleteClient({ data, params }: RouteRequest): Reply {
  const client = clientById(data, params.id);
  data.clients.splice(data.clients.indexOf(client), 1);
  removeWhere(data.services, (s) => s.clientId === client.id);
  removeWhere(data.payments, (p) => p.clientId === client.id);
  removeWhere(data.invoices, (i) => i.clientId === client.id);
  return { status: 200 };
}

/** In place: tests hold on to the simulator's arrays. */
function removeWhere<T>(list: T[], doomed: (item: T) => boolean): void {
  for (let i = list.length - 1; i >= 0; i--) if (doomed(list[i]!)) list.splice(i, 1);
}

// ---------- services ----------

const ServiceQuery = z.object({ clientId: count.optional(), ...Paging });

/** GET /clients/services: every service, or, where honoured, a client's (`clientId`); `limit`/`offset` with paging. */
function listServices({ data, query, honours, indexes }: RouteRequest): Reply {
  const { clientId, ...paging } = parse(ServiceQuery, honoured(query, honours));
  return ok(page(clientId === undefined ? indexes.scan(data.services) : [...servicesOf(data, clientId)], paging));
}

function planPeriodOr422(data: SimulatorData, periodId: number) {
  const found = findPlanPeriod(data, periodId);
  if (!found) throw invalid({ servicePlanPeriodId: ['Service plan period not found.'] });
  return found;
}

function createService({ data, world, params, body, emit }: RouteRequest): Reply {
  const client = clientById(data, params.id);
  const { status, ...fields } = parse(ServiceBody, body);
  const { plan, period } = planPeriodOr422(data, fields.servicePlanPeriodId);
  const service = ServiceRecordSchema.parse({
    ...fields,
    id: newId(data, 'services'),
    clientId: client.id,
    // Without status 1 a new service comes out Quoted (spec §7).
    status: status === SERVICE_STATUS.active ? SERVICE_STATUS.active : WORLD_STATUSES[world].quoted,
  });
  data.services.push(completeService(service, plan, period, client));
  emit({ entity: 'service', entityId: service.id, changeType: 'insert', eventName: 'service.add', record: service });
  return created(service);
}

function updateService({ data, params, body, emit }: RouteRequest): Reply {
  const service = serviceById(data, params.id);
  const fields = parse(ServiceUpdateBody, body);
  const { plan, period } = planPeriodOr422(data, fields.servicePlanPeriodId ?? service.servicePlanPeriodId);
  Object.assign(service, fields);
  completeService(service, plan, period, findClient(data, service.clientId)!);
  emit({ entity: 'service', entityId: service.id, changeType: 'edit', eventName: 'service.edit', record: service });
  return ok(service);
}

function deleteService({ data, params, emit }: RouteRequest): Reply {
  const service = serviceById(data, params.id);
  data.services.splice(data.services.indexOf(service), 1);
  emit({ entity: 'service', entityId: service.id, changeType: 'delete', eventName: 'service.delete', record: service });
  return { status: 200 };
}

/** PATCH /clients/services/{id}/end (CRM blueprint): the service ends today. */
function endService({ data, params, emit }: RouteRequest): Reply {
  const service = serviceById(data, params.id);
  if (service.status === SERVICE_STATUS.ended) throw invalid({}, 'The service has already ended.');
  service.status = SERVICE_STATUS.ended;
  service.activeTo = uispDateTime(new Date());
  emit({ entity: 'service', entityId: service.id, changeType: 'end', eventName: 'service.end', record: service });
  return ok(service);
}

function suspendService({ data, params, body, emit }: RouteRequest): Reply {
  const service = serviceById(data, params.id);
  const { suspensionReasonId } = parse(SuspendBody, body);
  if (!data.suspensionReasons.some((reason) => reason.id === suspensionReasonId)) {
    throw invalid({ suspensionReasonId: ['Service suspension reason not found.'] });
  }
  if (service.status !== SERVICE_STATUS.active) throw invalid({}, 'Only an active service can be suspended.');
  service.status = SERVICE_STATUS.suspended;
  service.suspensionReasonId = suspensionReasonId;
  const periodId = nextId(data.services.flatMap((s) => s.suspensionPeriods.map((p) => p.id)));
  service.suspensionPeriods.push({ id: periodId, startDate: uispDateTime(new Date()), endDate: null });
  emit({ entity: 'service', entityId: service.id, changeType: 'suspend', eventName: 'service.suspend', record: service });
  return ok(service);
}

function cancelSuspension({ data, params, emit }: RouteRequest): Reply {
  const service = serviceById(data, params.id);
  if (service.status !== SERVICE_STATUS.suspended) throw invalid({}, 'Only a suspended service can have its suspension cancelled.');
  service.status = SERVICE_STATUS.active;
  service.suspensionReasonId = null;
  const open = service.suspensionPeriods.find((p) => p.endDate === null);
  if (open) open.endDate = uispDateTime(new Date());
  emit({ entity: 'service', entityId: service.id, changeType: 'unsuspend', eventName: 'service.suspend_cancel', record: service });
  return ok(service);
}

// ---------- payments ----------

/**
 * The createdDate bounds of a day range as strings: createdDate starts with its YYYY-MM-DD day, so whole
 * strings compare against them. `through` sorts after every createdDate of the last day.
 */
function dayBounds(filters: { createdDateFrom?: string | undefined; createdDateTo?: string | undefined }) {
  return { from: filters.createdDateFrom, through: filters.createdDateTo === undefined ? undefined : `${filters.createdDateTo}\uffff` };
}

/** Whether a record matches the clientId and createdDate day range of a query. */
function matchesClientAndDays(filters: z.output<z.ZodObject<typeof ClientAndDays>>) {
  const { from, through } = dayBounds(filters);
  return (record: { clientId: number | null; createdDate: string }) =>
    (filters.clientId === undefined || record.clientId === filters.clientId) && (from === undefined || record.createdDate >= from) && (through === undefined || record.createdDate <= through);
}

function listPayments({ data, query }: RouteRequest): Reply {
  const filters = parse(PaymentQuery, query);
  const { from, through } = dayBounds(filters);
  const wanted = matchesClientAndDays(filters);
  const key = filters.order;
  const inOrder = (a: PaymentRecord, b: PaymentRecord) => compare(a[key], b[key]) || a.id - b.id;
  const sign = filters.direction === 'ASC' ? 1 : -1;
  const { payments } = data;
  // Payments are stored in date order (generated so, and new ones are the newest): then a page is read
  // straight off the array, as UISP reads it off an index, instead of filtering and sorting the whole
  // history for every page — a 100 000-payment listing would otherwise cost the simulator more CPU per
  // page than its latency knob.
  if (!isSorted(payments, inOrder)) {
    const matches = payments.filter(wanted).sort((a, b) => sign * inOrder(a, b));
    return ok(page(matches, filters));
  }
  if (key === 'createdDate' && filters.clientId === undefined) {
    // The wanted payments are one run of the array: found by binary search, a page is a slice of it.
    const first = from === undefined ? 0 : firstIndex(payments, (p) => p.createdDate >= from);
    const end = through === undefined ? payments.length : firstIndex(payments, (p) => p.createdDate > through);
    const count = Math.min(filters.limit ?? Infinity, Math.max(0, end - first - filters.offset));
    const start = sign > 0 ? first + filters.offset : end - filters.offset - count;
    const slice = payments.slice(start, start + count);
    return ok(sign > 0 ? slice : slice.reverse());
  }
  const found: PaymentRecord[] = [];
  let skipped = 0;
  for (let i = sign > 0 ? 0 : payments.length - 1; i >= 0 && i < payments.length && found.length < (filters.limit ?? Infinity); i += sign) {
    const payment = payments[i]!;
    if (!wanted(payment)) continue;
    if (skipped < filters.offset) skipped++;
    else found.push(payment);
  }
  return ok(found);
}

function createPayment({ data, body, emit }: RouteRequest): Reply {
  const fields = parse(PaymentBody, body);
  const errors: Record<string, string[]> = {};
  if (!findClient(data, fields.clientId)) errors.clientId = ['Client not found.'];
  if (fields.methodId != null && !data.paymentMethods.some((m) => m.id === fields.methodId)) errors.methodId = ['Payment method not found.'];
  if (Object.keys(errors).length > 0) throw invalid(errors);
  const { applyToInvoicesAutomatically: _apply, invoiceIds: _invoices, ...stored } = fields;
  const payment = PaymentRecordSchema.parse({
    ...stored,
    id: newId(data, 'payments'),
    createdDate: stored.createdDate ?? uispDateTime(new Date()),
  });
  data.payments.push(completePayment(payment, currencyOf(data, payment.clientId)));
  emit({ entity: 'payment', entityId: payment.id, changeType: 'insert', eventName: 'payment.add', record: payment });
  return created(payment);
}

function paymentById(data: SimulatorData, id: string | undefined) {
  const paymentId = numericId(id);
  const payment = data.payments.find((p) => p.id === paymentId);
  if (!payment) throw notFound();
  return payment;
}

// ---------- invoices ----------
// Read only: the simulator makes no invoices itself (a data file or a test gives them), as SubOps never
// writes one. Each item names the service it bills (serviceId), which is how SubOps tells an invoiced service.

function listInvoices({ data, query }: RouteRequest): Reply {
  const filters = parse(InvoiceQuery, query);
  const sign = filters.direction === 'ASC' ? 1 : -1;
  const inOrder = (a: InvoiceRecord, b: InvoiceRecord) => sign * (compare(a.createdDate, b.createdDate) || a.id - b.id);
  return ok(page(data.invoices.filter(matchesClientAndDays(filters)).sort(inOrder), filters));
}

function invoiceById(data: SimulatorData, id: string | undefined): InvoiceRecord {
  const invoiceId = numericId(id);
  const invoice = data.invoices.find((i) => i.id === invoiceId);
  if (!invoice) throw notFound();
  return invoice;
}

/** GET /webhook-events/{uuid}: the CRM's record of an event it sent; 404 for any other uuid. */
function webhookEvent({ params, webhookEvents }: RouteRequest): Reply {
  const event = webhookEvents.find((e) => e.uuid === params.uuid);
  if (!event) throw notFound();
  const { createdDate: _createdDate, eventName: _eventName, ...fields } = event;
  return ok(fields);
}

const router = new Router()
  .on('GET', '/clients', listClients)
  // Stock UISP's documented way to list a client's services (before /clients/:id, which would take "services" as an id).
  .on('GET', '/clients/services', listServices)
  .on('POST', '/clients', createClient)
  .on('GET', '/clients/:id', ({ data, params }) => ok(present(data, clientById(data, params.id))))
  .on('PATCH', '/clients/:id', updateClient)
  .on('DELETE', '/clients/:id', deleteClient)
  .on('PATCH', '/clients/:id/archive', archiveClient)
  .on('GET', '/clients/:id/services', ({ data, params }) => ok(servicesOf(data, clientById(data, params.id).id)))
  .on('POST', '/clients/:id/services', createService)
  .on('GET', '/clients/services/:id', ({ data, params }) => ok(serviceById(data, params.id)))
  .on('PATCH', '/clients/services/:id', updateService)
  .on('DELETE', '/clients/services/:id', deleteService)
  .on('PATCH', '/clients/services/:id/suspend', suspendService)
  .on('PATCH', '/clients/services/:id/cancel-suspend', cancelSuspension)
  .on('PATCH', '/clients/services/:id/end', endService)
  .on('GET', '/service-suspension-reasons', ({ data }) => ok(data.suspensionReasons))
  .on('GET', '/service-plans', ({ data }) => ok(data.servicePlans))
  // Every stock UISP CRM serves its version; the interface document's UISP does not.
  .on('GET', '/version', ({ world }) => {
    if (world !== 'stock') throw notFound();
    return ok({ version: STOCK_VERSION });
  })
  .on('GET', '/payment-methods', ({ data }) => ok(data.paymentMethods))
  .on('GET', '/payments', listPayments)
  .on('GET', '/payments/:id', ({ data, params }) => ok(paymentById(data, params.id)))
  .on('POST', '/payments', createPayment)
  .on('GET', '/invoices', listInvoices)
  .on('GET', '/invoices/:id', ({ data, params }) => ok(invoiceById(data, params.id)))
  .on('GET', '/webhook-events/:uuid', webhookEvent);

export const crmApi: Api = {
  base: '/crm/api/v1.0',
  router,
  // The spec's X-Auth-Token, and X-Auth-App-Key as stock UISP CRM expects.
  authenticates: (headers, token) => headers['x-auth-token'] === token || headers['x-auth-app-key'] === token,
  error: crmError,
};
