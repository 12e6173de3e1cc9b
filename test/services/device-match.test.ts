import { describe, expect, it } from 'vitest';
import { findDevices, normalizeMac, parseDeviceQuery } from '../../src/services/activation/device-match.js';
import type { Device } from '../../src/services/uisp/schemas.js';

const device = (id: string, fields: Partial<Device['identification']> & { ipAddress?: string | null }): Device => {
  const { ipAddress = null, ...identification } = fields;
  return {
    identification: { id, name: null, hostname: null, displayName: null, mac: null, ip: null, model: null, authorized: null, site: null, ...identification },
    ipAddress,
    overview: null,
  };
};

describe('device queries', () => {
  it('recognises IPs, with or without a prefix', () => {
    expect(parseDeviceQuery(' 10.0.0.5 ')).toEqual({ kind: 'ip', ip: '10.0.0.5' });
    expect(parseDeviceQuery('10.0.0.5/24')).toEqual({ kind: 'ip', ip: '10.0.0.5' });
  });

  it('normalises every common MAC notation to the same value', () => {
    for (const mac of ['aa:bb:cc:00:11:22', 'AA-BB-CC-00-11-22', 'aabb.cc00.1122', 'AABBCC001122']) {
      expect(normalizeMac(mac)).toBe('aabbcc001122');
    }
    expect(normalizeMac('aa:bb:cc:00:11')).toBeNull();
    expect(normalizeMac('aa:bb-cc:00:11:22')).toBeNull(); // mixed separators are not a MAC
  });

  it('treats anything else as a name', () => {
    expect(parseDeviceQuery('Tower-3 AP')).toEqual({ kind: 'name', name: 'tower-3 ap' });
  });
});

describe('findDevices', () => {
  const authorized = [
    device('a1', { name: 'Tower1-AP', ipAddress: '10.0.0.5/24', mac: 'AA:BB:CC:00:11:22', authorized: true, site: { id: 's1', name: 'Tower 1', type: 'site' } }),
    device('a2', { name: 'cpe-smith', hostname: 'smith-house', displayName: 'Smith CPE', ip: '10.0.0.6', mac: 'aa:bb:cc:00:11:33' }),
  ];
  const discovered = [device('d1', { name: 'new-cpe', ipAddress: '10.0.9.9', mac: 'AABBCC001144' }), device('a1', { name: 'Tower1-AP', ipAddress: '10.0.0.5' })];

  it('matches a stored prefixed IP by the bare address', () => {
    expect(findDevices(parseDeviceQuery('10.0.0.5'), authorized, discovered).map((d) => [d.id, d.list])).toEqual([['a1', 'authorized']]);
  });

  it('matches MACs whatever the separator or case on either side', () => {
    expect(findDevices(parseDeviceQuery('aabb.cc00.1144'), authorized, discovered).map((d) => [d.id, d.list])).toEqual([['d1', 'discovered']]);
    expect(findDevices(parseDeviceQuery('AA-BB-CC-00-11-33'), authorized, discovered).map((d) => d.id)).toEqual(['a2']);
  });

  it('matches name, hostname or display name, ignoring case', () => {
    for (const name of ['CPE-SMITH', 'Smith-House', 'smith cpe']) {
      expect(findDevices(parseDeviceQuery(name), authorized, discovered).map((d) => d.id)).toEqual(['a2']);
    }
  });

  it('returns every distinct match so the caller can refuse ambiguity', () => {
    const twins = [device('x1', { name: 'cpe' }), device('x2', { name: 'CPE' })];
    expect(findDevices(parseDeviceQuery('cpe'), twins, []).map((d) => d.id)).toEqual(['x1', 'x2']);
  });

  it('finds nothing for an unknown device', () => {
    expect(findDevices(parseDeviceQuery('10.9.9.9'), authorized, discovered)).toEqual([]);
  });

  it('reports the site and authorization state of the match', () => {
    expect(findDevices(parseDeviceQuery('10.0.0.5'), authorized, discovered)[0]).toMatchObject({ siteId: 's1', authorized: true, ip: '10.0.0.5' });
  });
});
