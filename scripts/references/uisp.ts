/**
 * Facts read from the public UISP API descriptions (and the interface spec's endpoint tables) for the
 * test fixtures: endpoint catalogues, the CRM Blueprint's data structures as field lists, and the NMS
 * Swagger definitions the simulator's answers are checked against. Pure functions over file contents;
 * scripts/reference-fixtures.ts reads the files and writes the results under test/fixtures/uisp/.
 */

export interface Endpoint {
  method: string;
  /** Full path template, e.g. /nms/api/v2.1/devices/{id}/authorize. */
  path: string;
  /** Query parameter names the source documents for this endpoint (API Blueprint and Swagger). */
  query?: string[];
  /** Top-level JSON body fields the source documents for this endpoint (Swagger only). */
  bodyFields?: string[];
}

export interface Catalogue {
  source: 'spec' | 'nms-swagger' | 'crm-blueprint';
  endpoints: Endpoint[];
}

export const CRM_PREFIX = '/crm/api/v1.0';
export const NMS_PREFIX = '/nms/api/v2.1';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/**
 * The interface spec's endpoint tables: rows like `| GET | /crm/api/v1.0/clients | nothing | list of
 * clients |`, plus the one endpoint it states in prose ("PATCH on a client by id exists").
 */
export function parseSpec(markdown: string): Endpoint[] {
  const rows = [...markdown.matchAll(/^\|\s*(GET|POST|PUT|PATCH|DELETE)\s*\|\s*(\/[^\s|]+)\s*\|/gm)].map(([, method, path]) => ({
    method: method!,
    path: path!,
  }));
  if (/PATCH on a client by id exists/.test(markdown)) rows.push({ method: 'PATCH', path: `${CRM_PREFIX}/clients/{id}` });
  return rows;
}

interface SwaggerOperation {
  parameters?: Array<{ in: string; name?: string; schema?: { $ref?: string } }>;
}
interface SwaggerDoc {
  basePath: string;
  paths: Record<string, Record<string, SwaggerOperation>>;
  definitions: Record<string, { properties?: Record<string, unknown> }>;
}

/** Swagger 2.0: every operation under `paths`, prefixed with `basePath`, with its query parameters and its body's field names. */
export function parseSwagger(json: string): Endpoint[] {
  const doc = JSON.parse(json) as SwaggerDoc;
  const bodyFields = (operation: SwaggerOperation) => {
    const ref = operation.parameters?.find((p) => p.in === 'body')?.schema?.$ref;
    const properties = ref ? doc.definitions[definitionName(ref)]?.properties : undefined;
    return properties ? Object.keys(properties) : undefined;
  };
  return Object.entries(doc.paths).flatMap(([path, operations]) =>
    Object.entries(operations)
      .filter(([key]) => METHODS.includes(key.toUpperCase()))
      .map(([key, operation]) => ({ method: key.toUpperCase(), path: `${doc.basePath}${path}`, ...queryOf(operation), bodyFields: bodyFields(operation) })),
  );
}

/** The documented query parameter names, when the operation has any (kept out of the fixture otherwise). */
function queryOf(operation: SwaggerOperation): { query?: string[] } {
  const names = (operation.parameters ?? []).filter((p) => p.in === 'query' && p.name).map((p) => p.name!);
  return names.length ? { query: names } : {};
}

/** `#/definitions/A%20B` → `A B`: a $ref is a URI fragment, percent-encoded. */
const definitionName = (ref: string) => decodeURIComponent(ref.replace('#/definitions/', ''));

/**
 * The named Swagger definitions and every definition they reach through `$ref`, unmodified, sorted by
 * name: enough to validate those bodies without the rest of the (1 MB) file.
 */
export function swaggerDefinitions(json: string, roots: readonly string[]): Record<string, unknown> {
  const { definitions } = JSON.parse(json) as SwaggerDoc;
  const reached = new Set<string>();
  const visit = (name: string) => {
    if (reached.has(name)) return;
    if (!(name in definitions)) throw new Error(`Swagger definition ${name} not found`);
    reached.add(name);
    refsIn(definitions[name]).forEach(visit);
  };
  roots.forEach(visit);
  return Object.fromEntries([...reached].sort().map((name) => [name, definitions[name]]));
}

function refsIn(node: unknown): string[] {
  if (Array.isArray(node)) return node.flatMap(refsIn);
  if (node === null || typeof node !== 'object') return [];
  return Object.entries(node).flatMap(([key, value]) => {
    if (key !== '$ref' || typeof value !== 'string') return refsIn(value);
    // Refs into the file's `x-alt-definitions` sit under `x-alternatives`, a keyword validators ignore.
    return value.startsWith('#/definitions/') ? [definitionName(value)] : [];
  });
}

/**
 * API Blueprint headings, three forms:
 *   `# /clients/{id}`                  a resource (the space after `#` is sometimes missing);
 *                                      following bare `## GET`, `## PATCH` … act on it
 *   `## PATCH /clients/{id}/archive`   an action with its own path
 *   `# Group Clients` (anything else)  ends the current resource
 * URI-template query parts (`{?limit,offset}`) are stripped from the path and kept as `query`.
 */
export function parseBlueprint(apib: string, prefix = CRM_PREFIX): Endpoint[] {
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

/**
 * The Blueprint's `# Data Structures` section as top-level attribute names per MSON structure
 * (`## ClientReadOnly (object)` or a bare `## ServiceWritable`; enums are left out), with
 * `+ Include Other` replaced by Other's attributes.
 */
export function blueprintStructures(apib: string): Record<string, string[]> {
  const section = apib.split(/^# Data Structures\s*$/m)[1];
  if (section === undefined) throw new Error('no "# Data Structures" section in the Blueprint');
  type Attribute = { include: string } | { field: string };
  const own = new Map<string, Attribute[]>();
  for (const block of section.split(/^(?=## )/m).slice(1)) {
    const [heading, ...lines] = block.split('\n');
    const name = /^## (\w+)(?: \(object\))?\s*$/.exec(heading!)?.[1];
    if (!name) continue;
    own.set(
      name,
      lines.flatMap((line): Attribute[] => {
        const include = /^\+ Include (\w+)/.exec(line)?.[1];
        if (include) return [{ include }];
        const field = /^\+ (\w+)/.exec(line)?.[1];
        return field ? [{ field }] : [];
      }),
    );
  }
  const resolve = (name: string, path: string[] = []): string[] => {
    const attributes = own.get(name);
    if (!attributes || path.includes(name)) throw new Error(`Blueprint structure ${[...path, name].join(' → ')} is missing or circular`);
    return attributes.flatMap((attribute) => ('include' in attribute ? resolve(attribute.include, [...path, name]) : [attribute.field]));
  };
  return Object.fromEntries([...own.keys()].sort().map((name) => [name, resolve(name)]));
}
