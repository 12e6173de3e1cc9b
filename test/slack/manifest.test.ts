/**
 * The app manifests are valid (Slack's own JSON Schema from slackapi/manifest-schema, vendored in
 * test/fixtures/slack/manifest-schema) and declare exactly the slash commands the app registers, with the
 * same descriptions and usage hints: manifest.yml for Socket Mode, and manifest.http.yml for HTTP mode,
 * which is the same app with every request URL taken from one placeholder.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { SLASH_COMMANDS } from '../../src/commands/index.js';

const read = (path: string) => readFileSync(fileURLToPath(new URL(path, import.meta.url)), 'utf8');
const schemas = '../fixtures/slack/manifest-schema/';
// The root schema $refs the versioned schemas by their GitHub URLs; register the vendored copies under them.
const VERSIONED_URL = 'https://raw.githubusercontent.com/slackapi/manifest-schema/v0.5.0/schemas/';

interface Manifest {
  features: { slash_commands: { command: string; description: string; usage_hint?: string; url?: string }[]; app_home?: { home_tab_enabled?: boolean } };
  oauth_config: { scopes: { bot: string[] } };
  settings: {
    socket_mode_enabled: boolean;
    interactivity: { is_enabled: boolean; request_url?: string; message_menu_options_url?: string };
    event_subscriptions?: { request_url?: string; bot_events?: string[] };
  };
}

const MANIFESTS = { 'manifest.yml': read('../../manifest.yml'), 'manifest.http.yml': read('../../manifest.http.yml') };
const manifest = parse(MANIFESTS['manifest.yml']) as Manifest;
const http = parse(MANIFESTS['manifest.http.yml']) as Manifest;
/** The one placeholder of manifest.http.yml: replace its host and every URL follows. */
const PLACEHOLDER_URL = 'https://subops.example.com/slack/events';

function manifestAjv(): Ajv {
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats.default(ajv);
  return ajv;
}

describe.each(Object.keys(MANIFESTS))('%s', (file) => {
  const parsed = parse(MANIFESTS[file as keyof typeof MANIFESTS]) as Manifest;

  it('validates against the Slack app manifest schema', () => {
    const ajv = manifestAjv();
    ajv.addSchema(JSON.parse(read(`${schemas}schemas/manifest.schema.1.0.0.json`)), `${VERSIONED_URL}manifest.schema.1.0.0.json`);
    ajv.addSchema(JSON.parse(read(`${schemas}schemas/manifest.schema.2.0.0.json`)), `${VERSIONED_URL}manifest.schema.2.0.0.json`);
    const validate = ajv.compile(JSON.parse(read(`${schemas}manifest.schema.json`)));
    const valid = validate(parsed);
    expect(valid, ajv.errorsText(validate.errors, { separator: '\n' })).toBe(true);
  });

  it('the schema check has teeth: a broken manifest fails it', () => {
    const validate = manifestAjv().compile(JSON.parse(read(`${schemas}schemas/manifest.schema.1.0.0.json`)));
    expect(validate({ ...parsed, features: { slash_commands: [{ command: 'activate', description: '' }] } })).toBe(false);
  });

  it('lists exactly the slash commands the app registers, with the same texts', () => {
    const declared = parsed.features.slash_commands.map((c) => ({ command: c.command, description: c.description, usage_hint: c.usage_hint }));
    const registered = SLASH_COMMANDS.map((c) => ({ command: c.name, description: c.description, usage_hint: c.usageHint }));
    expect(declared).toEqual(registered);
  });
});

describe('manifest.yml', () => {
  it('runs in Socket Mode with interactivity and only the bot scopes the app uses', () => {
    expect(manifest.settings.socket_mode_enabled).toBe(true);
    expect(manifest.settings.interactivity.is_enabled).toBe(true);
    expect(manifest.oauth_config.scopes.bot.sort()).toEqual(['channels:history', 'channels:read', 'chat:write', 'commands', 'files:read', 'files:write', 'groups:history', 'groups:read', 'im:write', 'usergroups:read']);
    for (const command of manifest.features.slash_commands) expect(command.url).toBeUndefined();
  });

  it('has the Home tab on and subscribes to app_home_opened, the one event the app listens to', () => {
    expect(manifest.features.app_home?.home_tab_enabled).toBe(true);
    expect(manifest.settings.event_subscriptions?.bot_events).toEqual(['app_home_opened']);
  });
});

describe('manifest.http.yml', () => {
  it('runs over HTTP: every slash command, interactivity, the options load and the event subscription at the placeholder URL', () => {
    expect(http.settings.socket_mode_enabled).toBe(false);
    expect(http.features.slash_commands.map((c) => c.url)).toEqual(SLASH_COMMANDS.map(() => PLACEHOLDER_URL));
    expect(http.settings.interactivity).toEqual({ is_enabled: true, request_url: PLACEHOLDER_URL, message_menu_options_url: PLACEHOLDER_URL });
    expect(http.settings.event_subscriptions?.request_url).toBe(PLACEHOLDER_URL);
    // SubOps serves all of them on one path (src/slack/inbound.ts), so one placeholder is all there is to fill in.
    const urls: string[] = [];
    const collect = (value: unknown): void => {
      if (typeof value === 'string' && value.includes('://')) urls.push(value);
      else if (value && typeof value === 'object') Object.values(value).forEach(collect);
    };
    collect(http);
    expect(urls).toEqual(Array.from({ length: SLASH_COMMANDS.length + 3 }, () => PLACEHOLDER_URL));
  });

  it('is manifest.yml apart from the URLs and Socket Mode, so the two cannot drift apart', () => {
    const withoutUrls = structuredClone(http);
    for (const command of withoutUrls.features.slash_commands) delete command.url;
    delete withoutUrls.settings.interactivity.request_url;
    delete withoutUrls.settings.interactivity.message_menu_options_url;
    delete withoutUrls.settings.event_subscriptions?.request_url;
    const socket = parse(MANIFESTS['manifest.yml']) as Manifest;
    expect(withoutUrls).toEqual({ ...socket, settings: { ...socket.settings, socket_mode_enabled: false } });
  });
});
