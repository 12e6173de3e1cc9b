/**
 * manifest.yml is a valid app manifest (Slack's own JSON Schema from slackapi/manifest-schema, vendored in
 * test/fixtures/slack/manifest-schema) and declares exactly
 * the slash commands the app registers, with the same descriptions and usage hints.
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

const manifest = parse(read('../../manifest.yml')) as {
  features: { slash_commands: { command: string; description: string; usage_hint?: string; url?: string }[]; app_home?: { home_tab_enabled?: boolean } };
  oauth_config: { scopes: { bot: string[] } };
  settings: { socket_mode_enabled: boolean; interactivity: { is_enabled: boolean }; event_subscriptions?: { bot_events?: string[] } };
};

function manifestAjv(): Ajv {
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats.default(ajv);
  return ajv;
}

describe('manifest.yml', () => {
  it('validates against the Slack app manifest schema', () => {
    const ajv = manifestAjv();
    ajv.addSchema(JSON.parse(read(`${schemas}schemas/manifest.schema.1.0.0.json`)), `${VERSIONED_URL}manifest.schema.1.0.0.json`);
    ajv.addSchema(JSON.parse(read(`${schemas}schemas/manifest.schema.2.0.0.json`)), `${VERSIONED_URL}manifest.schema.2.0.0.json`);
    const validate = ajv.compile(JSON.parse(read(`${schemas}manifest.schema.json`)));
    const valid = validate(manifest);
    expect(valid, ajv.errorsText(validate.errors, { separator: '\n' })).toBe(true);
  });

  it('the schema check has teeth: a broken manifest fails it', () => {
    const validate = manifestAjv().compile(JSON.parse(read(`${schemas}schemas/manifest.schema.1.0.0.json`)));
    expect(validate({ ...manifest, features: { slash_commands: [{ command: 'activate', description: '' }] } })).toBe(false);
  });

  it('lists exactly the slash commands the app registers, with the same texts', () => {
    const declared = manifest.features.slash_commands.map((c) => ({ command: c.command, description: c.description, usage_hint: c.usage_hint }));
    const registered = SLASH_COMMANDS.map((c) => ({ command: c.name, description: c.description, usage_hint: c.usageHint }));
    expect(declared).toEqual(registered);
  });

  it('runs in Socket Mode with interactivity and only the bot scopes the app uses', () => {
    expect(manifest.settings.socket_mode_enabled).toBe(true);
    expect(manifest.settings.interactivity.is_enabled).toBe(true);
    expect(manifest.oauth_config.scopes.bot.sort()).toEqual(['channels:history', 'channels:read', 'chat:write', 'commands', 'files:write', 'groups:history', 'groups:read', 'im:write', 'usergroups:read']);
    for (const command of manifest.features.slash_commands) expect(command.url).toBeUndefined();
  });

  it('has the Home tab on and subscribes to app_home_opened, the one event the app listens to', () => {
    expect(manifest.features.app_home?.home_tab_enabled).toBe(true);
    expect(manifest.settings.event_subscriptions?.bot_events).toEqual(['app_home_opened']);
  });
});
