/**
 * Indexes over the simulator's live state, so that a list answers in linear time and a filtered or
 * by-id request in (about) constant time at 30,000 customers.
 *
 * Tests arrange the state by hand — they push onto `sim.data` arrays, splice them, and change records
 * in place (`service.unmsClientSiteId = …`, `device.identification.site = …`) — so no index may trust
 * itself. Two kinds, each correct under any such change:
 * - `ById`: unique ids mapped to a position; a hit is re-checked on the record itself, a miss rebuilds
 *   the map once before answering "none". Valid whatever changed, at no per-request cost.
 * - `Grouped`: records grouped by a key that tests do change in place. Once per request (an epoch the
 *   server advances) it compares every record and its raw key with what it was built from, a pointer
 *   and a primitive per record, and rebuilds when anything differs.
 * `visited` counts every record an index checks, builds from or answers (a lookup counts one at least),
 * and every record a handler scans (`scan`): tests assert an answer's complexity with it, never its wall time.
 */
import type { ClientRecord, DeviceRecord, ServiceRecord, SiteRecord } from './records.js';

/** The lists the indexes cover (the simulator's data: ./data.ts). */
export interface IndexedData {
  clients: ClientRecord[];
  services: ServiceRecord[];
  sites: SiteRecord[];
  devices: DeviceRecord[];
}

type Primitive = string | number | boolean | null | undefined;

class Work {
  visited = 0;
  epoch = 0;
}

class ById<R, K extends string | number> {
  private positions = new Map<K, number>();

  constructor(
    private readonly work: Work,
    private readonly list: () => readonly R[],
    private readonly idOf: (record: R) => K,
  ) {}

  get(id: K): R | undefined {
    this.work.visited++;
    const found = this.at(id);
    if (found) return found;
    this.rebuild();
    return this.at(id);
  }

  private at(id: K): R | undefined {
    const position = this.positions.get(id);
    const record = position === undefined ? undefined : this.list()[position];
    return record !== undefined && this.idOf(record) === id ? record : undefined;
  }

  private rebuild(): void {
    const list = this.list();
    this.work.visited += list.length;
    this.positions = new Map();
    list.forEach((record, position) => {
      if (!this.positions.has(this.idOf(record))) this.positions.set(this.idOf(record), position);
    });
  }
}

class Grouped<R> {
  private records: R[] = [];
  private raw: Primitive[] = [];
  private groups = new Map<string, R[]>();
  private checkedIn = -1;

  /** `rawKey` reads the field as stored (compared with ===); `keys` turns it into the keys looked up. */
  constructor(
    private readonly work: Work,
    private readonly list: () => R[],
    private readonly rawKey: (record: R) => Primitive,
    private readonly keys: (raw: Primitive) => readonly string[],
  ) {}

  get(key: string): readonly R[] {
    this.check();
    const group = this.groups.get(key) ?? [];
    this.work.visited += Math.max(1, group.length);
    return group;
  }

  private check(): void {
    const list = this.list();
    if (this.checkedIn === this.work.epoch && list.length === this.records.length) return;
    this.checkedIn = this.work.epoch;
    this.work.visited += list.length;
    if (list.length === this.records.length && list.every((record, i) => record === this.records[i] && this.rawKey(record) === this.raw[i])) return;
    this.rebuild(list);
  }

  private rebuild(list: R[]): void {
    this.work.visited += list.length;
    this.records = [...list];
    this.raw = list.map(this.rawKey);
    this.groups = new Map();
    list.forEach((record, i) => {
      for (const key of this.keys(this.raw[i])) {
        const group = this.groups.get(key);
        if (group) group.push(record);
        else this.groups.set(key, [record]);
      }
    });
  }
}

const asKey = (raw: Primitive): readonly string[] => (raw === null || raw === undefined ? [] : [String(raw)]);

/** An IP address without its prefix length, as `GET /sites?ip=` compares them. */
export function hostOf(ip: string): string {
  return ip.trim().split('/')[0]!.toLowerCase();
}

/** A MAC address as 12 lower-case hex digits, whatever its separators. */
export function macKey(mac: string): string {
  return mac.toLowerCase().replace(/[^0-9a-f]/g, '');
}

export class Indexes {
  private readonly work = new Work();
  readonly clientById: ById<ClientRecord, number>;
  readonly serviceById: ById<ServiceRecord, number>;
  readonly siteById: ById<SiteRecord, string>;
  readonly deviceById: ById<DeviceRecord, string>;
  readonly servicesByClient: Grouped<ServiceRecord>;
  /** Services by the site they are bound to (`unmsClientSiteId`). */
  readonly servicesBySite: Grouped<ServiceRecord>;
  readonly sitesByParent: Grouped<SiteRecord>;
  readonly devicesBySite: Grouped<DeviceRecord>;
  readonly devicesByMac: Grouped<DeviceRecord>;
  /** By `ipAddress` and by `identification.ip`, each without its prefix length. */
  readonly devicesByAddress: Grouped<DeviceRecord>;
  readonly devicesByIp: Grouped<DeviceRecord>;

  constructor(data: IndexedData) {
    const work = this.work;
    this.clientById = new ById(work, () => data.clients, (c) => c.id);
    this.serviceById = new ById(work, () => data.services, (s) => s.id);
    this.siteById = new ById(work, () => data.sites, (s) => s.id);
    this.deviceById = new ById(work, () => data.devices, (d) => d.identification.id);
    this.servicesByClient = new Grouped(work, () => data.services, (s) => s.clientId, asKey);
    this.servicesBySite = new Grouped(work, () => data.services, (s) => s.unmsClientSiteId, asKey);
    this.sitesByParent = new Grouped(work, () => data.sites, (s) => s.identification.parent?.id, asKey);
    this.devicesBySite = new Grouped(work, () => data.devices, (d) => d.identification.site?.id, asKey);
    this.devicesByMac = new Grouped(work, () => data.devices, (d) => d.identification.mac, (raw) => (typeof raw === 'string' ? [macKey(raw)] : []));
    this.devicesByAddress = new Grouped(work, () => data.devices, (d) => d.ipAddress, (raw) => (typeof raw === 'string' ? [hostOf(raw)] : []));
    this.devicesByIp = new Grouped(work, () => data.devices, (d) => d.identification.ip, (raw) => (typeof raw === 'string' ? [hostOf(raw)] : []));
  }

  /** A new request: grouped indexes check themselves again before their next answer. */
  newRequest(): void {
    this.work.epoch++;
  }

  /** Counts the records a handler scans itself; returns the list. */
  scan<T>(list: T[]): T[] {
    this.work.visited += list.length;
    return list;
  }

  get visited(): number {
    return this.work.visited;
  }
}

const byData = new WeakMap<IndexedData, Indexes>();

/** The indexes of one live state (made on first use). */
export function indexesOf(data: IndexedData): Indexes {
  let indexes = byData.get(data);
  if (!indexes) byData.set(data, (indexes = new Indexes(data)));
  return indexes;
}
