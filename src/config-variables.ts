/**
 * The variables SubOps' configuration (src/config.ts) reads: the one list a `.env` may set
 * (src/process/env-file.ts), .env.example shows (test/services/env-example.test.ts) and compose passes
 * on. src/config.ts reads variables only through names of this list (its reader's parameter type).
 */
export const SETTINGS = [
  'UISP_URL',
  'UISP_TOKEN',
  'UISP_CRM_TOKEN',
  'UISP_NMS_TOKEN',
  'UISP_CONNECT_TIMEOUT_MS',
  'UISP_TIMEOUT_MS',
  'UISP_DEADLINE_MS',
  'UISP_RETRIES',
  'UISP_RETRY_BACKOFF_MS',
  'UISP_WRITE_RETRIES',
  'UISP_WRITE_BACKOFF_MS',
  'UISP_RETRY_WINDOW_MS',
  'UISP_POOL_CONNECTIONS',
  'UISP_PAGES_IN_FLIGHT',
  'ISP_TIMEZONE',
  'SERVICE_PLAN_PERIOD_ID',
  'SERVICE_PRICE',
  'NMS_PARENT_SITE_ID',
  'SHEET_CONCURRENCY',
  'SERVICE_STATUS_NUMBERING',
  'PAYMENT_MAX_AMOUNT',
  'LOG_LEVEL',
  'LOG_FORMAT',
  'SLACK_BOT_TOKEN',
  'SLACK_APP_TOKEN',
  'SLACK_SIGNING_SECRET',
  'PORT',
  'SLACK_API_URL',
  'AUDIT_CHANNEL_ID',
  'ALLOWED_USER_IDS',
  'ALLOWED_USERGROUP_ID',
  'ALLOWED_EVERYONE',
  'ACCESS_LOOKUP',
  'ACCESS_ACTIVATE',
  'ACCESS_SUSPEND',
  'ACCESS_UNSUSPEND',
  'ACCESS_RECORD_PAYMENT',
  'ACCESS_APPROVE',
  'ACCESS_ACKNOWLEDGE_OUTAGE',
  'APPROVAL_REQUIRED_FOR',
  'APPROVAL_PAYMENT_ABOVE',
  'APPROVALS_CHANNEL_ID',
  'APPROVAL_EXPIRY_HOURS',
  'SHUTDOWN_GRACE_MS',
  'WEBHOOK_TOKEN',
  'WEBHOOK_PORT',
  'WEBHOOK_RATE_PER_MINUTE',
  'WEBHOOK_PAYMENT_WINDOW_HOURS',
  'LINK_WATCH_INTERVAL_S',
  'LINK_REMINDER_HOURS',
  'OUTAGES_CHANNEL_ID',
  'OUTAGE_POLL_INTERVAL_S',
  'OUTAGE_MIN_MINUTES',
  'OPS_PORT',
  'OPS_HOST',
  'HEALTHZ_ON_SLACK_PORT',
  'DIGEST_CHANNEL_ID',
  'DIGEST_TIME',
  'DATABASE_URL',
  'STORE_DIR',
] as const;

/** The four status numbers of earlier versions, replaced by SERVICE_STATUS_NUMBERING: read only to name a leftover one. */
export const RETIRED_SETTINGS = ['SERVICE_STATUS_ACTIVE', 'SERVICE_STATUS_QUOTED', 'SERVICE_STATUS_OBSOLETE', 'SERVICE_STATUS_SUSPENDED'] as const;

/**
 * The settings whose values are secrets: each may come from a file instead, NAME_FILE in the environment
 * (src/secret-files.ts). DATABASE_URL holds the database's password.
 */
export const SECRET_SETTINGS = ['UISP_TOKEN', 'UISP_CRM_TOKEN', 'UISP_NMS_TOKEN', 'SLACK_BOT_TOKEN', 'SLACK_APP_TOKEN', 'SLACK_SIGNING_SECRET', 'WEBHOOK_TOKEN', 'DATABASE_URL'] as const satisfies readonly (typeof SETTINGS)[number][];
export type SecretSetting = (typeof SECRET_SETTINGS)[number];
export const isSecretSetting = (name: string): name is SecretSetting => (SECRET_SETTINGS as readonly string[]).includes(name);

export type ConfigVariable = (typeof SETTINGS)[number] | (typeof RETIRED_SETTINGS)[number];

const CONFIG_VARIABLES: ReadonlySet<string> = new Set<string>([...SETTINGS, ...RETIRED_SETTINGS]);

export const isConfigVariable = (name: string): name is ConfigVariable => CONFIG_VARIABLES.has(name);

/**
 * Where secrets are sent: each address setting, and the variables whose values go to it (a token in a
 * header, a password to the database; PGPASSWORD is the PostgreSQL driver's own fallback for a URL
 * without one). A `.env` may set the address only together with them, never aim the environment's at
 * an address of its own; a DATABASE_URL it sets must also hold its own password (src/process/env-file.ts).
 */
export const SECRET_DESTINATIONS: Readonly<Partial<Record<ConfigVariable, readonly string[]>>> = {
  UISP_URL: ['UISP_TOKEN', 'UISP_CRM_TOKEN', 'UISP_NMS_TOKEN'],
  SLACK_API_URL: ['SLACK_BOT_TOKEN', 'SLACK_APP_TOKEN'],
  DATABASE_URL: ['PGPASSWORD'],
};
