/**
 * CRM v1.0 client: clients, services, suspension, plans, payments, invoices and client logs. Paths follow the interface spec
 * first and the UISP CRM API Blueprint where the spec is silent (origins in test/fixtures/SOURCES.md).
 */
import { z } from 'zod';
import { UispNotFoundError } from './errors.js';
import type { UispHttp } from './http.js';
import { readAhead } from './pager.js';
import {
  ClientNameFieldsSchema,
  ClientSchema,
  InvoiceSchema,
  PaymentMethodSchema,
  PaymentSchema,
  ServicePlanSchema,
  ServiceSchema,
  SuspensionReasonSchema,
  type Client,
  type ClientNameFields,
  type Invoice,
  type Payment,
  type PaymentMethod,
  type Service,
  type ServicePlan,
  type SuspensionReason,
  type WebhookEvent,
  VersionSchema,
  WebhookEventSchema,
} from './schemas.js';

/** Filters stock UISP accepts on GET /clients. */
export interface ClientFilters {
  query?: string;
  email?: string;
  phone?: string;
  userIdent?: string;
  isArchived?: boolean;
  /** At most this many clients (the first, by id). */
  limit?: number;
}

export interface NewClient {
  firstName: string;
  lastName: string;
  email?: string;
  phone?: string;
  note?: string;
}

export interface NewService {
  status: number;
  servicePlanPeriodId: number;
  price: number;
  /** ISO 8601 date-time, as the CRM documents it: the day's start in the ISP's zone, e.g. 2026-11-22T00:00:00-0400. */
  activeFrom: string;
  invoicingStart: string;
  name?: string;
  note?: string;
}

export interface PaymentFilters {
  clientId?: number;
  /** YYYY-MM-DD, inclusive. */
  createdDateFrom?: string;
  createdDateTo?: string;
  /** Newest first when DESC. */
  direction?: 'ASC' | 'DESC';
}

export interface NewPayment {
  clientId: number;
  amount: number;
  methodId?: string;
  note?: string;
  currencyCode?: string;
}

// Kept importable from here for the services that already do; views import ./client-name.js (no I/O).
export { clientDisplayName } from './client-name.js';

/** The CRM's hard cap on GET /payments `limit` (spec §8). */
export const MAX_PAYMENTS_PAGE = 500;

// Suspend/cancel-suspend/delete answer 200 with an empty or partial body; we read nothing from it.
const IgnoredBody = z.unknown();

/**
 * Clients per page of GET /clients when the whole list is read (the Blueprint states no cap; the same as
 * payments', which the spec caps at 500).
 */
export const CLIENTS_PAGE = 500;

export interface CrmClientOptions {
  /** Pages of a long listing (GET /payments, GET /clients) requested ahead of the reader (UISP_PAGES_IN_FLIGHT); 1 pages strictly one after the other. */
  pagesInFlight: number;
}

export class CrmClient {
  constructor(
    private readonly http: UispHttp,
    private readonly options: CrmClientOptions = { pagesInFlight: 1 },
  ) {}

  listClients(filters: ClientFilters = {}): Promise<Client[]> {
    const { isArchived, ...rest } = filters;
    return this.http.get('clients', z.array(ClientSchema), { ...rest, isArchived: isArchived === undefined ? undefined : Number(isArchived) });
  }

  getClient(id: number): Promise<Client> {
    return this.http.get(`clients/${id}`, ClientSchema);
  }

  /**
   * Every client the CRM lists (archived ones aside, as GET /clients leaves them out; `archived`: those
   * only, `isArchived=1`), a page at a time
   * in id order (`limit`, `offset`, `order`, `direction`: CRM Blueprint), read ahead like the payments;
   * of each, only the fields of its display name. A CRM that does not page as asked is the reader's to
   * notice (../client-names.ts): a page longer than `pageSize`, or one that repeats the last.
   */
  async *clientNamePages(pageSize = CLIENTS_PAGE, { archived = false }: { archived?: boolean } = {}): AsyncGenerator<ClientNameFields[]> {
    const list = { order: 'client.id', direction: 'ASC', limit: pageSize, ...(archived && { isArchived: 1 }) };
    const fetchPage = (index: number) => this.http.getLater('clients', z.array(ClientNameFieldsSchema), { ...list, offset: index * pageSize });
    yield* readAhead(fetchPage, { pageSize, pagesInFlight: this.options.pagesInFlight });
  }

  createClient(client: NewClient): Promise<Client> {
    // The Blueprint's ClientContact types email and phone as strings, not nullable: one not given is left out.
    const contacts = client.email || client.phone ? [{ ...(client.email && { email: client.email }), ...(client.phone && { phone: client.phone }), isBilling: true, isContact: true }] : undefined;
    const { firstName, lastName, note } = client;
    return this.http.post('clients', { clientType: 1, isLead: false, firstName, lastName, contacts, ...(note && { note }) }, ClientSchema);
  }

  /** DELETE /clients/{id}: permanently deletes a client (used only for SubOps' own duplicates). */
  async deleteClient(id: number): Promise<void> {
    await this.http.delete(`clients/${id}`, IgnoredBody);
  }

  /** PATCH a client. UISP silently ignores `tags` here (spec §2), so callers cannot assign tags this way. */
  updateClient(id: number, changes: Partial<NewClient> & Record<string, unknown>): Promise<Client> {
    return this.http.patch(`clients/${id}`, changes, ClientSchema);
  }

  /**
   * The spec's GET /clients/{id}/services; a stock UISP CRM that no longer serves it (its current API
   * Blueprint documents only GET /clients/services?clientId=) answers 404, and that path is used instead.
   */
  async listServices(clientId: number): Promise<Service[]> {
    try {
      return await this.http.get(`clients/${clientId}/services`, z.array(ServiceSchema));
    } catch (error) {
      if (!(error instanceof UispNotFoundError)) throw error;
      return this.http.get('clients/services', z.array(ServiceSchema), { clientId });
    }
  }

  getService(serviceId: number): Promise<Service> {
    return this.http.get(`clients/services/${serviceId}`, ServiceSchema);
  }

  createService(clientId: number, service: NewService): Promise<Service> {
    return this.http.post(`clients/${clientId}/services`, service, ServiceSchema);
  }

  async deleteService(serviceId: number): Promise<void> {
    await this.http.delete(`clients/services/${serviceId}`, IgnoredBody);
  }

  async suspendService(serviceId: number, suspensionReasonId: number): Promise<void> {
    await this.http.patch(`clients/services/${serviceId}/suspend`, { suspensionReasonId }, IgnoredBody);
  }

  /** Lifts a suspension. UISP has no /unsuspend; cancel-suspend is the only way (spec §4). */
  async cancelSuspendService(serviceId: number): Promise<void> {
    await this.http.patch(`clients/services/${serviceId}/cancel-suspend`, undefined, IgnoredBody);
  }

  listSuspensionReasons(): Promise<SuspensionReason[]> {
    return this.http.get('service-suspension-reasons', z.array(SuspensionReasonSchema));
  }

  /** GET /version: every stock UISP CRM serves it (./activation/numbering.ts); 404 elsewhere. */
  async getVersion(): Promise<string> {
    return (await this.http.get('version', VersionSchema)).version ?? '';
  }

  listServicePlans(): Promise<ServicePlan[]> {
    return this.http.get('service-plans', z.array(ServicePlanSchema));
  }

  listPaymentMethods(): Promise<PaymentMethod[]> {
    return this.http.get('payment-methods', z.array(PaymentMethodSchema));
  }

  /**
   * Pages through GET /payments with `limit` ≤ 500 and `offset`, newest first by default, reading up to
   * `pagesInFlight` pages ahead (see pager.ts): memory holds a few pages, never the listing, and
   * a page read ahead waits as its text, decoded only when the reader reaches it. Stop iterating early
   * and no further page is requested.
   */
  async *payments(filters: PaymentFilters = {}, pageSize = MAX_PAYMENTS_PAGE): AsyncGenerator<Payment> {
    for await (const page of this.paymentPages(filters, pageSize)) yield* page;
  }

  /** The same payments a page at a time (never empty), for readers that work page by page (exports). */
  async *paymentPages(filters: PaymentFilters = {}, pageSize = MAX_PAYMENTS_PAGE): AsyncGenerator<Payment[]> {
    const limit = Math.min(Math.max(1, pageSize), MAX_PAYMENTS_PAGE);
    const fetchPage = (index: number) =>
      this.http.getLater('payments', z.array(PaymentSchema), { ...filters, order: 'createdDate', direction: filters.direction ?? 'DESC', limit, offset: index * limit });
    let previousIds = new Set<number>();
    for await (const page of readAhead(fetchPage, { pageSize: limit, pagesInFlight: this.options.pagesInFlight })) {
      // A payment recorded while we page shifts later pages by one: skip what the page before already gave.
      const fresh = page.filter((payment) => !previousIds.has(payment.id));
      previousIds = new Set(page.map((payment) => payment.id));
      if (fresh.length) yield fresh;
    }
  }

  getPayment(paymentId: number): Promise<Payment> {
    return this.http.get(`payments/${paymentId}`, PaymentSchema);
  }

  /** The CRM's record of a webhook event it sent: how a webhook body is confirmed (unknown uuid: 404). */
  getWebhookEvent(uuid: string): Promise<WebhookEvent> {
    return this.http.get(`webhook-events/${encodeURIComponent(uuid)}`, WebhookEventSchema);
  }

  createPayment(payment: NewPayment): Promise<Payment> {
    return this.http.post('payments', { ...payment, applyToInvoicesAutomatically: true }, PaymentSchema);
  }

  /**
   * GET /invoices?clientId=: every invoice of the client, drafts and void ones included, with their items
   * (CRM Blueprint, Invoices). Used to tell whether a service was ever invoiced.
   */
  listInvoices(clientId: number): Promise<Invoice[]> {
    return this.http.get('invoices', z.array(InvoiceSchema), { clientId });
  }
}
