/** The activation's sentences, worded from the facts the services send (the CLI and Slack both show these). */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { candidateLines, doneSentence, errorSentence, pendingSentence, resultSentence, stepSentence } from '../../src/render/activation.js';
import type { ActivationError, ActivationResult, DeviceRef, DoneEntry, PendingEntry, ServiceRef, StepEvent, StepOutcome, UispFailure } from '../../src/services/activation/types.js';

const device: DeviceRef = { id: 'dev-1', name: 'cpe-ada', ip: '10.20.1.88', mac: null, list: 'discovered', siteId: null, authorized: false, role: 'station' };
const client = { id: 1042, name: 'Ada Lovelace' };
const site = { id: 's-9', name: 'Ada Lovelace' };
const service: ServiceRef = { id: 101, status: 1, statusLabel: 'Active', name: 'Home 10' };
const event = (outcome: StepOutcome): StepEvent => ({ type: 'step', ...outcome, ids: {} });
const uispError = (detail: string, facts: { mayHaveApplied?: boolean; beforeWrites?: boolean } = {}): UispFailure => ({
  code: 'uisp-error',
  problem: 'request',
  detail,
  mayHaveApplied: facts.mayHaveApplied ?? false,
  beforeWrites: facts.beforeWrites ?? false,
});

describe('stepSentence', () => {
  it.each<[string, StepOutcome, string]>([
    ['found device', { step: 'discover', status: 'done', device }, 'Found cpe-ada (10.20.1.88) in the discovered devices list'],
    ['new client', { step: 'client', status: 'done', kind: 'created', client }, 'Created client #1042 Ada Lovelace'],
    ['already active', { step: 'service', status: 'skipped', kind: 'already-active', service }, 'Already activated: service #101 (Home 10) is Active'],
    [
      'new service replacing a Quoted one',
      { step: 'service', status: 'done', kind: 'created', service, price: 10_000, currency: 'GYD', activeFrom: '2026-11-22', deleted: [7, 8] },
      'Created Active service #101 (Home 10): GYD 10,000.00/month from 2026-11-22 after deleting #7, #8',
    ],
    ['site reused', { step: 'site', status: 'skipped', kind: 'reused', site }, 'Reusing NMS site "Ada Lovelace"'],
    ['authorized', { step: 'authorize', status: 'done', device, site }, 'Authorized cpe-ada onto site "Ada Lovelace"'],
    ['already on the site', { step: 'authorize', status: 'skipped', device, site }, 'cpe-ada is already authorized on site "Ada Lovelace"'],
    ['failed', { step: 'client', status: 'failed', error: uispError('CRM POST /clients: UISP is unavailable') }, 'CRM POST /clients: UISP is unavailable'],
    [
      'failed, the write may have landed',
      { step: 'client', status: 'failed', error: uispError('CRM POST /clients: no answer', { mayHaveApplied: true }) },
      'CRM POST /clients: no answer. UISP may or may not have applied this change; re-run the activation: it picks up where it stopped and creates no duplicates',
    ],
    ['failed while reading', { step: 'discover', status: 'failed', error: uispError('NMS GET /sites: HTTP 502', { beforeWrites: true }) }, 'NMS GET /sites: HTTP 502. Nothing was changed.'],
    [
      'planned move',
      { step: 'authorize', status: 'planned', device, authorize: { action: 'authorize' }, move: { site: { id: 's-1', name: 'Leon Hope' }, client: { id: 1007, name: 'Leon Hope' } } },
      'Would move cpe-ada from site "Leon Hope" (client #1007 Leon Hope) onto that site (only when confirmed)',
    ],
  ])('%s', (_name, outcome, sentence) => {
    expect(stepSentence(event(outcome))).toBe(sentence);
  });
});

describe('the result and its lists', () => {
  it.each<[string, DoneEntry, string]>([
    ['a client whose read-back failed', { kind: 'client-created', client, unconfirmed: true }, 'Created client #1042 Ada Lovelace; not yet confirmed as the only one (a re-run checks)'],
    ['a deleted service', { kind: 'service-deleted', service: { id: 102, status: 6, statusLabel: 'Quoted', name: null } }, 'Deleted Quoted service #102'],
    ['a service whose read-back failed', { kind: 'service-created-unconfirmed', serviceId: 140 }, 'Created Active service #140; not yet confirmed as the only one (a re-run checks)'],
    ['a duplicate removed', { kind: 'duplicate-removed', record: 'site', id: 's-3' }, 'Removed duplicate site s-3'],
    ['the device authorized', { kind: 'authorized', device, site }, 'Authorized cpe-ada onto site "Ada Lovelace"'],
  ])('done: %s', (_name, entry, sentence) => {
    expect(doneSentence(entry)).toBe(sentence);
  });

  it.each<[PendingEntry, string]>([
    [{ kind: 'create-client', firstName: 'Ada', lastName: 'Lovelace' }, 'create client Ada Lovelace'],
    [{ kind: 'delete-service', service: { id: 102, status: 6, statusLabel: 'Quoted', name: null } }, 'delete Quoted service #102'],
    [{ kind: 'create-service' }, 'create the Active service'],
    [{ kind: 'create-site', name: 'Ada Lovelace' }, 'create NMS site "Ada Lovelace"'],
    [{ kind: 'authorize', device }, 'authorize cpe-ada'],
  ])('not done: %o', (entry, sentence) => {
    expect(pendingSentence(entry)).toBe(sentence);
  });

  const reached = { device, client, service, site, done: [], notDone: [] };
  it.each<[string, ActivationResult, string]>([
    ['activated after a move', { type: 'result', outcome: 'activated', ...reached, movedFrom: { site: { id: 's-1', name: 'Leon Hope' }, client: { id: null, name: null } } }, 'Activated Ada Lovelace: service #101, site "Ada Lovelace", device cpe-ada (moved from "Leon Hope" (client unknown)).'],
    ['already activated', { type: 'result', outcome: 'already-activated', ...reached }, 'Already activated: Ada Lovelace has Active service #101 and cpe-ada is on site "Ada Lovelace". Nothing was changed.'],
    [
      'a refusal',
      { type: 'result', outcome: 'failed', failedStep: 'discover', error: { code: 'device-not-found', query: { kind: 'mac', mac: '788a204c1e51' } }, done: [], notDone: [] },
      'Activation failed at the discover step: Device not found: no device with MAC 78:8a:20:4c:1e:51 in the authorized or discovered lists. Nothing was changed.',
    ],
    ['a workflow that stopped without a result', { type: 'result', outcome: 'failed', failedStep: null, error: { code: 'stopped' }, done: [], notDone: [{ kind: 'unknown' }] }, 'The activation stopped unexpectedly; the details are in the SubOps log.'],
  ])('%s', (_name, result, sentence) => {
    expect(resultSentence(result)).toBe(sentence);
  });

  it('candidates are listed for ambiguous devices and clients only', () => {
    const twin: DeviceRef = { ...device, id: 'dev-2', mac: '00:11:22:33:44:55', list: 'authorized' };
    expect(candidateLines({ code: 'device-ambiguous', query: { kind: 'name', name: 'cpe-ada' }, devices: [device, twin] })).toEqual(['cpe-ada (10.20.1.88, discovered)', 'cpe-ada (10.20.1.88, 00:11:22:33:44:55, authorized)']);
    expect(candidateLines({ code: 'client-not-found', clientId: 4 })).toEqual([]);
  });
});

describe('why a run waited, and a setting UISP does not have', () => {
  const NOW = Date.UTC(2026, 10, 23, 20, 0, 0);
  const busy = (since: number | null, freeAt: number | null): ActivationError => ({ code: 'client-busy', client, run: '3f2a9c01', since, freeAt });
  // The sentence counts from the caller's clock: pin it, so "started N s ago" is exact.
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(NOW);
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it.each<[string, ActivationError, string]>([
    [
      'another run holds the client: who, since when, when it is free again',
      busy(NOW - 42_000, NOW - 42_000 + 180_000),
      'Another SubOps activation of client #1042 Ada Lovelace (run 3f2a9c01, started 42 s ago) has not finished, so this one does not create a second service. Try again once it is done. If that run has stopped, the client is free again at 20:02:18 UTC. Nothing was changed.',
    ],
    [
      'a lease whose start is not known',
      busy(null, null),
      'Another SubOps activation of client #1042 Ada Lovelace (run 3f2a9c01) has not finished, so this one does not create a second service. Try again once it is done. Nothing was changed.',
    ],
    [
      'a start on a clock ahead of ours is no negative age',
      busy(NOW + 3_000, NOW + 183_000),
      'Another SubOps activation of client #1042 Ada Lovelace (run 3f2a9c01, started 0 s ago) has not finished, so this one does not create a second service. Try again once it is done. If that run has stopped, the client is free again at 20:03:03 UTC. Nothing was changed.',
    ],
    [
      'the configured service plan period is none of the CRM’s',
      { code: 'service-plan-unknown', servicePlanPeriodId: 38 },
      "SERVICE_PLAN_PERIOD_ID 38 is no period of the CRM's service plans; fix the setting. Nothing was changed.",
    ],
  ])('%s', (_name, error, sentence) => {
    expect(errorSentence(error)).toBe(sentence);
  });

  it('a busy client after this run had written (and undone) does not claim nothing was changed', () => {
    expect(errorSentence(busy(NOW - 5_000, NOW + 175_000), true)).toMatch(/free again at 20:02:55 UTC\.$/);
  });

  it('the result names the step it stopped at', () => {
    const result: ActivationResult = { type: 'result', outcome: 'failed', failedStep: 'service', error: busy(NOW - 1_000, NOW + 179_000), done: [], notDone: [{ kind: 'create-service' }] };
    expect(resultSentence(result)).toMatch(/^Activation failed at the service step: Another SubOps activation of client #1042 Ada Lovelace \(run 3f2a9c01, started 1 s ago\).* Nothing was changed\.$/);
  });
});
