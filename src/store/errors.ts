/** The store could not be opened or reached: one line, naming the setting to look at, never a password. */
export class StoreError extends Error {
  override readonly name = 'StoreError';
}

/** host:port/database of a PostgreSQL URL, without user or password; "an unreadable URL" when it is not one. */
export function whereIs(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}${parsed.port ? `:${parsed.port}` : ''}${parsed.pathname}`;
  } catch {
    return 'an unreadable URL';
  }
}
