/**
 * The one pino setup, for the Slack app and the CLI alike. Secrets are redacted by key, whatever
 * object they appear in, so a token passed along by mistake is never written out. `err` is an Error
 * with its real type (UispError, TypeError…), message and stack; anything else logged as `err` (a
 * summary object, a message) is kept as it is, never dressed up as an error of type "Object".
 */
import { types } from 'node:util';
import { pino, stdSerializers, type DestinationStream, type Logger } from 'pino';

const SECRET_KEYS = ['token', 'botToken', 'appToken', 'signingSecret', 'crmToken', 'nmsToken', 'responseUrl', 'response_url', 'authorization'];
/** Header names are not identifiers, so they take the bracket form, and only ever appear nested. */
const SECRET_HEADERS = ['x-auth-token', 'x-auth-app-key', 'x-slack-signature'];

const REDACT_PATHS = [
  ...SECRET_KEYS.flatMap((key) => [key, `*.${key}`, `*.*.${key}`]),
  ...SECRET_HEADERS.flatMap((header) => [`*["${header}"]`, `*.*["${header}"]`]),
];

/** An Error (its causes included) with its type and stack; any other value unchanged. */
export function serializeErr(value: unknown): unknown {
  return value instanceof Error || types.isNativeError(value) ? stdSerializers.errWithCause(value) : value;
}

export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino({ level, base: { app: 'subops' }, serializers: { err: serializeErr }, redact: { paths: REDACT_PATHS, censor: '[redacted]' } }, destination);
}

/**
 * LOG_FORMAT=pretty: the log written as readable lines to `out` (development). pino-pretty is a dev
 * dependency, loaded only then: an install without it says which setting to change.
 */
export async function prettyDestination(out: NodeJS.WritableStream): Promise<DestinationStream> {
  let build: typeof import('pino-pretty').build;
  try {
    ({ build } = await import('pino-pretty'));
  } catch {
    throw new Error('LOG_FORMAT=pretty needs pino-pretty, a dev dependency (npm ci installs it); use LOG_FORMAT=json in production');
  }
  return build({ destination: out, colorize: false, sync: true });
}
