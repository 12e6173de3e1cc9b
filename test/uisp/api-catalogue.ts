/**
 * Endpoint catalogues read from the shared API descriptions (never copied into the project):
 *  - the interface spec's endpoint tables (authoritative),
 *  - the NMS Swagger 2.0 `paths`,
 *  - the CRM API Blueprint resource/action headings.
 * Each entry is a method plus a full path template such as `/crm/api/v1.0/clients/{id}`.
 */
import { readFileSync } from 'node:fs';

export interface Endpoint {
  method: string;
  /** Full path template, e.g. /nms/api/v2.1/devices/{id}/authorize. */
  path: string;
  /** Query parameter names the source documents for this endpoint (API Blueprint only). */
  query?: string[];
  /** Top-level JSON body fields the source documents for this endpoint (Swagger only). */
  bodyFields?: string[];
}

export const CRM_PREFIX = '/crm/api/v1.0';
export const NMS_PREFIX = '/nms/api/v2.1';

const SHARED = new URL('../../../shared/', import.meta.url);
export const SOURCE_FILES = {
  spec: new URL('spec/interface.md', SHARED),
  crmBlueprint: new URL('uisp/uisp-crm-api.apib', SHARED),
  nmsSwagger: new URL('uisp/uisp-nms-api-swagger.json', SHARED),
};

const read = (file: URL) => readFileSync(file, 'utf8');
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/**
 * interface.md: rows like `| GET | /crm/api/v1.0/clients | nothing | list of clients |`, plus the one
 * endpoint it states in prose ("PATCH on a client by id exists").
 */
export function parseSpec(markdown = read(SOURCE_FILES.spec)): Endpoint[] {
  const rows = [...markdown.matchAll(/^\|\s*(GET|POST|PUT|PATCH|DELETE)\s*\|\s*(\/[^\s|]+)\s*\|/gm)].map(([, method, path]) => ({
    method: method!,
    path: path!,
  }));
  if (/PATCH on a client by id exists/.test(markdown)) rows.push({ method: 'PATCH', path: `${CRM_PREFIX}/clients/{id}` });
  return rows;
}

interface SwaggerOperation {
  parameters?: Array<{ in: string; schema?: { $ref?: string } }>;
}
interface SwaggerDoc {
  basePath: string;
  paths: Record<string, Record<string, SwaggerOperation>>;
  definitions: Record<string, { properties?: Record<string, unknown> }>;
}

/** Swagger 2.0: every operation under `paths`, prefixed with `basePath`, with its body's field names. */
export function parseSwagger(json = read(SOURCE_FILES.nmsSwagger)): Endpoint[] {
  const doc = JSON.parse(json) as SwaggerDoc;
  const bodyFields = (operation: SwaggerOperation) => {
    const ref = operation.parameters?.find((p) => p.in === 'body')?.schema?.$ref;
    const properties = ref ? doc.definitions[ref.replace('#/definitions/', '')]?.properties : undefined;
    return properties ? Object.keys(properties) : undefined;
  };
  return Object.entries(doc.paths).flatMap(([path, operations]) =>
    Object.entries(operations)
      .filter(([key]) => METHODS.includes(key.toUpperCase()))
      .map(([key, operation]) => ({ method: key.toUpperCase(), path: `${doc.basePath}${path}`, bodyFields: bodyFields(operation) })),
  );
}

/**
 * API Blueprint headings, three forms:
 *   `# /clients/{id}`                  a resource (the space after `#` is sometimes missing);
 *                                      following bare `## GET`, `## PATCH` … act on it
 *   `## PATCH /clients/{id}/archive`   an action with its own path
 *   `# Group Clients` (anything else)  ends the current resource
 * URI-template query parts (`{?limit,offset}`) are stripped from the path and kept as `query`.
 */
export function parseBlueprint(apib = read(SOURCE_FILES.crmBlueprint), prefix = CRM_PREFIX): Endpoint[] {
  const endpoints: Endpoint[] = [];
  let resource: { path: string; query: string[] } | undefined;
  for (const [, text] of apib.matchAll(/^#+[ \t]*(.+?)\s*$/gm)) {
    const match = /^(?:(GET|POST|PUT|PATCH|DELETE)\s*)?(\/\S*)?$/.exec(text!);
    if (!match || (!match[1] && !match[2])) {
      resource = undefined;
      continue;
    }
    const [, method, uri] = match;
    const target = uri ? splitUriTemplate(uri) : resource;
    if (!method) resource = target;
    else if (target) endpoints.push({ method, path: `${prefix}${target.path}`, query: target.query });
  }
  return endpoints;
}

function splitUriTemplate(uri: string): { path: string; query: string[] } {
  const query = /\{\?([^}]*)\}/.exec(uri)?.[1];
  return {
    path: uri.replace(/\{\?[^}]*\}/g, ''),
    query: query ? query.split(',').map((name) => decodeURIComponent(name)) : [],
  };
}

export interface Catalogue {
  source: 'spec' | 'nms-swagger' | 'crm-blueprint';
  endpoints: Endpoint[];
}

export function loadCatalogues(): Catalogue[] {
  return [
    { source: 'spec', endpoints: parseSpec() },
    { source: 'nms-swagger', endpoints: parseSwagger() },
    { source: 'crm-blueprint', endpoints: parseBlueprint() },
  ];
}

/** Segment-wise match: a `{param}` template segment matches exactly one non-empty concrete segment. */
export function pathMatches(template: string, concrete: string): boolean {
  const want = template.split('/');
  const have = concrete.split('/');
  return want.length === have.length && want.every((segment, i) => (/^\{[^}]+\}$/.test(segment) ? have[i] !== '' : segment === have[i]));
}

/**
 * The endpoints (with their source) that document this concrete request. Like a router, the most
 * specific templates win: `/devices/discovered` is documented by a literal `/devices/discovered`, not
 * by `/devices/{id}`, whichever source holds each.
 */
export function findEndpoint(catalogues: Catalogue[], method: string, concretePath: string): Array<Endpoint & { source: Catalogue['source'] }> {
  const matches = catalogues.flatMap(({ source, endpoints }) =>
    endpoints.filter((e) => e.method === method.toUpperCase() && pathMatches(e.path, concretePath)).map((e) => ({ ...e, source })),
  );
  const best = Math.max(...matches.map((e) => literalSegments(e.path)));
  return matches.filter((e) => literalSegments(e.path) === best);
}

const literalSegments = (template: string) => template.split('/').filter((segment) => !/^\{[^}]+\}$/.test(segment)).length;
