/** The activation's step sentences, worded from the facts the services send (the CLI and Slack both show these). */
import { describe, expect, it } from 'vitest';
import { stepSentence } from '../../src/render/activation.js';
import type { DeviceRef, ServiceRef, StepEvent, StepOutcome, UispFailure } from '../../src/services/activation/types.js';

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
    ['client of a concurrent run', { step: 'client', status: 'skipped', kind: 'created-concurrently', client }, 'Reusing client #1042 Ada Lovelace, created by another activation of the same customer'],
    ['already active', { step: 'service', status: 'skipped', kind: 'already-active', service }, 'Already activated: service #101 (Home 10) is Active'],
    [
      'new service replacing a Quoted one',
      { step: 'service', status: 'done', kind: 'created', service, price: 10_000, currency: 'GYD', activeFrom: '2026-11-22', deleted: [7, 8] },
      'Created Active service #101 (Home 10): GYD 10,000.00/month from 2026-11-22 after deleting #7, #8',
    ],
    ['service of a concurrent run', { step: 'service', status: 'skipped', kind: 'created-concurrently', service, deleted: [] }, 'Service #101 is Active, created by another activation of the same customer'],
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
      'a duplicate site left behind',
      { step: 'site', status: 'failed', error: uispError('NMS DELETE /sites/s-2: timed out'), leftoverSite: { site: { id: 's-2', name: 'Ada Lovelace' }, clientId: 1043 } },
      'Created NMS site "Ada Lovelace" (s-2) for client #1043, another activation\'s duplicate, and could not remove it: NMS DELETE /sites/s-2: timed out',
    ],
    [
      'planned move',
      { step: 'authorize', status: 'planned', device, authorize: { action: 'authorize' }, move: { site: { id: 's-1', name: 'Leon Hope' }, client: { id: 1007, name: 'Leon Hope' } } },
      'Would move cpe-ada from site "Leon Hope" (client #1007 Leon Hope) onto that site (only when confirmed)',
    ],
  ])('%s', (_name, outcome, sentence) => {
    expect(stepSentence(event(outcome))).toBe(sentence);
  });
});
