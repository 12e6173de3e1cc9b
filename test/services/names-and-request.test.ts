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
      lastName: 'Last name may contain only letters, spaces, hyphens, apostrophes and periods.',
      clientId: 'CRM client id must be a positive whole number such as 1001 or #1001.',
      email: 'Email address must be a valid address such as name@example.org.',
      phone: 'Phone number must be 6 to 20 digits, optionally with a leading +, spaces, dots, dashes or brackets.',
    });
  });

  it('reads a client id written #1001, or given as a number', () => {
    expect(validateActivationRequest({ device: 'x', firstName: 'a', lastName: 'b', clientId: '#1001' })).toMatchObject({ ok: true, request: { clientId: 1001 } });
    expect(validateActivationRequest({ device: 'x', firstName: 'a', lastName: 'b', clientId: 1001 })).toMatchObject({ ok: true, request: { clientId: 1001 } });
    expect(validateActivationRequest({ device: 'x', firstName: 'a', lastName: 'b', clientId: '2147483648' })).toEqual({ ok: false, errors: { clientId: 'CRM client id must be at most 2147483647.' } });
  });

  it('refuses control characters and lengths UISP does not take', () => {
    const result = validateActivationRequest({ device: 'cpe\u001b[2J', firstName: 'a'.repeat(61), lastName: 'b', email: `${'a'.repeat(250)}@x.org` });
    expect(result).toEqual({
      ok: false,
      errors: {
        device: 'Device IP, MAC address or name must not contain control characters.',
        firstName: 'First name must be at most 60 characters.',
        email: 'Email address must be at most 254 characters.',
      },
    });
    // Each name fits, but the NMS site "First Last" would not.
    expect(validateActivationRequest({ device: 'x', firstName: 'a'.repeat(50), lastName: 'b'.repeat(50) })).toEqual({
      ok: false,
      errors: { lastName: 'First and last name together must be at most 99 characters (the NMS site name limit).' },
    });
  });
});
