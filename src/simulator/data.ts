/**
 * The simulator's state: UISP records in their real shapes, the sample data set, loading a data set
 * from a JSON file, and saving and loading the state the CLI's embedded simulator keeps between commands.
 * A data file has the shape of SimulatorData (every collection optional, every record field with a UISP
 * default optional) plus an optional `paymentHistory` spec (payment-history.ts).
 */
import { randomUUID } from 'node:crypto';
import { mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { z } from 'zod';
import sample from './sample-data.json' with { type: 'json' };
import { indexesOf } from './indexes.js';
import { generatePayments, PaymentHistorySchema } from './payment-history.js';
import {
  ClientRecordSchema,
  completeClient,
  completeDevice,
  completePayment,
  completeService,
  completeSite,
  DeviceRecordSchema,
  InvoiceRecordSchema,
  nextId,
  OutageRecordSchema,
  PaymentMethodRecordSchema,
  PaymentRecordSchema,
  ServicePlanRecordSchema,
  ServiceRecordSchema,
  SiteRecordSchema,
  SuspensionReasonRecordSchema,
  type ClientRecord,
  type DeviceRecord,
  type InvoiceRecord,
  type OutageRecord,
  type PaymentMethodRecord,
  type PaymentRecord,
  type PlanPeriodRecord,
  type ServicePlanRecord,
  type ServiceRecord,
  type SiteRecord,
  type SuspensionReasonRecord,
} from './records.js';
import { renumbered, type SimulatorWorld } from './world.js';

export interface SimulatorData {
  clients: ClientRecord[];
  services: ServiceRecord[];
  suspensionReasons: SuspensionReasonRecord[];
  servicePlans: ServicePlanRecord[];
  paymentMethods: PaymentMethodRecord[];
  payments: PaymentRecord[];
  /** The CRM's invoices (GET /invoices), with the services their items bill; none in the sample data. */
  invoices: InvoiceRecord[];
  /** Authorized (identification.authorized true) and discovered (false) devices in one list. */
  devices: DeviceRecord[];
  sites: SiteRecord[];
  /** The NMS's outages (./outages.ts): devices taken down, and back or not yet; none in the sample data. */
  outages?: OutageRecord[];
  /** The CRM organization; its currency is every client's currency. Default GYD. */
  organization?: { currencyCode: string; name?: string | undefined };
  /** The world whose status numbers the services carry (./world.ts); absent: the interface document's. */
  numbering?: SimulatorWorld | undefined;
}

const DEFAULT_ORGANIZATION = { currencyCode: 'GYD' };

const collection = <S extends z.ZodType>(record: S) => z.array(record).default(() => []);

const DataFileSchema = z.object({
  organization: z.object({ currencyCode: z.string().length(3), name: z.string().optional() }).optional(),
  numbering: z.enum(['interface', 'stock']).optional(),
  clients: collection(ClientRecordSchema),
  services: collection(ServiceRecordSchema),
  suspensionReasons: collection(SuspensionReasonRecordSchema),
  servicePlans: collection(ServicePlanRecordSchema),
  paymentMethods: collection(PaymentMethodRecordSchema),
  payments: collection(PaymentRecordSchema),
  invoices: collection(InvoiceRecordSchema),
  devices: collection(DeviceRecordSchema),
  sites: collection(SiteRecordSchema),
  outages: collection(OutageRecordSchema),
  paymentHistory: PaymentHistorySchema.optional(),
});

/** A problem in a data set, with the dotted path of the field at fault (e.g. `services.2.clientId`). */
export class SimulatorDataError extends Error {
  override readonly name = 'SimulatorDataError';
  constructor(
    readonly field: string,
    readonly problem: string,
    readonly file?: string,
  ) {
    super(`${file ? `${file}: ` : ''}${field}: ${problem}`);
  }
}

/** Built once per (UTC) day: validating ~3,200 records costs more than copying them. */
let builtSample: { day: string; data: SimulatorData } | undefined;

/** A fresh deep copy of the sample data set; the payment history ends the day before `now`. */
export function sampleData(now: Date = new Date()): SimulatorData {
  const day = now.toISOString().slice(0, 10);
  if (builtSample?.day !== day) builtSample = { day, data: buildData(structuredClone(sample), now) };
  return structuredClone(builtSample.data);
}

/** Reads and validates a data file; errors name the file and the field. */
export async function loadDataFile(path: string, now: Date = new Date()): Promise<SimulatorData> {
  let raw: unknown;
  try {
    raw = JSON.parse(await readFile(path, 'utf8'));
  } catch (error) {
    const detail = error instanceof SyntaxError ? `not valid JSON (${error.message})` : `cannot be read (${(error as Error).message})`;
    throw new SimulatorDataError('(file)', detail, path);
  }
  try {
    return buildData(raw, now);
  } catch (error) {
    if (error instanceof SimulatorDataError) throw new SimulatorDataError(error.field, error.problem, path);
    throw error;
  }
}

// ---------- the embedded simulator's state between CLI commands ----------

/**
 * A saved state is the data set as JSON plus `$state` (which version wrote it, and when): SimulatorData
 * itself, so `subops simulate --data <state file>` serves it too. Its records are checked field by field
 * when loaded (they were complete when saved), without the data file's derived fields or references.
 */
const STATE_VERSION = 1;
const StateFileSchema = DataFileSchema.omit({ paymentHistory: true }).extend({
  $state: z.object({ version: z.literal(STATE_VERSION), savedAt: z.string() }),
});

/** The state saved at `path`; undefined when there is none. Throws SimulatorDataError when it cannot be read or is not a state. */
export async function loadStateFile(path: string): Promise<SimulatorData | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new SimulatorDataError('(file)', `cannot be read (${(error as Error).message})`, path);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new SimulatorDataError('(file)', `not valid JSON (${(error as Error).message})`, path);
  }
  const parsed = StateFileSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new SimulatorDataError(issue.path.join('.') || '(root)', issue.message, path);
  }
  const { $state: _saved, ...data } = parsed.data;
  return data;
}

/**
 * Saves the state at `path` (its folder made if needed) atomically: written to a temporary file beside
 * it, flushed, then renamed over it. A reader (another CLI process) sees the old state or the new one,
 * never a part; when two processes save, the last rename wins.
 */
export async function saveStateFile(path: string, data: SimulatorData, now: Date = new Date()): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const temporary = `${path}.${process.pid}.${randomUUID().slice(0, 8)}.tmp`;
  try {
    const file = await open(temporary, 'w');
    try {
      await file.writeFile(JSON.stringify({ $state: { version: STATE_VERSION, savedAt: now.toISOString() }, ...data }));
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}

/** Forgets the saved state (nothing to do when there is none). */
export async function removeStateFile(path: string): Promise<void> {
  await rm(path, { force: true });
}

/** The data in another world's status numbers, in place (a no-op when they are already that world's). */
export function inWorld(data: SimulatorData, world: SimulatorWorld): SimulatorData {
  const from = data.numbering ?? 'interface';
  for (const service of data.services) service.status = renumbered(service.status, from, world);
  data.numbering = world;
  return data;
}

/** Validates a data set, generates its payment history, checks references and fills derived fields. */
export function buildData(input: unknown, now: Date = new Date()): SimulatorData {
  const parsed = DataFileSchema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new SimulatorDataError(issue.path.join('.') || '(root)', issue.message);
  }
  const { paymentHistory, ...data } = parsed.data;
  if (paymentHistory && paymentHistory.count > 0) {
    if (data.clients.length === 0 || data.paymentMethods.length === 0) {
      throw new SimulatorDataError('paymentHistory', 'needs at least one client and one payment method');
    }
    const firstId = nextId(data.payments.map((p) => p.id));
    const generated = generatePayments(paymentHistory, data.clients.map((c) => ({ id: c.id, since: Date.parse(c.registrationDate) })), data.paymentMethods.map((m) => m.id), firstId, now);
    data.payments.push(...generated.map((payment) => PaymentRecordSchema.parse(payment)));
  }
  checkReferences(data);
  return complete(data);
}

function checkReferences(data: SimulatorData): void {
  const unique = (name: string, ids: readonly (string | number)[]) => {
    const seen = new Set<string | number>();
    ids.forEach((value, index) => {
      if (seen.has(value)) throw new SimulatorDataError(`${name}.${index}.id`, `duplicate id ${value}`);
      seen.add(value);
    });
    return seen;
  };
  const clients = unique('clients', data.clients.map((c) => c.id));
  unique('services', data.services.map((s) => s.id));
  const reasons = unique('suspensionReasons', data.suspensionReasons.map((r) => r.id));
  unique('servicePlans', data.servicePlans.map((p) => p.id));
  const periods = unique('servicePlans.periods', data.servicePlans.flatMap((p) => p.periods.map((period) => period.id)));
  const methods = unique('paymentMethods', data.paymentMethods.map((m) => m.id));
  unique('payments', data.payments.map((p) => p.id));
  unique('invoices', data.invoices.map((i) => i.id));
  const sites = unique('sites', data.sites.map((s) => s.id));

  const mustExist = (known: Set<string | number>, value: string | number | null | undefined, field: string, what: string) => {
    if (value != null && !known.has(value)) throw new SimulatorDataError(field, `no ${what} with id ${value}`);
  };
  data.services.forEach((s, i) => {
    mustExist(clients, s.clientId, `services.${i}.clientId`, 'client');
    mustExist(periods, s.servicePlanPeriodId, `services.${i}.servicePlanPeriodId`, 'service plan period');
    mustExist(reasons, s.suspensionReasonId, `services.${i}.suspensionReasonId`, 'suspension reason');
  });
  data.payments.forEach((p, i) => {
    mustExist(clients, p.clientId, `payments.${i}.clientId`, 'client');
    mustExist(methods, p.methodId, `payments.${i}.methodId`, 'payment method');
  });
  data.invoices.forEach((invoice, i) => mustExist(clients, invoice.clientId, `invoices.${i}.clientId`, 'client'));
  data.sites.forEach((s, i) => {
    mustExist(sites, s.identification.parent?.id, `sites.${i}.identification.parent.id`, 'site');
    mustExist(clients, s.ucrm?.client ? Number(s.ucrm.client.id) : undefined, `sites.${i}.ucrm.client.id`, 'client');
  });
  const devices = unique('devices', data.devices.map((d) => d.identification.id));
  (data.outages ?? []).forEach((o, i) => mustExist(devices, o.deviceId, `outages.${i}.deviceId`, 'device'));
  data.devices.forEach((d, i) => {
    const field = `devices.${i}.identification.site`;
    if (d.identification.authorized && !d.identification.site) throw new SimulatorDataError(field, 'an authorized device needs a site');
    if (!d.identification.authorized && d.identification.site) throw new SimulatorDataError(field, 'a discovered (unauthorized) device has no site');
    mustExist(sites, d.identification.site?.id, `${field}.id`, 'site');
  });
}

function complete(data: SimulatorData): SimulatorData {
  const organization = organizationOf(data);
  let contactId = nextId(data.clients.flatMap((c) => c.contacts.map((contact) => contact.id ?? 0)));
  data.clients.forEach((client) => completeClient(client, organization, () => contactId++));
  data.services.forEach((service) => {
    const { plan, period } = findPlanPeriod(data, service.servicePlanPeriodId)!;
    completeService(service, plan, period, findClient(data, service.clientId)!);
  });
  data.payments.forEach((payment) => completePayment(payment, currencyOf(data, payment.clientId)));
  data.invoices.forEach((invoice) => (invoice.currencyCode ??= currencyOf(data, invoice.clientId)));
  const siteOf = (id: string) => findSite(data, id);
  data.sites.forEach((site) => completeSite(site, siteOf));
  data.devices.forEach((device) => completeDevice(device, findSite(data, device.identification.site?.id), siteOf));
  return data;
}

// ---------- lookups shared by the loader and the route handlers ----------

export function findClient(data: SimulatorData, id: number): ClientRecord | undefined {
  return indexesOf(data).clientById.get(id);
}

export function findPlanPeriod(data: SimulatorData, periodId: number): { plan: ServicePlanRecord; period: PlanPeriodRecord } | undefined {
  for (const plan of data.servicePlans) {
    const period = plan.periods.find((p) => p.id === periodId);
    if (period) return { plan, period };
  }
  return undefined;
}

export function findSite(data: SimulatorData, id: string | undefined): SiteRecord | undefined {
  return id === undefined ? undefined : indexesOf(data).siteById.get(id);
}

export function organizationOf(data: SimulatorData): NonNullable<SimulatorData['organization']> {
  return data.organization ?? DEFAULT_ORGANIZATION;
}

/** A client's currency, or the organization's for a payment without a client. */
export function currencyOf(data: SimulatorData, clientId: number | null): string {
  const client = clientId === null ? undefined : findClient(data, clientId);
  return client?.currencyCode ?? organizationOf(data).currencyCode;
}
