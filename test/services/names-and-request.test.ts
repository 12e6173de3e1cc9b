import { describe, expect, it } from 'vitest';
import { sameName, titleCase } from '../../src/services/activation/names.js';
import { validateActivationRequest } from '../../src/services/activation/request.js';

describe('titleCase', () => {
  it.each([
    ['jean-luc', 'Jean-Luc'],
    ["o'NEIL", "O'Neil"],
    ['  ada   LOVELACE ', 'Ada Lovelace'],
    ['élodie', 'Élodie'],
    ['mary-jane watson', 'Mary-Jane Watson'],
  ])('%s → %s', (input, expected) => expect(titleCase(input)).toBe(expected));

  it('compares names ignoring case and spacing', () => {
    expect(sameName('Ada  Lovelace', 'ada lovelace')).toBe(true);
    expect(sameName(null, 'ada')).toBe(false);
  });
});

describe('validateActivationRequest', () => {
  it('accepts a full request and trims it', () => {
    expect(validateActivationRequest({ device: ' 10.0.0.5 ', firstName: 'ada', lastName: 'lovelace', clientId: '42', email: 'ada@example.org', phone: '+592 555-0100' })).toEqual({
      ok: true,
      request: { device: '10.0.0.5', firstName: 'ada', lastName: 'lovelace', clientId: 42, email: 'ada@example.org', phone: '+592 555-0100' },
    });
  });

  it('drops empty optional fields', () => {
    const result = validateActivationRequest({ device: 'x', firstName: 'a', lastName: 'b', clientId: '', email: ' ', phone: undefined });
    expect(result).toEqual({ ok: true, request: { device: 'x', firstName: 'a', lastName: 'b' } });
  });

  it('names every bad field with a message a person can act on', () => {
    const result = validateActivationRequest({ device: '', firstName: undefined, lastName: 'l33t', clientId: '-3', email: 'nope', phone: 'call me' });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors).toEqual({
      device: 'Enter the device IP, MAC address or name.',
      firstName: 'Enter the first name.',
      lastName: 'Use letters, spaces, hyphens and apostrophes only.',
      clientId: 'A CRM client id is a positive whole number.',
      email: 'Enter a valid email address.',
      phone: expect.stringContaining('phone number'),
    });
  });
});
