/**
 * NMS v2.1 endpoints: devices (authorized and discovered), device authorization and sites, per the NMS
 * Swagger. Errors use the NMS shape {statusCode, error, message}; invalid bodies answer 400 with the
 * offending keys under `validation`, as UISP's API server does.
 */
import { STATUS_CODES } from 'node:http';
import { z } from 'zod';
import { findClient, findPlanPeriod, findSite, type SimulatorData } from './data.js';
import { hostOf, indexesOf, macKey } from './indexes.js';
import { outagesAnswer } from './outages.js';
import { completeDevice, completeSite, SiteRecordSchema, type DeviceRecord, type SiteRecord } from './records.js';
import { ApiError, issuesByField, Router, type Api, type Reply, type RouteRequest } from './router.js';

function nmsError(status: number, message?: string, validation?: unknown): Reply {
  const error = STATUS_CODES[status] ?? 'Error';
  return { status, body: { statusCode: status, error, message: message ?? error, ...(validation === undefined ? {} : { validation }) } };
}

function parse<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input ?? {});
  if (result.success) return result.data;
  const fields = issuesByField(result.error, input ?? {}, 'is required');
  const message = Object.entries(fields)
    .map(([field, problems]) => `"${field}" ${problems.join(', ')}`)
    .join('. ');
  throw new ApiError(nmsError(400, message, { source: 'payload', keys: Object.keys(fields) }));
}

const ok = (body: unknown): Reply => ({ status: 200, body });

/**
 * A site's binding: a CRM service whose `unmsClientSiteId` names it (as UISP records it), else a client
 * set on the stored record by hand.
 */
function bindingOf({ data, indexes }: Pick<RouteRequest, 'data' | 'indexes'>, site: SiteRecord) {
  const service = indexes.servicesBySite.get(site.id)[0];
  const client = service ? findClient(data, service.clientId) : undefined;
  const clientRef = client ? { id: String(client.id), name: [client.firstName, client.lastName].filter(Boolean).join(' ') || client.companyName || '', isLead: client.isLead } : (site.ucrm?.client ?? null);
  return { service, clientRef };
}

/**
 * A site as the world's NMS answers it (./world.ts). The interface world shows the client in `ucrm` and
 * `description.ucrmId` always; the stock world shows `ucrm` ({client, service}) only with
 * `ucrmDetails=true`, and `description.ucrmId` is the bound service's id.
 */
function presented(request: Pick<RouteRequest, 'data' | 'world' | 'query' | 'indexes'>, site: SiteRecord): unknown {
  const { data, world, query } = request;
  const { service, clientRef } = bindingOf(request, site);
  // The Swagger's `service` of SiteUcrmDescription.
  const serviceRef = service
    ? {
        id: String(service.id),
        name: service.name ?? '',
        status: service.status,
        activeFrom: new Date(Date.parse(service.activeFrom)).toISOString(),
        tariffId: String(findPlanPeriod(data, service.servicePlanPeriodId)?.plan.id ?? ''),
        trafficShapingOverrideEnabled: false,
        totalPrice: service.price ?? 0,
        currencyCode: service.currencyCode ?? '',
      }
    : null;
  const ucrm = clientRef ? { client: clientRef, service: serviceRef } : null;
  if (world === 'interface') return { ...site, description: { ...site.description, ucrmId: clientRef?.id ?? site.description.ucrmId }, ucrm };
  const { ucrm: _stored, ...rest } = site;
  const details = ['true', '1'].includes(query.ucrmDetails ?? '');
  return { ...rest, description: { ...site.description, ucrmId: serviceRef?.id ?? null }, ...(details && { ucrm }) };
}

// ---------- the official list filters (./world.ts says which a world honours) ----------

const SITE_TYPES: Record<string, 'site' | 'endpoint'> = { site: 'site', endpoint: 'endpoint', client: 'endpoint', subscriber: 'endpoint' };

function badQuery(key: string, message: string): ApiError {
  return new ApiError(nmsError(400, `"${key}" ${message}`, { source: 'query', keys: [key] }));
}

function booleanQuery(query: Record<string, string>, key: string): boolean | undefined {
  const value = query[key];
  if (value === undefined) return undefined;
  if (value === 'true' || value === '1') return true;
  if (value === 'false' || value === '0') return false;
  throw badQuery(key, 'must be a boolean');
}

/** `type` and `ucrm` of GET /sites and /sites/search, where honoured: whether a site passes them. */
function siteKindFilter(request: RouteRequest): (site: SiteRecord) => boolean {
  const { query, honours } = request;
  const typeName = honours('sites.type') ? query.type : undefined;
  const type = typeName === undefined ? undefined : SITE_TYPES[typeName];
  if (typeName !== undefined && type === undefined) throw badQuery('type', `must be one of [${Object.keys(SITE_TYPES).join(', ')}]`);
  const bound = honours('sites.ucrm') ? booleanQuery(query, 'ucrm') : undefined;
  return (site) => (type === undefined || site.identification.type === type) && (bound === undefined || (bindingOf(request, site).clientRef !== null) === bound);
}

/** The site ids of the authorized devices with this IP address (either field, prefix ignored). */
function sitesWithDeviceIp({ indexes }: RouteRequest, ip: string): Set<string> {
  const host = hostOf(ip);
  const devices = [...indexes.devicesByAddress.get(host), ...indexes.devicesByIp.get(host)];
  return new Set(devices.flatMap((device) => (device.identification.authorized && device.identification.site ? [device.identification.site.id] : [])));
}

/**
 * GET /sites: every site, or, where honoured, those with the given `id`s, the site of `deviceId`, the
 * sites with a device of `ip`, narrowed by `type` and `ucrm`: found through the indexes, not a scan.
 */
function listSites(request: RouteRequest): Reply {
  const { data, query, honours, indexes } = request;
  const narrowings: string[][] = [];
  const ids = honours('sites.id') ? request.queryValues('id') : [];
  if (ids.length > 0) narrowings.push(ids);
  if (honours('sites.deviceId') && query.deviceId !== undefined) {
    const site = indexes.deviceById.get(query.deviceId)?.identification.site;
    narrowings.push(site ? [site.id] : []);
  }
  if (honours('sites.ip') && query.ip !== undefined) narrowings.push([...sitesWithDeviceIp(request, query.ip)]);
  const passes = siteKindFilter(request);
  const candidates =
    narrowings.length === 0
      ? indexes.scan(data.sites)
      : [...new Set(narrowings[0])].filter((id) => narrowings.every((ids) => ids.includes(id))).flatMap((id) => indexes.siteById.get(id) ?? []);
  return ok(candidates.filter(passes).map((site) => presented(request, site)));
}

const SearchQuery = z.object({ count: z.coerce.number().int().min(1), page: z.coerce.number().int().min(1), query: z.string().optional() });

/** GET /sites/search: sites whose name or address holds the text, or with a device whose MAC or IP does; one page. */
function searchSites(request: RouteRequest): Reply {
  const { data, query, honours, indexes } = request;
  if (!honours('sites.search')) throw new ApiError(nmsError(404, 'Site not found.'));
  const parsed = SearchQuery.safeParse(query);
  if (!parsed.success) throw badQuery(String(parsed.error.issues[0]!.path[0]), 'must be a number of at least 1');
  const { count, page, query: text = '' } = parsed.data;
  const needle = text.trim().toLowerCase();
  const macNeedle = macKey(needle);
  const byDevice = new Set(
    indexes
      .scan(data.devices)
      .filter((d) => d.identification.site && needle && ((macNeedle.length >= 2 && macKey(d.identification.mac ?? '').includes(macNeedle)) || d.ipAddress.includes(needle) || (d.identification.ip ?? '').includes(needle)))
      .map((d) => d.identification.site!.id),
  );
  const passes = siteKindFilter(request);
  const found = indexes
    .scan(data.sites)
    .filter((site) => (!needle || site.identification.name.toLowerCase().includes(needle) || (site.description.address ?? '').toLowerCase().includes(needle) || byDevice.has(site.id)) && passes(site));
  return ok(found.slice((page - 1) * count, page * count).map((site) => presented(request, site)));
}

/** GET /sites/{id}/clients: the ids of the endpoint sites under the site (its whole subtree with `recursive`). */
function clientSites(request: RouteRequest): Reply {
  const { data, params, query, honours, indexes } = request;
  if (!honours('sites.clients')) throw new ApiError(nmsError(404));
  const site = siteById(data, params.id);
  const recursive = booleanQuery(query, 'recursive') ?? false;
  const endpoints: string[] = [];
  const pending = [site.id];
  const seen = new Set(pending);
  while (pending.length > 0) {
    for (const child of indexes.sitesByParent.get(pending.shift()!)) {
      if (child.identification.type === 'endpoint') endpoints.push(child.id);
      if (!recursive || seen.has(child.id)) continue;
      seen.add(child.id);
      pending.push(child.id);
    }
  }
  return ok(endpoints);
}

/** GET /devices: the authorized devices, or, where honoured, those on `siteId`. */
function listDevices({ data, query, honours, indexes }: RouteRequest): Reply {
  const devices = honours('devices.siteId') && query.siteId !== undefined ? indexes.devicesBySite.get(query.siteId) : indexes.scan(data.devices);
  return ok(devices.filter((d) => d.identification.authorized));
}

const MAC = /^([0-9a-fA-F]{2}:){5}[0-9a-fA-F]{2}$|^[0-9a-fA-F]{12}$/;

/** GET /devices/mac/{mac} (Swagger Model40: id, type, series), the authorized device first. */
function deviceByMac({ params, honours, indexes }: RouteRequest): Reply {
  if (!honours('devices.mac')) throw new ApiError(nmsError(404));
  const mac = params.mac ?? '';
  if (!MAC.test(mac)) throw badQuery('mac', 'must be a MAC address');
  const devices = indexes.devicesByMac.get(macKey(mac));
  const device = devices.find((d) => d.identification.authorized) ?? devices[0];
  if (!device) throw new ApiError(nmsError(404, 'Device not found.'));
  const { id, type, series } = device.identification;
  return ok({ id, type: type ?? '', series: typeof series === 'string' ? series : '' });
}

const OutagesQuery = z.object({
  count: z.coerce.number().int().min(1),
  page: z.coerce.number().int().min(1),
  start: z.coerce.number().min(1).optional(),
  period: z.coerce.number().min(3600).optional(),
  type: z.enum(['outage', 'unreachable']).optional(),
  query: z.string().min(1).optional(),
  deviceId: z.string().min(1).optional(),
  siteId: z.string().min(1).optional(),
});

/** GET /outages (./outages.ts): a path the interface document does not list, so a 404 where not honoured. */
function listOutages(request: RouteRequest): Reply {
  const { data, query, honours } = request;
  if (!honours('outages')) throw new ApiError(nmsError(404));
  const parsed = OutagesQuery.safeParse(query);
  if (!parsed.success) {
    const key = String(parsed.error.issues[0]!.path[0]);
    throw badQuery(key, query[key] === undefined ? 'is required' : 'is not valid');
  }
  const flags = { inProgress: booleanQuery(query, 'inProgress'), haveEnded: booleanQuery(query, 'haveEnded'), grouped: booleanQuery(query, 'grouped') };
  return ok(outagesAnswer(data, { ...parsed.data, ...flags }, new Date()));
}

const optionalText = z.string().optional();

/** CreateSite from the Swagger (the type enum narrowed to what UISP reports back: site or endpoint). */
const CreateSiteBody = z.object({
  name: z.string().trim().min(1).max(100),
  parentSiteId: z.string().min(1).optional(),
  type: z.enum(['site', 'endpoint']).default('site'),
  address: optionalText,
  note: optionalText,
  contactName: optionalText,
  contactPhone: optionalText,
  contactEmail: optionalText,
  location: z.object({ latitude: z.number(), longitude: z.number() }).optional(),
  height: z.number().optional(),
  elevation: z.number().optional(),
});

const AuthorizeBody = z.object({ siteId: z.string().min(1) });
/** Model169 of the Swagger: the current endpoint authorizes several devices onto one site. */
const BulkAuthorizeBody = z.object({ siteId: z.string().min(1), deviceIds: z.array(z.string().min(1)).min(1) });

function deviceById(data: SimulatorData, id: string | undefined): DeviceRecord {
  const device = id === undefined ? undefined : indexesOf(data).deviceById.get(id);
  if (!device) throw new ApiError(nmsError(404, 'Device not found.'));
  return device;
}

function siteById(data: SimulatorData, id: string | undefined): SiteRecord {
  const site = findSite(data, id);
  if (!site) throw new ApiError(nmsError(404, 'Site not found.'));
  return site;
}

/** A site a body refers to: an unknown one is a bad request, not a missing resource. */
function referencedSite(data: SimulatorData, id: string, key: string): SiteRecord {
  const site = findSite(data, id);
  if (!site) throw new ApiError(nmsError(400, `Site ${id} not found.`, { source: 'payload', keys: [key] }));
  return site;
}

function createSite(request: RouteRequest): Reply {
  const { data, body } = request;
  const fields = parse(CreateSiteBody, body);
  const parent = fields.parentSiteId === undefined ? null : referencedSite(data, fields.parentSiteId, 'parentSiteId');
  const site = SiteRecordSchema.parse({
    id: request.newSiteId(),
    identification: { name: fields.name, type: fields.type, parent: parent && { id: parent.id } },
    description: {
      address: fields.address,
      note: fields.note,
      contact: { name: fields.contactName, phone: fields.contactPhone, email: fields.contactEmail },
      location: fields.location,
      height: fields.height,
      elevation: fields.elevation,
    },
  });
  data.sites.push(completeSite(site, (id) => findSite(data, id)));
  return ok(presented(request, site));
}

/**
 * PUT /sites/{id} (Swagger `SiteUpdate`: `identification` and `description` are required). The simulator
 * applies the name and the description's note; it does not move a site to another parent.
 */
const UpdateSiteBody = z.object({
  identification: z.object({ name: z.string().min(1) }).passthrough(),
  description: z.object({ note: z.string().nullish() }).passthrough(),
});

function updateSite(request: RouteRequest): Reply {
  const { data, params, body } = request;
  const site = siteById(data, params.id);
  const { identification, description } = parse(UpdateSiteBody, body);
  site.identification.name = identification.name;
  site.description = { ...site.description, note: description.note ?? null };
  return ok(presented(request, site));
}

/** Admits a discovered device onto the network under the site; an authorized one moves to the site. */
function admit(data: SimulatorData, device: DeviceRecord, site: SiteRecord): void {
  device.identification.authorized = true;
  device.identification.status = 'active';
  device.overview.status = 'active';
  completeDevice(device, site, (id) => findSite(data, id));
}

/** POST /devices/{id}/authorize (deprecated in the Swagger in favour of POST /devices/authorize). */
function authorizeDevice({ data, params, body }: RouteRequest): Reply {
  const { siteId } = parse(AuthorizeBody, body);
  const device = deviceById(data, params.id);
  admit(data, device, referencedSite(data, siteId, 'siteId'));
  return ok({ result: true, message: 'Device authorized.' });
}

/** NMS deletes only an empty site: no devices on it and no sites under it. */
function deleteSite({ data, params }: RouteRequest): Reply {
  const site = siteById(data, params.id);
  const inUse = data.devices.some((d) => d.identification.site?.id === site.id) || data.sites.some((s) => s.identification.parent?.id === site.id);
  if (inUse) throw new ApiError(nmsError(400, 'Site is not empty.'));
  data.sites.splice(data.sites.indexOf(site), 1);
  return ok({ result: true, message: 'Site deleted.' });
}

/** POST /devices/authorize: every device must exist before any is authorized. */
function authorizeDevices({ data, body }: RouteRequest): Reply {
  const { siteId, deviceIds } = parse(BulkAuthorizeBody, body);
  const devices = deviceIds.map((id) => deviceById(data, id));
  const site = referencedSite(data, siteId, 'siteId');
  for (const device of devices) admit(data, device, site);
  return ok({ result: true, message: devices.length === 1 ? 'Device authorized.' : 'Devices authorized.' });
}

const router = new Router()
  .on('GET', '/devices', listDevices)
  .on('GET', '/devices/discovered', ({ data, indexes }) => ok(indexes.scan(data.devices).filter((d) => !d.identification.authorized)))
  .on('GET', '/devices/mac/:mac', deviceByMac)
  // Before /devices/:id, which would take "authorize" as an id.
  .on('POST', '/devices/authorize', authorizeDevices)
  .on('GET', '/devices/:id', ({ data, params }) => ok(deviceById(data, params.id)))
  .on('POST', '/devices/:id/authorize', authorizeDevice)
  .on('GET', '/outages', listOutages)
  .on('GET', '/sites', listSites)
  .on('POST', '/sites', createSite)
  // Before /sites/:id, which would take "search" as an id.
  .on('GET', '/sites/search', searchSites)
  .on('GET', '/sites/:id/clients', clientSites)
  .on('GET', '/sites/:id', (request) => ok(presented(request, siteById(request.data, request.params.id))))
  .on('PUT', '/sites/:id', updateSite)
  .on('DELETE', '/sites/:id', deleteSite);

export const nmsApi: Api = {
  base: '/nms/api/v2.1',
  router,
  authenticates: (headers, token) => headers['x-auth-token'] === token,
  error: (status, message) => nmsError(status, message ?? (status === 401 ? 'Invalid or missing x-auth-token header.' : undefined)),
};
