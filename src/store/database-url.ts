/**
 * DATABASE_URL read as node-postgres reads it (pg-connection-string): a `host`, `port` or `password` in
 * the query wins over the URL's own. What SubOps prints of it (`whereIs`) comes from this parse, and
 * never holds the password.
 *
 * A URL with an `@` after its host (in the path, query or fragment) is refused as unreadable: that is a
 * password with a `/`, `?` or `#` left unencoded, which the driver would read as the host, port and
 * database (`postgres://subops:2024/Secret@db/x` names host `subops`, port 2024, database `Secret@db/x`)
 * and SubOps would print.
 */
export interface DatabaseAddress {
  /** Host and port as the driver connects to them; port empty for the default. */
  host: string;
  port: string;
  /** As written in the path (not decoded): empty for the driver's default. */
  database: string;
  /** Whether the URL itself holds a password (in its user info or its query). */
  hasPassword: boolean;
}

/** Why a DATABASE_URL is unreadable, and the fix. */
export const UNREADABLE_DATABASE_URL = 'a `/`, `?`, `#` or `@` in its user name or password must be percent-encoded (%2F, %3F, %23, %40)';

export function parseDatabaseUrl(url: string): DatabaseAddress | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') return undefined;
  if (`${parsed.pathname}${parsed.search}${parsed.hash}`.includes('@')) return undefined;
  const query = parsed.searchParams;
  return {
    host: query.get('host') || parsed.hostname,
    port: query.get('port') || parsed.port,
    database: parsed.pathname.slice(1),
    hasPassword: Boolean(query.get('password') || parsed.password),
  };
}

/** host:port/database of a PostgreSQL URL, without user or password; "an unreadable URL" when it is not one. */
export function whereIs(url: string): string {
  const address = parseDatabaseUrl(url);
  if (!address) return 'an unreadable URL';
  const { host, port, database } = address;
  return `${host || 'the default host'}${port ? `:${port}` : ''}${database ? `/${database}` : ''}`;
}
