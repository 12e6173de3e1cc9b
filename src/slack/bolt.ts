/**
 * The parts of Bolt the Slack app runs on, without Bolt's entry point: `@slack/bolt` also loads the
 * Express and AWS Lambda receivers (Express and some 120 modules SubOps never uses), a third of the
 * bot's start-up time. These are the very objects the entry point re-exports (test/slack/bolt.test.ts
 * checks it), typed by its public declarations; a Bolt release that moves them fails that test and
 * start-up at once, never quietly. Everything on the Slack side takes Bolt's values from here;
 * `import type` from '@slack/bolt' loads nothing and stays as it is.
 */
import { createRequire } from 'node:module';
import type * as Bolt from '@slack/bolt';

const require = createRequire(import.meta.url);
/** Bolt's own dependencies resolve from Bolt's folder, wherever the package manager put them. */
const requireFromBolt = createRequire(require.resolve('@slack/bolt'));

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
