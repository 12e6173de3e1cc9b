/**
 * pino for the app, and the adapter Bolt and its WebClient log through. Secrets are redacted by key,
 * and Bolt's debug output is dropped: at debug level Bolt logs whole request bodies (response URLs,
 * the legacy verification token), which must never reach the logs.
 */
import { LogLevel, type Logger as BoltLogger } from '@slack/bolt';
import { pino, type DestinationStream, type Logger } from 'pino';

const SECRET_KEYS = ['token', 'botToken', 'appToken', 'signingSecret', 'crmToken', 'nmsToken', 'responseUrl', 'response_url', 'authorization'];
/** Header names are not identifiers, so they take the bracket form, and only ever appear nested. */
const SECRET_HEADERS = ['x-auth-token', 'x-auth-app-key', 'x-slack-signature'];

const REDACT_PATHS = [
  ...SECRET_KEYS.flatMap((key) => [key, `*.${key}`, `*.*.${key}`]),
  ...SECRET_HEADERS.flatMap((header) => [`*["${header}"]`, `*.*["${header}"]`]),
];

export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino({ level, base: { app: 'subops' }, redact: { paths: REDACT_PATHS, censor: '[redacted]' } }, destination);
}

export function boltLogger(logger: Logger): BoltLogger {
  const bolt = logger.child({ component: 'bolt' });
  let level = LogLevel.INFO;
  const write = (method: 'info' | 'warn' | 'error') => (...msg: unknown[]) => bolt[method](msg.map((m) => (m instanceof Error ? m.message : typeof m === 'string' ? m : JSON.stringify(m))).join(' '));
  return {
    debug: () => undefined,
    info: write('info'),
    warn: write('warn'),
    error: write('error'),
    setLevel: (next) => {
      level = next;
    },
    getLevel: () => level,
    setName: () => undefined,
  };
}
