/**
 * A realistic data set of any size, for benchmarks and scale tests: `customers` CRM clients (about one in
 * ten with a second service), an endpoint site per live client (an Active or Suspended service) under a
 * tower and bound to that service, a station on each such site and a router on one in five (about 1.2
 * devices per client), an AP on every tower (one tower per 150 clients) and a router at the NOC, one
 * discovered device per 100 clients, and a year of monthly payments by the clients with a live service.
 * Plans, methods and suspension reasons are the sample data's. The same options give the same data set.
 * `subops simulate --generate <customers> --out <file>` writes one; bench code calls generateDataSet.
 */
import sample from './sample-data.json' with { type: 'json' };
import { seededRandom } from './prng.js';
import { uispDateTime } from './records.js';
import { WORLD_STATUSES } from './world.js';

export interface GenerateOptions {
  customers: number;
  /** Default 1. */
  seed?: number;
  /** The payments end the day before; default now. */
  now?: Date;
}

const FIRST_NAMES = ['Marcus', 'Priya', 'Dwayne', 'Shanice', 'Ravi', 'Leon', 'Kevin', 'Aaliyah', 'Devon', 'Kamla', 'Tyrone', 'Anita', 'Rohan', 'Keisha', 'Andre', 'Savitri', 'Jamal', 'Nadira', 'Colin', 'Petal'];
const LAST_NAMES = ['Baptiste', 'Ramnarine', 'Fraser', 'Williams', 'Persaud', 'Hope', 'Singh', 'Thomas', 'Mohamed', 'Charles', 'Khan', 'Jones', 'Griffith', 'Ali', 'Bacchus', 'Rodrigues', 'Dookie', 'Harris', 'Sampson', 'Lall'];
const COMPANY_WORDS = ['Marine', 'Hardware', 'Trading', 'Pharmacy', 'Lumber', 'Rice Mill', 'Motors', 'Bakery'];
const DAY_MS = 86_400_000;
const CLIENTS_PER_TOWER = 150;
const FIRST_CLIENT_ID = 1001;
const FIRST_SERVICE_ID = 101;

/** A fixed-format id: the kind's prefix and a counter (UUID-shaped, as NMS ids are). */
const uuid = (prefix: string, n: number) => `${prefix}-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
const mac = (prefix: number, n: number) => [prefix, (n >> 24) & 255, (n >> 16) & 255, (n >> 8) & 255, n & 255].reduce((text, byte) => `${text}:${byte.toString(16).padStart(2, '0')}`, '02');
/** 10.(64+n/65536).(n/256).(n%256): room for four million addresses. */
const ip = (n: number) => `10.${64 + ((n >> 16) & 63)}.${(n >> 8) & 255}.${n & 255}`;

/** The data set as a data file holds it (SimulatorData's shape, UISP's defaults left out): give it to buildData, or write it as JSON. */
export function generateDataSet({ customers, seed = 1, now = new Date() }: GenerateOptions): Record<string, unknown> {
  if (!Number.isInteger(customers) || customers < 1) throw new RangeError(`customers must be a whole number ≥ 1 (got ${customers})`);
  const random = seededRandom(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  const chance = (p: number) => random() < p;
  const statuses = WORLD_STATUSES.interface;
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const periods = [
    { id: 37, price: 10_000, weight: 6 },
    { id: 21, price: 6_500, weight: 3 },
    { id: 45, price: 25_000, weight: 1 },
  ].flatMap((period) => Array<typeof period>(period.weight).fill(period));

  const noc = uuid('5e000000', 0);
  const towers = Array.from({ length: Math.ceil(customers / CLIENTS_PER_TOWER) }, (_, i) => uuid('5e000000', i + 1));
  const sites: unknown[] = [
    { id: noc, identification: { name: 'Network Operations Centre', type: 'site', parent: null } },
    ...towers.map((id, i) => ({ id, identification: { name: `Tower ${i + 1}`, type: 'site', parent: { id: noc } } })),
  ];
  let deviceNumber = 0;
  const device = (site: string | null, name: string, fields: { model: string; type: string; role: string; mode: string }) => {
    const n = ++deviceNumber;
    return {
      identification: { id: uuid('de000000', n), name, mac: mac(0x5a, n), ip: ip(n), model: fields.model, type: fields.type, role: fields.role, category: 'wireless', authorized: site !== null, site: site && { id: site } },
      ipAddress: `${ip(n)}/16`,
      mode: fields.mode,
      overview: { uptime: Math.floor(random() * 5_000_000), signal: fields.role === 'station' ? -50 - Math.floor(random() * 30) : null },
    };
  };
  const router = { model: 'ER-X', type: 'erouter', role: 'router', mode: 'router' };
  const ap = { model: 'R5AC-PRISM', type: 'airMax', role: 'ap', mode: 'ap-ptmp' };
  const station = { model: 'LBE-5AC-Gen2', type: 'airMax', role: 'station', mode: 'sta-ptmp' };
  const devices: unknown[] = [device(noc, 'noc-router', router), ...towers.map((tower, i) => device(tower, `tower-${i + 1}-ap`, ap))];

  const clients: unknown[] = [];
  const services: unknown[] = [];
  const payers: { clientId: number; price: number; since: number }[] = [];
  let serviceId = FIRST_SERVICE_ID;
  const fiveYears = 5 * 365 * DAY_MS;
  for (let i = 0; i < customers; i++) {
    const id = FIRST_CLIENT_ID + i;
    // Registered in id order over the five years before today.
    const since = today - fiveYears + Math.floor((i / customers) * fiveYears);
    const company = chance(0.08);
    const firstName = pick(FIRST_NAMES);
    const lastName = pick(LAST_NAMES);
    const name = company ? `${lastName} ${pick(COMPANY_WORDS)} ${i + 1}` : `${firstName} ${lastName}`;
    clients.push({
      id,
      userIdent: `C-${id}`,
      ...(company ? { clientType: 2, companyName: name } : { firstName, lastName }),
      isArchived: chance(0.02),
      city: 'Georgetown',
      registrationDate: uispDateTime(new Date(since)),
      contacts: [{ email: `client${id}@example.com`, phone: `+592 6${String(id).padStart(6, '0')}` }],
    });
    const draw = random();
    const status = draw < 0.85 ? statuses.active : draw < 0.9 ? statuses.suspended : draw < 0.94 ? statuses.ended : draw < 0.97 ? statuses.quoted : statuses.obsolete;
    const period = pick(periods);
    const activeFrom = uispDateTime(new Date(since + 7 * DAY_MS));
    const first = serviceId++;
    const live = status === statuses.active || status === statuses.suspended;
    const site = uuid('c1000000', i);
    services.push({
      id: first,
      clientId: id,
      status,
      servicePlanPeriodId: period.id,
      activeFrom,
      invoicingStart: activeFrom,
      ...(status === statuses.suspended && { suspensionReasonId: 1 }),
      ...(live && { unmsClientSiteId: site }),
    });
    if (chance(0.1)) services.push({ id: serviceId++, clientId: id, status: statuses.active, servicePlanPeriodId: 21, activeFrom, invoicingStart: activeFrom });
    if (!live) continue;
    sites.push({ id: site, identification: { name, type: 'endpoint', parent: { id: towers[Math.floor(i / CLIENTS_PER_TOWER)] } }, description: { address: `Lot ${i + 1}, Georgetown` } });
    devices.push(device(site, `cpe-${id}`, station));
    if (chance(0.2)) devices.push(device(site, `router-${id}`, router));
    if (status === statuses.active) payers.push({ clientId: id, price: period.price, since });
  }
  for (let i = 0; i < Math.ceil(customers / 100); i++) devices.push(device(null, `LBE-new-${i + 1}`, station));

  return {
    organization: sample.organization,
    suspensionReasons: sample.suspensionReasons,
    servicePlans: sample.servicePlans,
    paymentMethods: sample.paymentMethods,
    clients,
    services,
    sites,
    devices,
    payments: yearOfPayments(payers, today, random, sample.paymentMethods.map((m) => m.id)),
  };
}

/** Nine in ten months, each payer pays the plan's price once, on its own day of the month; oldest first. */
function yearOfPayments(payers: readonly { clientId: number; price: number; since: number }[], today: number, random: () => number, methods: readonly string[]) {
  const payments: { at: number; clientId: number; amount: number; methodId: string }[] = [];
  for (const payer of payers) {
    const day = Math.floor(random() * 30);
    for (let month = 0; month < 12; month++) {
      const at = today - (month * 30 + day + 1) * DAY_MS + (8 + Math.floor(random() * 10)) * 3_600_000;
      if (at >= payer.since && random() < 0.9) payments.push({ at, clientId: payer.clientId, amount: payer.price, methodId: methods[Math.floor(random() * methods.length)]! });
    }
  }
  payments.sort((a, b) => a.at - b.at);
  return payments.map(({ at, ...payment }, index) => ({ id: index + 1, createdDate: uispDateTime(new Date(at)), ...payment }));
}
