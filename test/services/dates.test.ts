import { describe, expect, it } from 'vitest';
import { daysBefore, midnightIn, todayIn } from '../../src/services/dates.js';

describe('midnightIn: the start of a day in the ISP time zone, in the CRM’s date-time form', () => {
  it.each([
    ['2026-11-22', 'America/Guyana', '2026-11-22T00:00:00-0400'],
    ['2026-01-01', 'UTC', '2026-01-01T00:00:00+0000'],
    ['2026-01-01', 'Asia/Kolkata', '2026-01-01T00:00:00+0530'],
    ['2026-01-01', 'Pacific/Chatham', '2026-01-01T00:00:00+1345'],
    // Summer and winter offsets of the same zone.
    ['2026-07-01', 'Europe/Amsterdam', '2026-07-01T00:00:00+0200'],
    ['2026-03-29', 'Europe/Amsterdam', '2026-03-29T00:00:00+0100'],
    // Clocks jump from 00:00 to 01:00: the day starts at 01:00, still that date.
    ['2026-09-06', 'America/Santiago', '2026-09-06T01:00:00-0300'],
    // Clocks fall back from 00:00 to 23:00 the day before: the day starts at the second midnight.
    ['2026-04-05', 'America/Santiago', '2026-04-05T00:00:00-0400'],
  ])('%s in %s → %s', (date, zone, expected) => {
    expect(midnightIn(date, zone)).toBe(expected);
  });

  it('names the same calendar date todayIn gives, in every zone', () => {
    for (const zone of ['America/Guyana', 'Asia/Tokyo', 'Pacific/Kiritimati', 'Pacific/Pago_Pago']) {
      const instant = Date.parse(midnightIn('2026-11-22', zone).replace(/([+-]\d{2})(\d{2})$/, '$1:$2'));
      expect(todayIn(zone, new Date(instant))).toBe('2026-11-22');
      expect(todayIn(zone, new Date(instant - 1))).toBe('2026-11-21');
    }
  });
});

describe('daysBefore: calendar days back from a YYYY-MM-DD date', () => {
  it.each([
    ['2026-11-22', 30, '2026-10-23'],
    ['2026-03-01', 1, '2026-02-28'],
    ['2024-03-01', 1, '2024-02-29'],
    ['2026-01-15', 30, '2025-12-16'],
    // A DST change in the host's zone is still one calendar day.
    ['2026-03-30', 1, '2026-03-29'],
    ['2026-11-22', 0, '2026-11-22'],
  ])('%s minus %i days → %s', (date, days, expected) => {
    expect(daysBefore(date, days)).toBe(expected);
  });
});
