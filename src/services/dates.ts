import { format, parseISO, subDays } from 'date-fns';

/** Calendar dates in the ISP's time zone: "today" for a Guyana ISP is not UTC's today after 20:00. */
export function todayIn(timeZone: string, at: Date = new Date()): string {
  // en-CA formats as YYYY-MM-DD; Intl does the zone arithmetic, including DST where it applies.
  return new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(at);
}

/** The calendar date `days` days before a YYYY-MM-DD date (calendar days: a DST change is not a day). */
export function daysBefore(date: string, days: number): string {
  return format(subDays(parseISO(date), days), 'yyyy-MM-dd');
}
