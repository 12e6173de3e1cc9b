/**
 * A URL as SubOps shows it: in `config check`, in logs and errors, and in the CRM links it posts in
 * Slack and prints in the terminal. A user name and password in UISP_URL (a proxy's basic auth) are
 * sent with the requests, never shown.
 */
export function shownUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return url;
  }
  if (!parsed.username && !parsed.password) return url;
  parsed.username = '';
  parsed.password = '';
  // URL adds a "/" to a bare origin; the settings are kept without one.
  return url.endsWith('/') ? parsed.href : parsed.href.replace(/\/$/, '');
}
