/**
 * The UISP HTTP core as a user of SubOps would notice it: what goes over the wire, which typed error a
 * failure becomes, when a request is retried, how timeouts read, and that no token ever leaks.
 * Everything runs offline against an undici MockAgent (or, for real socket timeouts, a loopback server).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inspect } from 'node:util';
import { errors as undiciErrors } from 'undici';
import { afterEach, beforeEach, describe, expect, it, type TestContext } from 'vitest';
import { z } from 'zod';
import {
  changeNotice,
  UispAuthError,
  UispBadResponseError,
  UispError,
  UispNotFoundError,
  UispRejectedError,
  UispUnavailableError,
  UispValidationError,
} from '../../src/services/uisp/errors.js';
import { createUispDispatcher, UispHttp } from '../../src/services/uisp/http.js';
import { NmsClient } from '../../src/services/uisp/nms-client.js';
import {
  bodyOf,
  CRM_BASE,
  CRM_TOKEN,
  createHarness,
  fixtures,
  headersOf,
  JSON_HEADERS,
  NMS_BASE,
  NMS_TOKEN,
  type Harness,
  type HarnessOptions,
} from './support.js';

/** Resolves to the rejection reason; fails the test if the promise fulfils. */
async function failure(promise: Promise<unknown>): Promise<UispError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(UispError);
    return error as UispError;
  }
  throw new Error('expected the call to fail');
}

const anyPath = () => true;
const anyMethod = () => true;

/** The harness of the running test; a test may swap in one with other options via harness(). */
let h: Harness;
const open: Harness[] = [];
function harness(options?: HarnessOptions): Harness {
  h = createHarness(options);
  open.push(h);
  return h;
}
beforeEach(() => {
  harness();
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((each) => each.close()));
});

describe('what goes over the wire', () => {
  it('CRM requests carry X-Auth-Token and X-Auth-App-Key and ask for JSON; a GET sends no body', async () => {
    h.pool.intercept({ path: `${CRM_BASE}/clients/1`, method: 'GET' }).reply(200, fixtures.client(1), { headers: JSON_HEADERS });

    await expect(h.crm.getClient(1)).resolves.toMatchObject({ id: 1, firstName: 'Ada' });

    const [call] = h.calls();
    const headers = headersOf(call!);
    expect(headers['x-auth-token']).toBe(CRM_TOKEN);
    expect(headers['x-auth-app-key']).toBe(CRM_TOKEN);
    expect(headers.accept).toBe('application/json');
    expect(headers['content-type']).toBeUndefined();
    expect(bodyOf(call!)).toBeUndefined();
  });

  it('NMS requests carry the NMS token in X-Auth-Token only', async () => {
    h.pool.intercept({ path: `${NMS_BASE}/devices`, method: 'GET' }).reply(200, [fixtures.device()], { headers: JSON_HEADERS });

    await h.nms.listDevices();

    const headers = headersOf(h.calls()[0]!);
    expect(headers['x-auth-token']).toBe(NMS_TOKEN);
    expect(headers['x-auth-app-key']).toBeUndefined();
    expect(headers.accept).toBe('application/json');
  });

  it('writes send a JSON body with content-type application/json', async () => {
    h.pool.intercept({ path: `${CRM_BASE}/clients`, method: 'POST' }).reply(201, fixtures.client(9), { headers: JSON_HEADERS });

    await h.crm.createClient({ firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.net' });

    const [call] = h.calls();
    expect(headersOf(call!)['content-type']).toBe('application/json');
    expect(headersOf(call!)['x-auth-token']).toBe(CRM_TOKEN);
    expect(bodyOf(call!)).toEqual({
      clientType: 1,
      isLead: false,
      firstName: 'Ada',
      lastName: 'Lovelace',
      contacts: [{ email: 'ada@example.net', isBilling: true, isContact: true }],
    });
  });

  it('encodes query parameters and leaves out unset filters', async () => {
    h.pool.intercept({ path: anyPath, method: 'GET' }).reply(200, [], { headers: JSON_HEADERS }).times(2);

    await h.crm.listClients({ query: 'Zoë & Sons', email: 'a+b@example.net', isArchived: false });
    await h.crm.listClients();

    const [filtered, plain] = h.calls();
    expect(filtered!.path).toBe(`${CRM_BASE}/clients`);
    expect(filtered!.searchParams).toEqual({ query: 'Zoë & Sons', email: 'a+b@example.net', isArchived: '0' });
    // The raw URL must not let "&" or "+" change meaning.
    expect(filtered!.fullUrl).toContain('query=Zo%C3%AB+%26+Sons');
    expect(filtered!.fullUrl).toContain('email=a%2Bb%40example.net');
    expect(plain!.fullUrl).toBe(`https://uisp.test${CRM_BASE}/clients`);
  });

  it('percent-encodes NMS device ids in the path', async () => {
    h.pool.intercept({ path: anyPath, method: 'GET' }).reply(200, fixtures.device('a/b c'), { headers: JSON_HEADERS });

    await h.nms.getDevice('a/b c');

    expect(h.calls()[0]!.path).toBe(`${NMS_BASE}/devices/a%2Fb%20c`);
  });

  it('a base URL with or without a trailing slash gives the same paths', async () => {
    const http = new UispHttp({
      system: 'nms',
      baseUrl: `https://uisp.test${NMS_BASE}/`,
      headers: { 'X-Auth-Token': NMS_TOKEN },
      dispatcher: h.agent,
      timeouts: { connectMs: 100, requestMs: 100 },
      retry: { retries: 0, backoffMs: 1 },
    });
    h.pool.intercept({ path: `${NMS_BASE}/sites?ucrmDetails=true`, method: 'GET' }).reply(200, [], { headers: JSON_HEADERS });

    await new NmsClient(http).listSites();

    expect(h.calls()[0]!.path).toBe(`${NMS_BASE}/sites`);
  });

  describe('exact endpoints for writes', () => {
    beforeEach(() => {
      h.pool.intercept({ path: anyPath, method: anyMethod }).reply(200, '', { headers: JSON_HEADERS });
    });

    it('suspend → PATCH /crm/api/v1.0/clients/services/5/suspend with {suspensionReasonId}', async () => {
      await h.crm.suspendService(5, 3);
      const [call] = h.calls();
      expect([call!.method, call!.path]).toEqual(['PATCH', `${CRM_BASE}/clients/services/5/suspend`]);
      expect(bodyOf(call!)).toEqual({ suspensionReasonId: 3 });
    });

    it('lifting a suspension → PATCH …/clients/services/5/cancel-suspend, never /unsuspend', async () => {
      await h.crm.cancelSuspendService(5);
      const [call] = h.calls();
      expect([call!.method, call!.path]).toEqual(['PATCH', `${CRM_BASE}/clients/services/5/cancel-suspend`]);
      expect(call!.path).not.toContain('unsuspend');
      expect(bodyOf(call!)).toBeUndefined(); // the spec sends nothing
      expect(headersOf(call!)['content-type']).toBeUndefined();
    });

    it('delete service → DELETE /crm/api/v1.0/clients/services/{id} without a body', async () => {
      await h.crm.deleteService(42);
      const [call] = h.calls();
      expect([call!.method, call!.path]).toEqual(['DELETE', `${CRM_BASE}/clients/services/42`]);
      expect(bodyOf(call!)).toBeUndefined();
      expect(headersOf(call!)['content-type']).toBeUndefined();
    });

    it('authorize → POST /nms/api/v2.1/devices/authorize with {siteId, deviceIds}', async () => {
      await h.nms.authorizeDevice('dev-1', 'site-9');
      const [call] = h.calls();
      expect([call!.method, call!.path]).toEqual(['POST', `${NMS_BASE}/devices/authorize`]);
      expect(bodyOf(call!)).toEqual({ siteId: 'site-9', deviceIds: ['dev-1'] });
      expect(headersOf(call!)['x-auth-token']).toBe(NMS_TOKEN);
    });
  });

  it('authorize on an NMS without /devices/authorize (404) → the per-device POST …/devices/{id}/authorize with {siteId}, and that one from then on', async () => {
    h.pool.intercept({ path: `${NMS_BASE}/devices/authorize`, method: 'POST' }).reply(404, { statusCode: 404, error: 'Not Found', message: 'Not Found' }, { headers: JSON_HEADERS });
    h.pool.intercept({ path: `${NMS_BASE}/devices/dev-1/authorize`, method: 'POST' }).reply(200, fixtures.nmsStatus(), { headers: JSON_HEADERS });
    h.pool.intercept({ path: `${NMS_BASE}/devices/dev-2/authorize`, method: 'POST' }).reply(200, fixtures.nmsStatus(), { headers: JSON_HEADERS });
    await h.nms.authorizeDevice('dev-1', 'site-9');
    await h.nms.authorizeDevice('dev-2', 'site-9');
    expect(h.calls().map((call) => `${call.method} ${call.path} ${call.body}`)).toEqual([
      `POST ${NMS_BASE}/devices/authorize {"siteId":"site-9","deviceIds":["dev-1"]}`,
      `POST ${NMS_BASE}/devices/dev-1/authorize {"siteId":"site-9"}`,
      `POST ${NMS_BASE}/devices/dev-2/authorize {"siteId":"site-9"}`,
    ]);
  });

  it('create service → POST /crm/api/v1.0/clients/{clientId}/services with the creation fields', async () => {
    h.pool.intercept({ path: anyPath, method: anyMethod }).reply(201, fixtures.service(77, 7), { headers: JSON_HEADERS });
    const service = { status: 1, servicePlanPeriodId: 37, price: 10_000, activeFrom: '2025-03-01T00:00:00-0400', invoicingStart: '2025-03-01T00:00:00-0400' };

    await expect(h.crm.createService(7, service)).resolves.toMatchObject({ id: 77, clientId: 7, status: 1 });

    const [call] = h.calls();
    expect([call!.method, call!.path]).toEqual(['POST', `${CRM_BASE}/clients/7/services`]);
    expect(bodyOf(call!)).toEqual(service);
  });
});

describe('typed errors', () => {
  const get = () => h.crm.getClient(1);
  const replyOnce = (status: number, body: unknown) =>
    h.pool.intercept({ path: anyPath, method: anyMethod }).reply(status, body as object, { headers: JSON_HEADERS });

  it.each([401, 403])('HTTP %i → UispAuthError that points at the token setting', async (status) => {
    replyOnce(status, { code: status, message: 'User authentication failed.' });
    const error = await failure(get());
    expect(error).toBeInstanceOf(UispAuthError);
    expect(error).toMatchObject({ kind: 'auth', status, system: 'crm', method: 'GET', path: `${CRM_BASE}/clients/1` });
    expect(error.message).toContain(`HTTP ${status}`);
    expect(error.message).toContain('CRM token');
  });

  it('HTTP 404 with a CRM body → UispNotFoundError carrying the CRM message', async () => {
    replyOnce(404, { code: 404, message: 'Object is not found.' });
    const error = await failure(get());
    expect(error).toBeInstanceOf(UispNotFoundError);
    expect(error.status).toBe(404);
    expect(error.message).toBe(`CRM GET ${CRM_BASE}/clients/1: Object is not found. (HTTP 404)`);
  });

  it('HTTP 404 with an NMS body {statusCode, error, message} → UispNotFoundError', async () => {
    h.pool.intercept({ path: anyPath }).reply(404, { statusCode: 404, error: 'Not Found', message: 'Device not found.' }, { headers: JSON_HEADERS });
    const error = await failure(h.nms.getDevice('nope'));
    expect(error).toBeInstanceOf(UispNotFoundError);
    expect(error.message).toBe(`NMS GET ${NMS_BASE}/devices/nope: Device not found. (HTTP 404)`);
  });

  it('HTTP 404 with a non-JSON body still → UispNotFoundError', async () => {
    h.pool.intercept({ path: anyPath }).reply(404, '<html>Not Found</html>', { headers: { 'content-type': 'text/html' } });
    const error = await failure(get());
    expect(error).toBeInstanceOf(UispNotFoundError);
    expect(error.message).toContain('not found (HTTP 404)');
  });

  it('HTTP 422 with the CRM error body → UispValidationError with fieldErrors, naming the field', async () => {
    replyOnce(422, { code: 422, message: 'Validation failed.', errors: { firstName: ['This value should not be blank.'], 'contacts[0].email': ['Invalid e-mail.'] } });
    const error = await failure(h.crm.createClient({ firstName: '', lastName: 'Lovelace' }));
    expect(error).toBeInstanceOf(UispValidationError);
    expect(error.status).toBe(422);
    expect((error as UispValidationError).fieldErrors).toEqual({
      firstName: ['This value should not be blank.'],
      'contacts[0].email': ['Invalid e-mail.'],
    });
    expect(error.message).toContain('Validation failed.');
    expect(error.message).toContain('firstName: This value should not be blank.');
    expect(error.message).toContain('contacts[0].email: Invalid e-mail.');
  });

  it('HTTP 422 whose field errors are plain strings still lists them', async () => {
    replyOnce(422, { code: 422, message: 'Validation failed.', errors: { suspensionReasonId: 'This value is not valid.' } });
    const error = (await failure(h.crm.suspendService(5, 999))) as UispValidationError;
    expect(error.fieldErrors).toEqual({ suspensionReasonId: ['This value is not valid.'] });
    expect(error.message).toContain('suspensionReasonId: This value is not valid.');
  });

  it('HTTP 400 with CRM field errors → UispValidationError reporting the real status', async () => {
    replyOnce(400, { code: 400, message: 'Bad request.', errors: { servicePlanPeriodId: ['This value is not valid.'] } });
    const error = (await failure(h.crm.createService(1, { status: 1, servicePlanPeriodId: -1, price: 1, activeFrom: 'x', invoicingStart: 'x' }))) as UispValidationError;
    expect(error).toBeInstanceOf(UispValidationError);
    expect(error.fieldErrors).toEqual({ servicePlanPeriodId: ['This value is not valid.'] });
    expect(error.status).toBe(400);
    expect(error.message).toContain('(HTTP 400)');
    expect(error.message).not.toContain('HTTP 422');
  });

  it('NMS HTTP 400 {statusCode, error, message, validation} → UispRejectedError carrying the NMS message', async () => {
    h.pool
      .intercept({ path: anyPath, method: 'POST' })
      .reply(
        400,
        { statusCode: 400, error: 'Bad Request', message: 'child "siteId" fails because ["siteId" is required]', validation: { source: 'payload', keys: ['siteId'] } },
        { headers: JSON_HEADERS },
      );
    const error = await failure(h.nms.authorizeDevice('dev-1', ''));
    expect(error).toBeInstanceOf(UispRejectedError);
    expect(error).toMatchObject({ kind: 'rejected', status: 400, system: 'nms' });
    expect(error.message).toBe(`NMS POST ${NMS_BASE}/devices/authorize: child "siteId" fails because ["siteId" is required] (HTTP 400)`);
  });

  it('authorize answered 200 {result: false} is a refusal, not a success', async () => {
    h.pool.intercept({ path: anyPath, method: 'POST' }).reply(200, { result: false, message: 'Device is not reachable.' }, { headers: JSON_HEADERS });
    const error = await failure(h.nms.authorizeDevice('dev-1', 'site-9'));
    expect(error).toBeInstanceOf(UispRejectedError);
    expect(error.message).toBe(`NMS POST ${NMS_BASE}/devices/authorize: Device is not reachable. (HTTP 200)`);
  });

  it('NMS body with only {statusCode, error} uses the error text', async () => {
    h.pool.intercept({ path: anyPath, method: 'POST' }).reply(409, { statusCode: 409, error: 'Conflict' }, { headers: JSON_HEADERS });
    const error = await failure(h.nms.createSite({ name: 'x', type: 'endpoint' }));
    expect(error).toBeInstanceOf(UispRejectedError);
    expect(error.message).toContain('Conflict (HTTP 409)');
  });

  it.each([409, 400, 405])('other 4xx (HTTP %i) → UispRejectedError', async (status) => {
    replyOnce(status, { code: status, message: 'Nope.' });
    const error = await failure(h.crm.deleteService(5));
    expect(error).toBeInstanceOf(UispRejectedError);
    expect(error).toMatchObject({ kind: 'rejected', status, method: 'DELETE' });
    expect(error.message).toContain(`Nope. (HTTP ${status})`);
  });

  it.each([500, 502, 503, 504, 429])('HTTP %i → UispUnavailableError', async (status) => {
    // A write, so there is exactly one attempt whatever the retry policy.
    replyOnce(status, status === 429 ? { code: 429, message: 'Too Many Requests.' } : '');
    const error = await failure(h.crm.suspendService(5, 1));
    expect(error).toBeInstanceOf(UispUnavailableError);
    expect(error).toMatchObject({ kind: 'unavailable', status });
    expect(error.message).toContain(`UISP is unavailable (HTTP ${status}`);
  });

  it('a 2xx body that fails the schema → UispBadResponseError naming the field path', async () => {
    h.pool.intercept({ path: anyPath }).reply(200, [fixtures.service(), { ...fixtures.service(6), status: 'active' }], { headers: JSON_HEADERS });
    const error = await failure(h.crm.listServices(1));
    expect(error).toBeInstanceOf(UispBadResponseError);
    expect(error.kind).toBe('bad_response');
    expect(error.message).toMatch(/unexpected response: 1\.status: /);
  });

  it('getLater: the answer is read at once, but a body that is not the schema fails only when it is decoded', async () => {
    h.pool.intercept({ path: anyPath }).reply(200, [{ id: 'seven' }], { headers: JSON_HEADERS });
    const decode = await h.crmHttp.getLater('payments', z.array(z.object({ id: z.number() })));
    expect(h.calls()).toHaveLength(1);
    expect(decode).toThrow(UispBadResponseError);
    expect(decode).toThrow(/unexpected response: 0\.id: /);
  });

  it('getLater: a body that is not JSON fails when decoded; a failure to answer fails at once', async () => {
    h.pool.intercept({ path: anyPath }).reply(200, '<html>proxy</html>', { headers: { 'content-type': 'text/html' } });
    const decode = await h.crmHttp.getLater('payments', z.unknown());
    expect(decode).toThrow('unexpected response: body is not JSON');
    h.pool.intercept({ path: anyPath }).reply(401, '');
    await expect(h.crmHttp.getLater('payments', z.unknown())).rejects.toBeInstanceOf(UispAuthError);
  });

  it('a nested NMS field of the wrong type is named by its full path', async () => {
    h.pool.intercept({ path: anyPath }).reply(200, [{ identification: { id: 'd-1', mac: 42 } }], { headers: JSON_HEADERS });
    const error = await failure(h.nms.listDevices());
    expect(error).toBeInstanceOf(UispBadResponseError);
    expect(error.message).toContain('0.identification.mac');
  });

  it('a missing required field is named', async () => {
    h.pool.intercept({ path: anyPath }).reply(200, { firstName: 'Ada' }, { headers: JSON_HEADERS });
    const error = await failure(h.crm.getClient(1));
    expect(error).toBeInstanceOf(UispBadResponseError);
    expect(error.message).toMatch(/unexpected response: id: /);
  });

  it('a non-JSON 2xx body → UispBadResponseError "body is not JSON"', async () => {
    h.pool.intercept({ path: anyPath }).reply(200, '<!doctype html><title>Login</title>', { headers: { 'content-type': 'text/html' } });
    const error = await failure(h.crm.getClient(1));
    expect(error).toBeInstanceOf(UispBadResponseError);
    expect(error).toMatchObject({ status: 200 });
    expect(error.message).toBe(`CRM GET ${CRM_BASE}/clients/1: unexpected response: body is not JSON`);
  });

  it('an empty 2xx body is fine where nothing is read, and a bad response where a record is expected', async () => {
    h.pool.intercept({ path: anyPath, method: 'PATCH' }).reply(200, '');
    await expect(h.crm.suspendService(5, 1)).resolves.toBeUndefined();

    h.pool.intercept({ path: anyPath }).reply(200, '');
    const error = await failure(h.crm.getClient(1));
    expect(error).toBeInstanceOf(UispBadResponseError);
  });

  it('bad responses are not retried', async () => {
    h.pool.intercept({ path: anyPath }).reply(200, 'not json');
    await failure(h.crm.getClient(1));
    expect(h.calls()).toHaveLength(1);
  });
});

describe('retries', () => {
  it('a GET is retried on 503 and then succeeds', async () => {
    harness({ retry: { retries: 2, backoffMs: 1 } });
    h.pool.intercept({ path: anyPath }).reply(503, '').times(2);
    h.pool.intercept({ path: anyPath }).reply(200, [fixtures.site()], { headers: JSON_HEADERS });

    await expect(h.nms.listSites()).resolves.toHaveLength(1);
    expect(h.calls()).toHaveLength(3);
  });

  it('a GET is retried on 429 and on a connection reset', async () => {
    h.pool.intercept({ path: anyPath }).reply(429, { code: 429, message: 'Too Many Requests.' }, { headers: JSON_HEADERS });
    h.pool.intercept({ path: anyPath }).replyWithError(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }));
    h.pool.intercept({ path: anyPath }).reply(200, [], { headers: JSON_HEADERS });

    await expect(h.crm.listSuspensionReasons()).resolves.toEqual([]);
    expect(h.calls()).toHaveLength(3);
  });

  it('a GET answered 429 waits as long as Retry-After asks before trying again', async () => {
    h.pool.intercept({ path: anyPath }).reply(429, { code: 429, message: 'Too Many Requests.' }, { headers: { ...JSON_HEADERS, 'retry-after': '1' } });
    h.pool.intercept({ path: anyPath }).reply(200, [], { headers: JSON_HEADERS });
    const started = performance.now();
    await expect(h.crm.listSuspensionReasons()).resolves.toEqual([]);
    expect(performance.now() - started).toBeGreaterThanOrEqual(990);
    expect(h.calls()).toHaveLength(2);
  });

  it('gives up after retries + 1 attempts with the last failure', async () => {
    harness({ retry: { retries: 3, backoffMs: 1 } });
    h.pool.intercept({ path: anyPath }).reply(503, '').times(4);

    const error = await failure(h.crm.getClient(1));
    expect(error).toBeInstanceOf(UispUnavailableError);
    expect(error.status).toBe(503);
    expect(h.calls()).toHaveLength(4);
  });

  it('retries: 0 means exactly one attempt', async () => {
    harness({ retry: { retries: 0, backoffMs: 1 } });
    h.pool.intercept({ path: anyPath }).reply(502, '');
    await failure(h.crm.getClient(1));
    expect(h.calls()).toHaveLength(1);
  });

  it.each([401, 404, 422, 409])('a GET answered %i is not retried', async (status) => {
    h.pool.intercept({ path: anyPath }).reply(status, { code: status, message: 'x' }, { headers: JSON_HEADERS });
    await failure(h.crm.getClient(1));
    expect(h.calls()).toHaveLength(1);
  });

  const writes = [
    ['POST', () => h.crm.createPayment({ clientId: 1, amount: 100 })],
    ['PATCH', () => h.crm.suspendService(5, 1)],
    ['DELETE', () => h.crm.deleteService(5)],
    ['POST (NMS)', () => h.nms.authorizeDevice('d-1', 's-1')],
  ] as const;

  it.each(writes)('%s on 503 is not retried: exactly one attempt', async (_name, write) => {
    harness({ retry: { retries: 3, backoffMs: 1 } });
    h.pool.intercept({ path: anyPath, method: anyMethod }).reply(503, '');

    const error = await failure(write());
    expect(error).toBeInstanceOf(UispUnavailableError);
    expect(h.calls()).toHaveLength(1);
  });

  it.each(writes)('%s on a timeout is not retried: exactly one attempt', async (_name, write) => {
    harness({ retry: { retries: 3, backoffMs: 1 } });
    // What undici throws when headersTimeout fires (see the loopback tests below for the real thing).
    h.pool.intercept({ path: anyPath, method: anyMethod }).replyWithError(new undiciErrors.HeadersTimeoutError());

    const error = await failure(write());
    expect(error).toBeInstanceOf(UispUnavailableError);
    expect(error.message).toContain('no answer within 200 ms');
    expect(h.calls()).toHaveLength(1);
  });

  it('a retry is not started when its wait would leave less than the floor of the deadline', async () => {
    harness({ retry: { retries: 2, backoffMs: 1 }, timeouts: { deadlineMs: 400 } });
    h.pool.intercept({ path: anyPath }).reply(429, { code: 429, message: 'Too Many Requests.' }, { headers: { ...JSON_HEADERS, 'retry-after': '1' } });

    const started = performance.now();
    const error = await failure(h.crm.listSuspensionReasons());
    // Gives up at once rather than wait out a Retry-After the deadline cannot cover.
    expect(performance.now() - started).toBeLessThan(400);
    expect(error).toBeInstanceOf(UispUnavailableError);
    expect(error).toMatchObject({ status: 429, retryAfterMs: 1_000 });
    expect(error.message).toBe(`CRM GET ${CRM_BASE}/service-suspension-reasons: no complete answer within 400 ms (1 attempt; the last: UISP is unavailable (HTTP 429: Too Many Requests.))`);
    expect(h.calls()).toHaveLength(1);
  });

  it('backoff doubles between attempts', async () => {
    const backoffMs = 25;
    harness({ retry: { retries: 3, backoffMs } });
    const seen: number[] = [];
    h.pool
      .intercept({ path: anyPath })
      .reply(() => {
        seen.push(performance.now());
        return { statusCode: 503, data: '' };
      })
      .times(4);

    await failure(h.crm.getClient(1));

    expect(seen).toHaveLength(4);
    const gaps = seen.slice(1).map((t, i) => t - seen[i]!);
    // Lower bounds only: timers never fire early (by more than clock granularity), but a busy machine may
    // fire any of them late, so gaps are not compared with each other. 25, 50, 100 ms.
    gaps.forEach((gap, i) => expect(gap).toBeGreaterThanOrEqual(backoffMs * 2 ** i - 2));
  });
});

describe('timeouts and connection failures (MockAgent)', () => {
  it('a connection reset → UispUnavailableError "connection reset"', async () => {
    harness({ retry: { retries: 0 } });
    h.pool.intercept({ path: anyPath }).replyWithError(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }));
    const error = await failure(h.crm.getClient(1));
    expect(error).toBeInstanceOf(UispUnavailableError);
    expect(error.message).toBe(`CRM GET ${CRM_BASE}/clients/1: connection reset`);
    expect(error.status).toBeUndefined();
  });

  it('undici "other side closed" (UND_ERR_SOCKET) → "connection reset"', async () => {
    harness({ retry: { retries: 0 } });
    h.pool.intercept({ path: anyPath }).replyWithError(new undiciErrors.SocketError('other side closed'));
    const error = await failure(h.nms.listSites());
    expect(error.message).toBe(`NMS GET ${NMS_BASE}/sites?ucrmDetails=true: connection reset`);
  });

  it('an unknown network failure → "network error"', async () => {
    harness({ retry: { retries: 0 } });
    h.pool.intercept({ path: anyPath }).replyWithError(new Error('something odd'));
    const error = await failure(h.crm.getClient(1));
    expect(error).toBeInstanceOf(UispUnavailableError);
    expect(error.message).toMatch(/: network error$/);
    expect(error.cause).toBeInstanceOf(Error);
  });

  it('a body timeout → "no answer within N ms"', async () => {
    harness({ retry: { retries: 0 }, timeouts: { requestMs: 1234 } });
    h.pool.intercept({ path: anyPath }).replyWithError(new undiciErrors.BodyTimeoutError());
    const error = await failure(h.crm.getClient(1));
    expect(error.message).toContain('no answer within 1234 ms');
  });
});

/**
 * MockAgent's `.delay()` is not subject to undici's headersTimeout/bodyTimeout (those timers live in the
 * real Client, which MockAgent bypasses), so real timeouts are exercised against a loopback server
 * through the production dispatcher from createUispDispatcher(). undici runs those timers at about one
 * second resolution, so each timeout test takes ~1 s whatever requestMs is; they run concurrently.
 */
describe.concurrent('timeouts and connection failures (loopback server)', () => {
  type Handler = (req: IncomingMessage, res: ServerResponse, hit: number) => void;

  /**
   * A loopback UISP stand-in plus an NMS client on the production dispatcher; torn down after the test.
   * The tests run concurrently, so the teardown is registered on the test's own context, never through
   * the global onTestFinished (which would pick whichever test happens to be current).
   */
  async function loopback({ onTestFinished }: TestContext, handler: Handler, { retries = 0, requestMs = 100, deadlineMs = 30_000 } = {}) {
    let hits = 0;
    const server: Server = createServer((req, res) => handler(req, res, ++hits));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const dispatcher = createUispDispatcher({ connectMs: 500, requestMs });
    const stop = async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    };
    onTestFinished(async () => {
      await stop().catch(() => {});
      await dispatcher.destroy();
    });
    const http = new UispHttp({
      system: 'nms',
      baseUrl: `${origin}${NMS_BASE}`,
      headers: { 'X-Auth-Token': NMS_TOKEN },
      dispatcher,
      timeouts: { connectMs: 500, requestMs, deadlineMs },
      retry: { retries, backoffMs: 1 },
    });
    return { nms: new NmsClient(http), hits: () => hits, stop };
  }

  const silent: Handler = () => {};
  const ok = (res: ServerResponse, body: unknown) => res.writeHead(200, JSON_HEADERS).end(JSON.stringify(body));

  it('a reply slower than requestMs → UispUnavailableError "no answer within N ms"', async (context) => {
    const { nms, hits } = await loopback(context, silent, { requestMs: 80 });

    const error = await failure(nms.listSites());
    expect(error).toBeInstanceOf(UispUnavailableError);
    expect(error.message).toBe(`NMS GET ${NMS_BASE}/sites?ucrmDetails=true: no answer within 80 ms`);
    expect(hits()).toBe(1);
  });

  it('headers sent but the body stalls → "no answer within N ms"', async (context) => {
    const { nms } = await loopback(context, (_req, res) => {
      res.writeHead(200, JSON_HEADERS);
      res.write('[');
    }, { requestMs: 80 });

    const error = await failure(nms.listSites());
    expect(error).toBeInstanceOf(UispUnavailableError);
    expect(error.message).toBe(`NMS GET ${NMS_BASE}/sites?ucrmDetails=true: no answer within 80 ms`);
  });

  it('a body trickled a byte at a time ends at the total deadline, though no single chunk is late', async (context) => {
    let closed!: () => void;
    const connectionClosed = new Promise<void>((resolve) => (closed = resolve));
    const { nms } = await loopback(
      context,
      (_req, res) => {
        res.writeHead(200, JSON_HEADERS);
        const drip = setInterval(() => res.write(' '), 10);
        res.on('close', () => {
          clearInterval(drip);
          closed();
        });
      },
      { requestMs: 5_000, deadlineMs: 150 },
    );

    const started = performance.now();
    const error = await failure(nms.listSites());
    expect(error).toBeInstanceOf(UispUnavailableError);
    expect(error.message).toBe(`NMS GET ${NMS_BASE}/sites?ucrmDetails=true: no complete answer within 150 ms`);
    expect(performance.now() - started).toBeLessThan(2_000);
    // The request is really abandoned, not left running in the background.
    await connectionClosed;
  });

  /** A 200 whose body comes a byte every 10 ms: no chunk is ever late, the whole never arrives. */
  const trickle: Handler = (_req, res) => {
    res.writeHead(200, JSON_HEADERS);
    const drip = setInterval(() => res.write(' '), 10);
    res.on('close', () => clearInterval(drip));
  };

  // UISP_DEADLINE_MS bounds a read with its retries: 3 attempts of 400 ms each would take ≥ 1200 ms.
  it.for([
    ['trickled', trickle],
    ['never answered', silent],
  ] as const)('a %s GET ends at the deadline of the whole read, and one that ran out of it is not retried', async ([_name, handler], context) => {
    const { nms, hits } = await loopback(context, handler, { requestMs: 5_000, deadlineMs: 400, retries: 2 });

    const started = performance.now();
    const error = await failure(nms.listSites());
    const elapsed = performance.now() - started;
    expect(error).toBeInstanceOf(UispUnavailableError);
    expect(error.message).toBe(`NMS GET ${NMS_BASE}/sites?ucrmDetails=true: no complete answer within 400 ms`);
    expect(elapsed).toBeGreaterThanOrEqual(390);
    expect(elapsed).toBeLessThan(1_000);
    expect(hits()).toBe(1);
  });

  it('a GET whose first attempt fails fast (503) is retried within the deadline and succeeds', async (context) => {
    const { nms, hits } = await loopback(context, (_req, res, hit) => (hit === 1 ? res.writeHead(503).end() : ok(res, [fixtures.site()])), { requestMs: 5_000, deadlineMs: 400, retries: 2 });

    const started = performance.now();
    await expect(nms.listSites()).resolves.toHaveLength(1);
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(hits()).toBe(2);
  });

  it('a retry after a 503 gets only what is left of the deadline; the error counts the attempts', async (context) => {
    const { nms, hits } = await loopback(context, (req, res, hit) => (hit === 1 ? res.writeHead(503).end() : trickle(req, res, hit)), { requestMs: 5_000, deadlineMs: 400, retries: 3 });

    const started = performance.now();
    const error = await failure(nms.listSites());
    const elapsed = performance.now() - started;
    expect(error).toBeInstanceOf(UispUnavailableError);
    expect(error.message).toBe(`NMS GET ${NMS_BASE}/sites?ucrmDetails=true: no complete answer within 400 ms (2 attempts)`);
    expect(elapsed).toBeLessThan(1_000);
    expect(hits()).toBe(2);
  });

  it('a write cut off by the deadline may have been applied; the error says so', async (context) => {
    const { nms, hits } = await loopback(context, (_req, res) => res.writeHead(200, JSON_HEADERS), { requestMs: 5_000, deadlineMs: 100, retries: 3 });
    const error = await failure(nms.authorizeDevice('d-1', 's-1'));
    expect(error.message).toContain('no complete answer within 100 ms');
    expect(error.mayHaveApplied).toBe(true);
    expect(hits()).toBe(1);
  });

  it('a GET that times out is retried and then succeeds', async (context) => {
    const { nms, hits } = await loopback(context, (_req, res, hit) => hit > 1 && ok(res, [fixtures.site()]), { retries: 2 });

    await expect(nms.listSites()).resolves.toHaveLength(1);
    expect(hits()).toBe(2);
  });

  it('a POST that times out is sent exactly once', async (context) => {
    const { nms, hits } = await loopback(context, silent, { retries: 3 });

    const error = await failure(nms.authorizeDevice('d-1', 's-1'));
    expect(error).toBeInstanceOf(UispUnavailableError);
    expect(error.message).toContain('no answer within 100 ms');
    expect(hits()).toBe(1);
  });

  it('the server dropping the connection → "connection reset"', async (context) => {
    const { nms } = await loopback(context, (req) => req.socket.destroy());

    const error = await failure(nms.listSites());
    expect(error).toBeInstanceOf(UispUnavailableError);
    expect(error.message).toBe(`NMS GET ${NMS_BASE}/sites?ucrmDetails=true: connection reset`);
  });

  it('nothing listening → "connection refused"', async (context) => {
    const { nms, stop } = await loopback(context, silent);
    await stop();

    const error = await failure(nms.listSites());
    expect(error).toBeInstanceOf(UispUnavailableError);
    expect(error.message).toBe(`NMS GET ${NMS_BASE}/sites?ucrmDetails=true: connection refused`);
  });
});

describe('secrets never leak into errors', () => {
  type Scenario = [string, (h: Harness) => Promise<unknown>];
  const scenarios: Scenario[] = [
    ['401 whose body echoes the token', (h) => {
      h.pool.intercept({ path: anyPath }).reply(401, { code: 401, message: `Invalid app key ${CRM_TOKEN}` }, { headers: JSON_HEADERS });
      return h.crm.getClient(1);
    }],
    ['403 (NMS)', (h) => {
      h.pool.intercept({ path: anyPath }).reply(403, { statusCode: 403, error: 'Forbidden' }, { headers: JSON_HEADERS });
      return h.nms.listDevices();
    }],
    ['404', (h) => {
      h.pool.intercept({ path: anyPath }).reply(404, { code: 404, message: 'Object is not found.' }, { headers: JSON_HEADERS });
      return h.crm.getClient(1);
    }],
    ['422', (h) => {
      h.pool.intercept({ path: anyPath, method: 'POST' }).reply(422, { code: 422, message: 'Validation failed.', errors: { firstName: ['Blank.'] } }, { headers: JSON_HEADERS });
      return h.crm.createClient({ firstName: '', lastName: 'x' });
    }],
    ['503 after retries', (h) => {
      h.pool.intercept({ path: anyPath }).reply(503, '').times(3);
      return h.nms.listSites();
    }],
    ['409', (h) => {
      h.pool.intercept({ path: anyPath, method: 'DELETE' }).reply(409, { code: 409, message: 'Conflict.' }, { headers: JSON_HEADERS });
      return h.crm.deleteService(5);
    }],
    ['schema failure', (h) => {
      h.pool.intercept({ path: anyPath }).reply(200, { id: 'x' }, { headers: JSON_HEADERS });
      return h.crm.getClient(1);
    }],
    ['non-JSON body', (h) => {
      h.pool.intercept({ path: anyPath }).reply(200, 'oops');
      return h.nms.listSites();
    }],
    ['connection reset', (h) => {
      h.pool.intercept({ path: anyPath, method: 'PATCH' }).replyWithError(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }));
      return h.crm.suspendService(5, 1);
    }],
    ['timeout', (h) => {
      h.pool.intercept({ path: anyPath, method: 'POST' }).replyWithError(new undiciErrors.HeadersTimeoutError());
      return h.nms.authorizeDevice('d', 's');
    }],
  ];

  it.each(scenarios)('%s', async (_name, run) => {
    const error = await failure(run(h));
    const renderings = {
      message: error.message,
      string: String(error),
      json: JSON.stringify(error),
      stack: error.stack ?? '',
      inspect: inspect(error, { depth: 6 }),
    };
    for (const [how, text] of Object.entries(renderings)) {
      expect(text, how).not.toContain(CRM_TOKEN);
      expect(text, how).not.toContain(NMS_TOKEN);
      expect(text, how).not.toMatch(/SECRET/);
    }
    // The JSON rendering still says what failed, so it is useful in logs.
    expect(JSON.parse(renderings.json)).toMatchObject({ kind: error.kind, system: error.system, method: error.method, path: error.path });
  });

  it('the request info on the error is method and path only', async () => {
    harness({ retry: { retries: 0 } });
    h.pool.intercept({ path: anyPath }).reply(500, '');
    const error = await failure(h.crm.listClients({ query: 'ada' }));
    expect(Object.keys(error).sort()).toEqual(['kind', 'method', 'name', 'path', 'retryAfterMs', 'status', 'system']);
    expect(error.path).toBe(`${CRM_BASE}/clients?query=ada`);
  });
});

describe('schemas pass through', () => {
  it('unknown fields are kept and nullable fields normalise to null', async () => {
    h.pool.intercept({ path: anyPath }).reply(200, { id: 3, firstName: 'Ada', extra: { nested: true } }, { headers: JSON_HEADERS });
    const client = await h.crm.getClient(3);
    expect(client).toMatchObject({ id: 3, firstName: 'Ada', lastName: null, contacts: [], extra: { nested: true } });
  });

  it('UispHttp hands back exactly what the given schema outputs', async () => {
    h.pool.intercept({ path: anyPath }).reply(200, { n: '41' }, { headers: JSON_HEADERS });
    const value = await h.nmsHttp.get('whatever', z.object({ n: z.coerce.number().transform((n) => n + 1) }));
    expect(value).toEqual({ n: 42 });
  });
});

describe('UispError.mayHaveApplied: what a failed request may have changed', () => {
  const post = { system: 'crm' as const, method: 'POST', path: '/crm/api/v1.0/payments' };
  const get = { ...post, method: 'GET' };
  it.each([
    ['a write with no answer', new UispUnavailableError(post, 'no answer'), true],
    ['a write whose 2xx body could not be read', new UispBadResponseError(post, 'id: expected number', 201), true],
    ['a write UISP refused', new UispValidationError(post, { amount: ['too small'] }), false],
    ['a read with no answer', new UispUnavailableError(get, 'no answer'), false],
  ])('%s → %s', (_, error, expected) => {
    expect(error.mayHaveApplied).toBe(expected);
    expect(changeNotice(error)).toBe(expected ? 'UISP did not confirm the change: it may or may not have been applied. Check the CRM before retrying.' : 'Nothing was changed.');
  });
});
