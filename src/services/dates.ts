// date-fns by function, not its barrel (which loads all of it: a tenth of a second of every start-up).
import { formatISO } from 'date-fns/formatISO';
import { parseISO } from 'date-fns/parseISO';
import { subDays } from 'date-fns/subDays';

/** Calendar dates in the ISP's time zone: "today" for a Guyana ISP is not UTC's today after 20:00. */
export function todayIn(timeZone: string, at: Date = new Date()): string {
  return calendarDateIn(timeZone).format(at);
}

/** One formatter per zone: building an Intl.DateTimeFormat costs far more than formatting with it, and listings ask for "today" on every call. */
const calendarDates = new Map<string, Intl.DateTimeFormat>();
function calendarDateIn(timeZone: string): Intl.DateTimeFormat {
  let formatter = calendarDates.get(timeZone);
  if (!formatter) {
    // en-CA formats as YYYY-MM-DD; Intl does the zone arithmetic, including DST where it applies.
    formatter = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' });
    calendarDates.set(timeZone, formatter);
  }
  return formatter;
}

/** The calendar date `days` days before a YYYY-MM-DD date (calendar days: a DST change is not a day). */
export function daysBefore(date: string, days: number): string {
  return formatISO(subDays(parseISO(date), days), { representation: 'date' });
}

/**
 * The start of a calendar day (YYYY-MM-DD) in `timeZone`, in the form the UISP CRM documents for
 * service dates: ISO 8601 with the zone's offset and no colon, e.g. 2026-11-22T00:00:00-0400. The
 * CRM then stores the same calendar date the spec asks for, whatever zone the CRM itself runs in.
 * Where a DST change skips midnight, this is the first instant of that day.
 */
export function midnightIn(date: string, timeZone: string): string {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  const wallClock = Date.UTC(year, month - 1, day);
  // The zone's offsets a day either side cover any change that day; the earliest instant that is
  // already this date locally is its start.
  const candidates = [offsetMinutes(timeZone, wallClock - DAY_MS), offsetMinutes(timeZone, wallClock + DAY_MS)].map((offset) => wallClock - offset * 60_000);
  const instant = Math.min(...candidates.filter((candidate) => todayIn(timeZone, new Date(candidate)) === date));
  const offset = offsetMinutes(timeZone, instant);
  const localStart = new Date(instant + offset * 60_000).toISOString().slice(0, 19);
  const sign = offset < 0 ? '-' : '+';
  const abs = Math.abs(offset);
  return `${localStart}${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}${String(abs % 60).padStart(2, '0')}`;
}

const DAY_MS = 86_400_000;

/** The instants a calendar day of `timeZone` spans: from its first instant to the next day's (23 or 25 h across a DST change). */
export function dayBoundsIn(date: string, timeZone: string): { start: Date; end: Date } {
  return { start: new Date(Date.parse(midnightIn(date, timeZone))), end: new Date(Date.parse(midnightIn(daysBefore(date, -1), timeZone))) };
}

/**
 * The instant a wall-clock time of a calendar day shows in `timeZone`. Offsets are read at that time,
 * not at midnight, so a DST change overnight does not move it by an hour; a time a change skips comes
 * out an hour later, as a wall clock reads it.
 */
export function instantIn(date: string, { hour, minute }: { hour: number; minute: number }, timeZone: string): Date {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  const wallClock = Date.UTC(year, month - 1, day, hour, minute);
  const guess = wallClock - offsetMinutes(timeZone, wallClock) * 60_000;
  return new Date(wallClock - offsetMinutes(timeZone, guess) * 60_000);
}

/** Minutes the zone's wall clock is ahead of UTC at this instant (negative west of Greenwich). */
function offsetMinutes(timeZone: string, instant: number): number {
  const parts = new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' })
    .formatToParts(new Date(instant))
    .reduce<Record<string, number>>((acc, part) => (part.type === 'literal' ? acc : { ...acc, [part.type]: Number(part.value) }), {});
  const asUtc = Date.UTC(parts.year!, parts.month! - 1, parts.day, parts.hour, parts.minute, parts.second);
  return Math.round((asUtc - Math.floor(instant / 1000) * 1000) / 60_000);
}
