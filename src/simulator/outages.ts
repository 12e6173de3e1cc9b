/**
 * NMS outages (NMS Swagger, `GET /outages`, operationId getOutages): a device that stops answering is an
 * outage from its start until it is back. Tests take a device down and bring it back (`takeDown`,
 * `bringBack`); each is kept as a record with its start and end, and the device's status says it.
 *
 * The answer (Swagger `Outages`): `{pagination: {count, total, page, pages}, aggregation: {allCount,
 * outageCount, unreachableCount}, items: Outage[]}`, newest first. An Outage is `{id, startTimestamp,
 * endTimestamp, type (outage | unreachable), aggregatedTime (ms), inProgress, site (SiteIdentification),
 * device (DeviceOutage: id, name, displayName, model, modelName, role, ip, mac, …, site), deviceMetadata
 * ({alias}), affectedDevices, children}`. The Swagger requires `endTimestamp`: while an outage lasts the
 * simulator gives the moment of the answer (and `aggregatedTime` up to it).
 *
 * Parameters: `count` and `page` (required, ≥ 1); `deviceId`, `siteId` (one each); `inProgress`,
 * `haveEnded`; `type`; `query` (the device's or the site's name); `start` (ms) and `period` (ms, ≥ 3600):
 * the outages overlapping `[start, start + period]`, or `[now - period, now]` without `start`; neither:
 * the last month ("List of all network outages for last month"). `grouped`: the overlapping outages of
 * one site's devices are one item, the earliest the parent, the others' ids its `children`,
 * `affectedDevices` their number, in progress while any of them is.
 */
import { randomUUID } from 'node:crypto';
import type { SimulatorData } from './data.js';
import { indexesOf } from './indexes.js';
import type { DeviceRecord, OutageRecord, SiteRecord } from './records.js';

const MONTH_MS = 30 * 24 * 3600 * 1000;

function authorizedDevice(data: SimulatorData, deviceId: string): DeviceRecord {
  const device = indexesOf(data).deviceById.get(deviceId);
  if (!device?.identification.authorized) throw new Error(`no authorized device ${deviceId} to take down or bring back`);
  return device;
}

function setStatus(device: DeviceRecord, status: 'active' | 'disconnected', at: Date): void {
  device.identification.status = status;
  device.overview.status = status;
  if (status === 'active') device.overview.lastSeen = at.toISOString();
}

/** The device stops answering at `at` (an outage in progress); a device already down stays as it is. */
export function takeDown(data: SimulatorData, deviceId: string, at: Date): OutageRecord {
  const device = authorizedDevice(data, deviceId);
  const outages = (data.outages ??= []);
  const open = outages.find((o) => o.deviceId === deviceId && o.end === null);
  if (open) return open;
  const outage: OutageRecord = { id: randomUUID(), deviceId, type: 'outage', start: at.toISOString(), end: null };
  outages.push(outage);
  setStatus(device, 'disconnected', at);
  return outage;
}

/** The device answers again at `at`: its outage ends. Undefined when it was not down. */
export function bringBack(data: SimulatorData, deviceId: string, at: Date): OutageRecord | undefined {
  const device = authorizedDevice(data, deviceId);
  const open = data.outages?.find((o) => o.deviceId === deviceId && o.end === null);
  if (!open) return undefined;
  open.end = at.toISOString();
  setStatus(device, 'active', at);
  return open;
}

export interface OutageQuery {
  count: number;
  page: number;
  deviceId?: string | undefined;
  siteId?: string | undefined;
  inProgress?: boolean | undefined;
  haveEnded?: boolean | undefined;
  type?: 'outage' | 'unreachable' | undefined;
  query?: string | undefined;
  start?: number | undefined;
  period?: number | undefined;
  grouped?: boolean | undefined;
}

interface Span {
  records: OutageRecord[];
  device: DeviceRecord | undefined;
  site: SiteRecord | undefined;
  start: number;
  /** Infinity while in progress. */
  end: number;
}

const endOf = (o: OutageRecord) => (o.end === null ? Number.POSITIVE_INFINITY : Date.parse(o.end));

/** The Swagger's `Outages` answer for the query, at `now`. */
export function outagesAnswer(data: SimulatorData, query: OutageQuery, now: Date): unknown {
  const indexes = indexesOf(data);
  const nowMs = now.getTime();
  const period = query.period ?? MONTH_MS;
  const [from, to] = query.start === undefined ? [nowMs - period, nowMs] : [query.start, query.start + period];
  const spans: Span[] = (data.outages ?? []).map((record) => {
    const device = indexes.deviceById.get(record.deviceId);
    return { records: [record], device, site: indexes.siteById.get(device?.identification.site?.id ?? ''), start: Date.parse(record.start), end: endOf(record) };
  });
  const needle = query.query?.trim().toLowerCase();
  const matching = (query.grouped ? grouped(spans) : spans).filter(
    (span) =>
      span.start <= to &&
      span.end >= from &&
      (query.deviceId === undefined || span.records.some((r) => r.deviceId === query.deviceId)) &&
      (query.siteId === undefined || span.site?.id === query.siteId) &&
      (query.inProgress === undefined || (span.end === Number.POSITIVE_INFINITY) === query.inProgress) &&
      (query.haveEnded === undefined || (span.end !== Number.POSITIVE_INFINITY) === query.haveEnded) &&
      (query.type === undefined || span.records[0]!.type === query.type) &&
      (!needle || [span.device?.identification.name, span.site?.identification.name].some((name) => name?.toLowerCase().includes(needle))),
  );
  matching.sort((a, b) => b.start - a.start);
  const page = matching.slice((query.page - 1) * query.count, query.page * query.count);
  const unreachable = matching.filter((s) => s.records[0]!.type === 'unreachable').length;
  return {
    pagination: { count: query.count, total: matching.length, page: query.page, pages: Math.max(1, Math.ceil(matching.length / query.count)) },
    aggregation: { allCount: matching.length, outageCount: matching.length - unreachable, unreachableCount: unreachable },
    items: page.map((span) => outageItem(span, nowMs)),
  };
}

/** One site's overlapping outages as one span, the earliest first (its parent). */
function grouped(spans: Span[]): Span[] {
  const bySite = new Map<string, Span[]>();
  for (const span of [...spans].sort((a, b) => a.start - b.start)) {
    const key = span.site?.id ?? `device:${span.records[0]!.deviceId}`;
    const groups = bySite.get(key) ?? [];
    const last = groups.at(-1);
    if (last && span.start <= last.end) {
      last.records.push(...span.records);
      last.end = Math.max(last.end, span.end);
    } else groups.push({ ...span, records: [...span.records] });
    bySite.set(key, groups);
  }
  return [...bySite.values()].flat();
}

const siteIdentification = (site: SiteRecord) => ({
  id: site.id,
  status: site.identification.status,
  name: site.identification.name,
  type: site.identification.type,
  parent: site.identification.parent ? { id: site.identification.parent.id } : null,
});

function outageItem(span: Span, nowMs: number): unknown {
  const [first, ...children] = span.records;
  const inProgress = span.end === Number.POSITIVE_INFINITY;
  const end = inProgress ? nowMs : span.end;
  const id = span.device?.identification;
  return {
    id: first!.id,
    startTimestamp: new Date(span.start).toISOString(),
    endTimestamp: new Date(end).toISOString(),
    type: first!.type,
    aggregatedTime: Math.max(1, end - span.start),
    inProgress,
    site: span.site ? siteIdentification(span.site) : null,
    device: id && {
      id: id.id,
      firmwareVersion: id.firmwareVersion ?? '',
      model: id.model ?? '',
      modelName: id.modelName ?? '',
      name: id.name,
      displayName: id.displayName ?? id.name,
      mac: id.mac ?? '',
      type: id.type ?? '',
      category: id.category ?? '',
      role: id.role ?? '',
      site: span.site ? siteIdentification(span.site) : null,
      authorized: id.authorized,
      serialNumber: id.serialNumber ?? '',
      platformId: id.model ?? '',
      platformName: id.modelName ?? '',
      ip: span.device?.ipAddress ?? '',
    },
    deviceMetadata: { alias: '' },
    affectedDevices: span.records.length,
    children: children.map((c) => c.id),
  };
}
