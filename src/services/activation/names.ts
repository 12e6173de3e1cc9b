/** Title Case for person names: each part after a space, hyphen or apostrophe starts upper case. */
export function titleCase(name: string): string {
  return name
    .trim()
    .replace(/\s+/g, ' ')
    .toLocaleLowerCase('en')
    .replace(/(^|[\s'’-])(\p{L})/gu, (_, separator: string, letter: string) => separator + letter.toLocaleUpperCase('en'));
}

/** Case- and spacing-insensitive name equality, as agents type names inconsistently. */
export function sameName(a: string | null | undefined, b: string): boolean {
  return (a ?? '').trim().replace(/\s+/g, ' ').toLocaleLowerCase('en') === b.trim().replace(/\s+/g, ' ').toLocaleLowerCase('en');
}
