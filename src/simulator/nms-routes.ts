/**
 * NMS v2.1 endpoints: devices (authorized and discovered), device authorization and sites, per the NMS
 * Swagger. Errors use the NMS shape {statusCode, error, message}; invalid bodies answer 400 with the
 * offending keys under `validation`, as UISP's API server does.
 */
import { STATUS_CODES } from 'node:http';
import { z } from 'zod';
import { findClient, findPlanPeriod, findSite, type SimulatorData } from './data.js';
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
 * A site as the world's NMS answers it (./world.ts). Its binding: a CRM service whose `unmsClientSiteId`
 * names it (as UISP records it), else a client set on the stored record by hand. The interface world shows
 * the client in `ucrm` and `description.ucrmId` always; the stock world shows `ucrm` ({client, service})
 * only with `ucrmDetails=true`, and `description.ucrmId` is the bound service's id.
 */
function presented({ data, world, query }: Pick<RouteRequest, 'data' | 'world' | 'query'>, site: SiteRecord): unknown {
  const service = data.services.find((s) => s.unmsClientSiteId === site.id);
  const client = service ? findClient(data, service.clientId) : undefined;
  const clientRef = client ? { id: String(client.id), name: [client.firstName, client.lastName].filter(Boolean).join(' ') || client.companyName || '', isLead: client.isLead } : (site.ucrm?.client ?? null);
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
  const device = data.devices.find((d) => d.identification.id === id);
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
  data.sites.push(completeSite(site, data.sites));
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
  completeDevice(device, site, data.sites);
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
  .on('GET', '/devices', ({ data }) => ok(data.devices.filter((d) => d.identification.authorized)))
  .on('GET', '/devices/discovered', ({ data }) => ok(data.devices.filter((d) => !d.identification.authorized)))
  // Before /devices/:id, which would take "authorize" as an id.
  .on('POST', '/devices/authorize', authorizeDevices)
  .on('GET', '/devices/:id', ({ data, params }) => ok(deviceById(data, params.id)))
  .on('POST', '/devices/:id/authorize', authorizeDevice)
  .on('GET', '/sites', (request) => ok(request.data.sites.map((site) => presented(request, site))))
  .on('POST', '/sites', createSite)
  .on('GET', '/sites/:id', (request) => ok(presented(request, siteById(request.data, request.params.id))))
  .on('PUT', '/sites/:id', updateSite)
  .on('DELETE', '/sites/:id', deleteSite);

export const nmsApi: Api = {
  base: '/nms/api/v2.1',
  router,
  authenticates: (headers, token) => headers['x-auth-token'] === token,
  error: (status, message) => nmsError(status, message ?? (status === 401 ? 'Invalid or missing x-auth-token header.' : undefined)),
};
