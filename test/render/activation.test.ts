/** The activation's sentences, worded from the facts the services send (the CLI and Slack both show these). */
import { describe, expect, it } from 'vitest';
import { candidateLines, changeSentence, doneSentence, errorSentence, lateDuplicateSentence, pendingSentence, resultSentence, stepSentence } from '../../src/render/activation.js';
import type { ActivationResult, ConfirmationChange, DeviceRef, DoneEntry, PendingEntry, ServiceRef, StepEvent, StepOutcome, UispFailure } from '../../src/services/activation/types.js';

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
    ['a duplicate removed', { kind: 'duplicate-removed', record: 'site', id: 's-3' }, 'Removed duplicate site s-3, which this activation had made'],
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

describe('a setting UISP does not have, duplicates, and what changed since a confirmation', () => {
  it('the configured service plan period is none of the CRM’s', () => {
    expect(errorSentence({ code: 'service-plan-unknown', servicePlanPeriodId: 38 })).toBe("SERVICE_PLAN_PERIOD_ID 38 is no period of the CRM's service plans; fix the setting. Nothing was changed.");
  });

  it('a duplicate this run removed, and one UISP refused to remove, are told apart', () => {
    expect(doneSentence({ kind: 'duplicate-removed', record: 'service', id: 5007 })).toBe('Removed duplicate service #5007, which this activation had made');
    expect(doneSentence({ kind: 'duplicate-refused', record: 'site', id: 's-2', detail: 'only an empty site can be deleted (HTTP 422)' })).toBe(
      'Could not remove duplicate site s-2, which this activation had made: only an empty site can be deleted (HTTP 422). It is still there',
    );
  });

  it.each<[string, ConfirmationChange, string]>([
    ['a confirmed Quoted service turned Active', { kind: 'service-changed', id: 5012, shown: 6, now: { id: 5012, status: 1, statusLabel: 'Active', name: null } }, 'Service #5012 is Active now, no longer what you confirmed deleting: it will not be deleted'],
    ['a confirmed service gone', { kind: 'service-changed', id: 5012, shown: 6, now: null }, 'Service #5012, which you confirmed deleting, is gone from the CRM'],
    ['a new Quoted service', { kind: 'service-added', service: { id: 5013, status: 6, statusLabel: 'Quoted', name: null } }, 'Quoted service #5013 would now be deleted too'],
    ['the device moved', { kind: 'move-changed', shown: null, now: { site: { id: 's-7', name: 'Leon Hope' }, client: { id: 1007, name: 'Leon Hope' } } }, 'The device is now on site "Leon Hope" (client #1007 Leon Hope): moving it needs your confirmation'],
    ['no move any more', { kind: 'move-changed', shown: 's-7', now: null }, 'The device no longer needs moving'],
  ])('%s', (_name, change, sentence) => {
    expect(changeSentence(change)).toBe(sentence);
  });

  it('a late duplicate names the record kept and the late ones', () => {
    const sentence = lateDuplicateSentence({ record: 'service', client, kept: { id: 5003, name: 'Home 10' }, others: [{ id: 5007, name: null }] });
    expect(sentence).toBe('Client #1042 Ada Lovelace has 2 Active services made by SubOps: #5003 "Home 10" (the one activations keep and report) and #5007 (made late, after its activation gave up)');
  });
});
