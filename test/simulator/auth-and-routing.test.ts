/** Tokens, unknown paths and malformed bodies: what a misconfigured client sees from each system. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { call, CRM, crm, NMS, nms } from './helpers.js';

let sim: RunningSimulator;
beforeAll(async () => {
  sim = await startSimulator({ token: 'secret-token' });
});
afterAll(() => sim.close());

describe('authentication', () => {
  it.each([
    ['no token', {}],
    ['a wrong token', { 'X-Auth-Token': 'nope' }],
  ])('CRM answers 401 with its error body for %s', async (_case, headers) => {
    const answer = await call(sim, 'GET', `${CRM}/clients`, undefined, headers);
    expect(answer).toEqual({ status: 401, body: { code: 401, message: 'User authentication failed.' } });
  });

  it.each([
    ['no token', {}],
    ['a wrong token', { 'X-Auth-Token': 'nope' }],
  ])('NMS answers 401 with its error body for %s', async (_case, headers) => {
    const answer = await call(sim, 'GET', `${NMS}/devices`, undefined, headers);
    expect(answer.status).toBe(401);
    expect(answer.body).toMatchObject({ statusCode: 401, error: 'Unauthorized', message: expect.any(String) });
  });

  it('takes the token in X-Auth-Token on both systems', async () => {
    expect((await crm(sim, 'GET', '/clients')).status).toBe(200);
    expect((await nms(sim, 'GET', '/devices')).status).toBe(200);
  });

  it('CRM also takes it in X-Auth-App-Key, as stock UISP CRM does; NMS does not', async () => {
    expect((await call(sim, 'GET', `${CRM}/clients`, undefined, { 'X-Auth-App-Key': 'secret-token' })).status).toBe(200);
    expect((await call(sim, 'GET', `${NMS}/devices`, undefined, { 'X-Auth-App-Key': 'secret-token' })).status).toBe(401);
  });

  it('checks the token before anything else, even on unknown paths of a system', async () => {
    expect((await call(sim, 'GET', `${CRM}/no-such-thing`, undefined, {})).status).toBe(401);
  });
});

describe('routing', () => {
  it('unknown paths are 404 in each system’s shape', async () => {
    expect(await crm(sim, 'GET', '/invoices-of-the-future')).toEqual({ status: 404, body: { code: 404, message: 'Object is not found.' } });
    expect(await nms(sim, 'GET', '/routers')).toMatchObject({ status: 404, body: { statusCode: 404, error: 'Not Found' } });
    expect((await call(sim, 'GET', '/api/elsewhere')).status).toBe(404);
  });

  it.each(['PATCH', 'POST', 'PUT', 'GET'])('%s /clients/services/{id}/unsuspend does not exist (404); cancel-suspend does', async (method) => {
    const answer = await crm(sim, method, '/clients/services/104/unsuspend', method === 'GET' ? undefined : {});
    expect(answer).toEqual({ status: 404, body: { code: 404, message: 'Object is not found.' } });
    expect(sim.data.services.find((s) => s.id === 104)?.status).toBe(3);
  });

  it('a wrong method on a known path is 404 too', async () => {
    expect((await crm(sim, 'DELETE', '/clients')).status).toBe(404);
  });

  it('non-numeric CRM ids are 404', async () => {
    expect((await crm(sim, 'GET', '/clients/abc')).status).toBe(404);
  });

  it('a body that is not JSON is 400 in each system’s shape', async () => {
    expect(await crm(sim, 'POST', '/clients', '{"firstName": ')).toEqual({ status: 400, body: { code: 400, message: expect.any(String) } });
    expect(await nms(sim, 'POST', '/sites', 'name=x')).toMatchObject({ status: 400, body: { statusCode: 400, error: 'Bad Request' } });
  });

  it('answers JSON with a content type', async () => {
    const res = await fetch(`${sim.url}${CRM}/service-suspension-reasons`, { headers: { 'X-Auth-Token': sim.token } });
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    await res.arrayBuffer();
  });
});
