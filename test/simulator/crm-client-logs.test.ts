/** CRM client logs (Blueprint "Group Client Logs"): an append-only, id-ordered list of entries per client. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildData, sampleData, SimulatorDataError, startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { CRM, crm, ids, UISP_DATE } from './helpers.js';

let sim: RunningSimulator;
beforeEach(async () => {
  sim = await startSimulator();
});
afterEach(() => sim.close());

const log = (clientId: number, message: string, extra: Record<string, unknown> = {}) => crm(sim, 'POST', '/client-logs', { clientId, message, ...extra });

describe('POST /client-logs', () => {
  it('creates an entry (201) with the next id, no user and createdDate now in UISP’s format', async () => {
    const before = Math.floor(Date.now() / 1000) * 1000;
    const first = await log(1004, 'Installer booked');
    const after = Date.now();
    expect(first.status).toBe(201);
    expect(first.body).toEqual({ id: expect.any(Number), clientId: 1004, message: 'Installer booked', userId: null, createdDate: expect.stringMatching(UISP_DATE) });
    const created = Date.parse(first.body.createdDate.replace('+0000', 'Z'));
    expect(created).toBeGreaterThanOrEqual(before);
    expect(created).toBeLessThanOrEqual(after);
    expect((await crm(sim, 'GET', `/client-logs/${first.body.id}`)).body).toEqual(first.body);
  });

  it('numbers entries in creation order, across clients', async () => {
    const answers = [await log(1004, 'one'), await log(1001, 'two'), await log(1004, 'three')];
    const [a, b, c] = ids(answers.map((answer) => answer.body));
    expect(a).toBeLessThan(b!);
    expect(b).toBeLessThan(c!);
  });

  it('keeps a createdDate and userId the body gives', async () => {
    expect((await log(1004, 'back-dated', { createdDate: '2026-01-05T09:30:00+0000', userId: 7 })).body).toMatchObject({ createdDate: '2026-01-05T09:30:00+0000', userId: 7 });
  });

  it.each([
    ['no message', { clientId: 1004 }, 'message'],
    ['an empty message', { clientId: 1004, message: '' }, 'message'],
    ['a blank message', { clientId: 1004, message: '   ' }, 'message'],
    ['no clientId', { message: 'hello' }, 'clientId'],
    ['a mistyped clientId', { clientId: '1004', message: 'hello' }, 'clientId'],
  ])('refuses %s with a 422 naming the field, and stores nothing', async (_, body, field) => {
    const answer = await crm(sim, 'POST', '/client-logs', body);
    expect(answer).toEqual({ status: 422, body: { code: 422, message: 'Validation failed.', errors: { [field]: [expect.any(String)] } } });
    expect(sim.data.clientLogs).toEqual([]);
  });

  it('a missing or empty message gets UISP’s “should not be blank”', async () => {
    expect((await crm(sim, 'POST', '/client-logs', { clientId: 1004 })).body.errors.message).toEqual(['This value should not be blank.']);
    expect((await log(1004, '')).body.errors.message).toEqual(['This value should not be blank.']);
  });

  it('refuses a client that does not exist with a 422 on clientId (the blueprint lists no 404 for this POST)', async () => {
    expect(await log(4242, 'hello')).toEqual({ status: 422, body: { code: 422, message: 'Validation failed.', errors: { clientId: ['Client not found.'] } } });
    expect(sim.data.clientLogs).toEqual([]);
  });

  it('sends no webhook: UISP sends none for log entries', async () => {
    await log(1004, 'quiet');
    await sim.settled();
    expect(sim.webhookEvents).toEqual([]);
  });
});

describe('GET /client-logs', () => {
  it('lists every entry in id order, or one client’s with clientId; an unknown client lists none', async () => {
    const made = [await log(1004, 'a'), await log(1001, 'b'), await log(1004, 'c')].map((answer) => answer.body);
    expect(ids((await crm(sim, 'GET', '/client-logs')).body)).toEqual(ids(made));
    const of1004 = await crm(sim, 'GET', '/client-logs?clientId=1004');
    expect(of1004.status).toBe(200);
    expect(of1004.body.map((entry: { message: string }) => entry.message)).toEqual(['a', 'c']);
    expect(ids(of1004.body)).toEqual([made[0].id, made[2].id]);
    expect((await crm(sim, 'GET', '/client-logs?clientId=1002')).body).toEqual([]);
    expect((await crm(sim, 'GET', '/client-logs?clientId=4242')).body).toEqual([]);
  });

  it('filters by createdDate day, both ends included; a malformed day is a 422', async () => {
    for (const day of ['2026-01-04', '2026-01-05', '2026-01-06']) await log(1004, day, { createdDate: `${day}T23:59:59+0000` });
    const messages = async (query: string) => (await crm(sim, 'GET', `/client-logs?${query}`)).body.map((entry: { message: string }) => entry.message);
    expect(await messages('createdDateFrom=2026-01-05')).toEqual(['2026-01-05', '2026-01-06']);
    expect(await messages('createdDateTo=2026-01-05')).toEqual(['2026-01-04', '2026-01-05']);
    expect(await messages('clientId=1004&createdDateFrom=2026-01-05&createdDateTo=2026-01-05')).toEqual(['2026-01-05']);
    expect((await crm(sim, 'GET', '/client-logs?createdDateFrom=05/01/2026')).body.errors).toHaveProperty('createdDateFrom');
  });

  it('GET /client-logs/{id}: 404 for an unknown or non-numeric id', async () => {
    expect(await crm(sim, 'GET', '/client-logs/4242')).toEqual({ status: 404, body: { code: 404, message: 'Object is not found.' } });
    expect((await crm(sim, 'GET', '/client-logs/abc')).status).toBe(404);
  });
});

describe('deleting a client', () => {
  it('deletes its log entries, keeps the others, and their ids are never handed out again', async () => {
    const kept = (await log(1001, 'kept')).body;
    const doomed = [(await log(1004, 'x')).body, (await log(1004, 'y')).body];
    expect((await crm(sim, 'DELETE', '/clients/1004')).status).toBe(200);
    expect((await crm(sim, 'GET', '/client-logs?clientId=1004')).body).toEqual([]);
    expect((await crm(sim, 'GET', `/client-logs/${doomed[0].id}`)).status).toBe(404);
    expect(ids((await crm(sim, 'GET', '/client-logs')).body)).toEqual([kept.id]);
    expect((await log(1001, 'after')).body.id).toBe(doomed[1].id + 1);
  });
});

describe('faults on /client-logs', () => {
  it('a 503 before the write stores nothing; after the write, the entry exists though the answer was lost', async () => {
    sim.setFaults([{ method: 'POST', path: `${CRM}/client-logs`, kind: 'status', status: 503, times: 1 }]);
    expect(await log(1004, 'lost')).toEqual({ status: 503, body: { code: 503, message: expect.any(String) } });
    expect(sim.data.clientLogs).toEqual([]);
    sim.setFaults([{ method: 'POST', path: `${CRM}/client-logs`, kind: 'status', status: 503, phase: 'after', times: 1 }]);
    expect((await log(1004, 'applied')).status).toBe(503);
    expect((await crm(sim, 'GET', '/client-logs?clientId=1004')).body.map((entry: { message: string }) => entry.message)).toEqual(['applied']);
  });
});

describe('client logs in data sets', () => {
  const minimal = () => ({ clients: [{ id: 1, firstName: 'Ada', lastName: 'Lovelace' }, { id: 2, firstName: 'Alan', lastName: 'Turing' }] });

  it('the sample data has none; a data file’s entries are completed and kept in id order', () => {
    expect(sampleData().clientLogs).toEqual([]);
    const data = buildData({ ...minimal(), clientLogs: [{ id: 9, clientId: 2, message: 'later', createdDate: '2026-01-05' }, { id: 3, clientId: 1, message: 'earlier' }] });
    expect(data.clientLogs).toEqual([
      { id: 3, clientId: 1, message: 'earlier', userId: null, createdDate: expect.stringMatching(UISP_DATE) },
      { id: 9, clientId: 2, message: 'later', userId: null, createdDate: '2026-01-05T00:00:00+0000' },
    ]);
  });

  it('new entries are numbered after the data file’s', async () => {
    await sim.close();
    sim = await startSimulator({ data: buildData({ ...minimal(), clientLogs: [{ id: 40, clientId: 1, message: 'imported' }] }) });
    expect((await log(2, 'new')).body.id).toBe(41);
  });

  it.each([
    [[{ id: 1, clientId: 3, message: 'm' }], 'clientLogs.0.clientId', 'no client with id 3'],
    [[{ id: 1, clientId: 1, message: 'm' }, { id: 1, clientId: 2, message: 'n' }], 'clientLogs.1.id', 'duplicate id 1'],
    [[{ id: 1, clientId: 1, message: '' }], 'clientLogs.0.message', expect.any(String)],
  ])('refuses a bad entry, naming the field (%#)', (clientLogs, field, problem) => {
    let error: unknown;
    try {
      buildData({ ...minimal(), clientLogs });
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(SimulatorDataError);
    expect(error).toMatchObject({ field, problem });
  });
});
