/** "Did you mean …?" for a mistyped command or flag. */

/** Edits between two words (insert, delete, substitute, swap two neighbours). */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * The known word the typed one most likely meant: the only one it begins (`act` → `activate`), else
 * the nearest within a couple of typos (a third of its length at most); undefined when none is close.
 */
export function closest(typed: string, known: readonly string[]): string | undefined {
  const word = typed.toLowerCase().replace(/_/g, '-');
  if (!word) return undefined;
  const exact = known.find((candidate) => candidate.toLowerCase() === word);
  if (exact) return exact;
  const prefixed = known.filter((candidate) => candidate.toLowerCase().startsWith(word));
  if (prefixed.length === 1 && word.length >= 2) return prefixed[0];
  const limit = Math.max(1, Math.min(2, Math.floor(word.length / 3)));
  let best: { candidate: string; distance: number } | undefined;
  for (const candidate of known) {
    const distance = editDistance(word, candidate.toLowerCase());
    if (distance <= limit && (!best || distance < best.distance)) best = { candidate, distance };
  }
  return best?.candidate;
}

/** The one line for a subcommand that is not one: the nearest known one when close (`config chek` → `check`), else the list. */
export function unknownSubcommand(command: string, typed: string | undefined, known: readonly string[]): string {
  const list = known.map((name) => `subops ${command} ${name}`).join(', ');
  if (typed === undefined) return `Missing the subcommand: ${list}.`;
  const meant = closest(typed, known);
  return meant ? `Unknown subcommand "${typed}". Did you mean "${meant}"? (subops ${command} ${meant})` : `Unknown subcommand "${typed}": only ${list}.`;
}
