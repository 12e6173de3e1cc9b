/**
 * The parts of Bolt the Slack app runs on, without Bolt's entry point: `@slack/bolt` also loads the
 * Express and AWS Lambda receivers (Express and some 120 modules SubOps never uses), a third of the
 * bot's start-up time. These are the very objects the entry point re-exports (test/slack/bolt.test.ts
 * checks it), typed by its public declarations; a Bolt release that moves them fails that test and
 * start-up at once, never quietly. Everything on the Slack side takes Bolt's values from here;
 * `import type` from '@slack/bolt' loads nothing and stays as it is.
 */
import { createRequire, Module } from 'node:module';
import type * as Bolt from '@slack/bolt';

const require = createRequire(import.meta.url);
/** Bolt's own dependencies resolve from Bolt's folder, wherever the package manager put them. */
const requireFromBolt = createRequire(require.resolve('@slack/bolt'));

deferSocketMode();
const app = require('@slack/bolt/dist/App.js') as { default: typeof Bolt.App; LogLevel: typeof Bolt.LogLevel };
const httpReceiver = require('@slack/bolt/dist/receivers/HTTPReceiver.js') as { default: typeof Bolt.HTTPReceiver };
const verifyRequest = require('@slack/bolt/dist/receivers/verify-request.js') as Pick<typeof Bolt, 'isValidSlackRequest'>;
const httpFunctions = require('@slack/bolt/dist/receivers/HTTPModuleFunctions.js') as Pick<typeof Bolt, 'defaultBodyLimit'>;

export const App = app.default;
export type App = Bolt.App;
export const LogLevel = app.LogLevel;
export type LogLevel = Bolt.LogLevel;
export const HTTPReceiver = httpReceiver.default;
export type HTTPReceiver = Bolt.HTTPReceiver;
export const { isValidSlackRequest } = verifyRequest;
export const { defaultBodyLimit } = httpFunctions;
export const webApi = requireFromBolt('@slack/web-api') as typeof Bolt.webApi;

/**
 * Bolt's App module requires its Socket Mode receiver up front, and with it the Socket Mode client, ws
 * and undici: most of App's load time, for a mode the bot uses only with SLACK_APP_TOKEN. Until App is
 * loaded, the receiver's module is a stand-in that loads the real one when App constructs a receiver
 * (and answers `instanceof` for it). Once anything has loaded App (Bolt's entry point, say), nothing is
 * changed. test/slack/serve.test.ts starts the bot in Socket Mode through it.
 */
function deferSocketMode(): void {
  if (require.cache[require.resolve('@slack/bolt/dist/App.js')]) return;
  const path = require.resolve('@slack/bolt/dist/receivers/SocketModeReceiver.js');
  if (require.cache[path]) return;
  let actual: typeof Bolt.SocketModeReceiver | undefined;
  const load = (): typeof Bolt.SocketModeReceiver => {
    if (actual) return actual;
    const standIn = require.cache[path];
    delete require.cache[path];
    actual = (require(path) as { default: typeof Bolt.SocketModeReceiver }).default;
    require.cache[path] = standIn;
    return actual;
  };
  class DeferredSocketModeReceiver {
    constructor(...args: ConstructorParameters<typeof Bolt.SocketModeReceiver>) {
      return new (load())(...args);
    }
    static [Symbol.hasInstance](value: unknown): boolean {
      return actual !== undefined && value instanceof actual;
    }
  }
  const standIn = new Module(path);
  standIn.filename = path;
  standIn.loaded = true;
  standIn.exports = { __esModule: true, default: DeferredSocketModeReceiver };
  require.cache[path] = standIn;
}
