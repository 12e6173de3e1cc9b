/**
 * The readers behind scripts/reference-fixtures.ts, on excerpts written the way the public references
 * write them (the contract and shape tests use the fixtures they generate), and the fixtures' SOURCES.md.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { emptyArrays } from '../../scripts/references/slack.js';
import { blueprintStructures, parseBlueprint, parseSpec, parseSwagger, swaggerDefinitions } from '../../scripts/references/uisp.js';

const lines = (...text: string[]) => text.join('\n');
const summary = (endpoints: Array<{ method: string; path: string }>) => endpoints.map((e) => `${e.method} ${e.path}`);

describe('parseSpec', () => {
  it('reads the endpoint table rows and the PATCH on a client stated in prose', () => {
    const spec = lines(
      '| Method | Path | Body | Returns |',
      '|---|---|---|---|',
      '| GET | /crm/api/v1.0/clients | nothing | list of clients |',
      '| POST | /crm/api/v1.0/clients/{id}/services | service body (JSON) | created service |',
      '| Field | Type | Rule |',
      '| status | integer | read-only |',
      'PATCH on a client by id exists; the tags field in its body is ignored.',
    );
    expect(summary(parseSpec(spec))).toEqual(['GET /crm/api/v1.0/clients', 'POST /crm/api/v1.0/clients/{id}/services', 'PATCH /crm/api/v1.0/clients/{id}']);
  });
});

describe('parseBlueprint', () => {
  const apib = lines(
    '# Group Clients',
    '# /clients{?organizationId,isArchived,clientTagIds%5B%5D,limit,offset}',
    '## GET',
    '## POST /clients',
    '# /clients/{id}',
    '## GET',
    '## PATCH',
    '## PATCH /clients/{id}/archive',
    '# Group Service suspension',
    '## GET',
    '# PATCH /clients/services/{id}/suspend',
    '#/fees/{id}',
    '##GET',
    '### Response 200 (application/json)',
    '## GET',
  );

  it('resource headings, own-path actions, level-1 actions and headings without a space', () => {
    expect(summary(parseBlueprint(apib))).toEqual([
      'GET /crm/api/v1.0/clients',
      'POST /crm/api/v1.0/clients',
      'GET /crm/api/v1.0/clients/{id}',
      'PATCH /crm/api/v1.0/clients/{id}',
      'PATCH /crm/api/v1.0/clients/{id}/archive',
      'PATCH /crm/api/v1.0/clients/services/{id}/suspend',
      'GET /crm/api/v1.0/fees/{id}',
    ]);
  });

  it('keeps URI-template query names, decoded, and leaves no template in the path', () => {
    const list = parseBlueprint(apib)[0]!;
    expect(list).toEqual({ method: 'GET', path: '/crm/api/v1.0/clients', query: ['organizationId', 'isArchived', 'clientTagIds[]', 'limit', 'offset'] });
    expect(parseBlueprint(apib).find((e) => e.method === 'POST')?.query).toEqual([]);
  });
});

describe('parseSwagger', () => {
  const swagger = JSON.stringify({
    basePath: '/nms/api/v2.1',
    paths: {
      '/devices/{id}/authorize': { parameters: [], post: { parameters: [{ in: 'body', name: 'body', schema: { $ref: '#/definitions/DeviceAuthorize' } }] } },
      '/sites': { get: { parameters: [{ in: 'query', name: 'type' }, { in: 'query', name: 'ucrmDetails' }] }, delete: {} },
    },
    definitions: { DeviceAuthorize: { properties: { siteId: { type: 'string' } } } },
  });

  it('prefixes paths with basePath, skips non-operation keys and names the query parameters and body fields', () => {
    expect(parseSwagger(swagger)).toEqual([
      { method: 'POST', path: '/nms/api/v2.1/devices/{id}/authorize', bodyFields: ['siteId'] },
      { method: 'GET', path: '/nms/api/v2.1/sites', query: ['type', 'ucrmDetails'], bodyFields: undefined },
      { method: 'DELETE', path: '/nms/api/v2.1/sites', bodyFields: undefined },
    ]);
  });
});

describe('swaggerDefinitions', () => {
  const swagger = JSON.stringify({
    definitions: {
      SitesList: { type: 'array', items: { $ref: '#/definitions/Site' } },
      Site: { properties: { parent: { $ref: '#/definitions/Parent%20site' }, alt: { 'x-alternatives': [{ $ref: '#/x-alt-definitions/parent' }] } } },
      'Parent site': { properties: { site: { $ref: '#/definitions/Site' } } },
      Unrelated: { type: 'string' },
    },
  });

  it('keeps the roots and every definition they reach (percent-decoded, cycles once), unmodified', () => {
    const definitions = swaggerDefinitions(swagger, ['SitesList']);
    expect(Object.keys(definitions)).toEqual(['Parent site', 'Site', 'SitesList']);
    expect(definitions.Site).toEqual(JSON.parse(swagger).definitions.Site);
  });

  it('a root the file does not define is an error', () => {
    expect(() => swaggerDefinitions(swagger, ['Device'])).toThrow('Swagger definition Device not found');
  });
});

describe('blueprintStructures', () => {
  const apib = lines(
    '## Client (object)',
    '+ firstName: `John` (string)',
    '# Data Structures',
    '',
    '## Client (object)',
    '+ firstName: `John` (string)',
    '+ lastName: `Doe` (string)',
    '    See [Retrieve Clients](#reference/clients)',
    '',
    '## ClientReadOnly (object)',
    '+ id: `1000` (number)',
    '+ Include Client',
    '+ contacts (array[ClientContactReadOnly])',
    '',
    '## ServiceWritable',
    '+ servicePlanId: `11` (number)',
    '',
    '## ServiceStatus (enum[number])',
    '+ 0 - Prepared',
  );

  it('lists attributes per structure, resolves includes, skips enums and everything before the section', () => {
    expect(blueprintStructures(apib)).toEqual({
      Client: ['firstName', 'lastName'],
      ClientReadOnly: ['id', 'firstName', 'lastName', 'contacts'],
      ServiceWritable: ['servicePlanId'],
    });
  });

  it('an include of an unknown structure is an error', () => {
    expect(() => blueprintStructures(lines('# Data Structures', '## A (object)', '+ Include B'))).toThrow('A → B');
  });
});

describe('emptyArrays', () => {
  it('keeps the object tree and scalars, and empties every array', () => {
    expect(emptyArrays({ ok: false, ts: '0', message: { blocks: [{ type: 'section' }], edited: { user: '' } }, list: [1, 2] })).toEqual({
      ok: false,
      ts: '0',
      message: { blocks: [], edited: { user: '' } },
      list: [],
    });
  });
});

describe('test/fixtures/SOURCES.md', () => {
  const root = fileURLToPath(new URL('../fixtures/', import.meta.url));
  const sources = readFileSync(join(root, 'SOURCES.md'), 'utf8');

  it('names the origin of every fixture file', () => {
    const files = readdirSync(root, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => relative(root, join(entry.parentPath, entry.name)).split(sep).join('/'))
      .filter((file) => file !== 'SOURCES.md');
    expect(files.length).toBeGreaterThan(0);
    expect(files.filter((file) => !sources.includes(`\`${file}\``))).toEqual([]);
  });
});
