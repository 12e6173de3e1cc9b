/**
 * .env.example stays true: it lists every setting (src/config-variables.ts, which is also what
 * src/config.ts is found to read in its source, so the list cannot fall behind), each once, with the
 * default the code applies, and the Configuration page (docs/configuration.md) names each one too.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadAppConfig, loadCoreConfig, type Env } from '../../src/config.js';
import { SETTINGS } from '../../src/config-variables.js';
import { parseEnvText } from '../../src/process/env-syntax.js';

const read = (path: string) => readFileSync(fileURLToPath(new URL(path, import.meta.url)), 'utf8');

/** Every `reader.<kind>('NAME'…)` call in src/config.ts (`this.<kind>` in the reader's own): the variables the configuration reads. */
const READ = [...new Set([...read('../../src/config.ts').matchAll(/\b(?:reader|this)\.\w+\(\s*'([A-Z][A-Z0-9_]*)'/g)].map(([, name]) => name!))];

/** `NAME=value` lines of .env.example, set (`NAME=`) or commented out (`# NAME=default`). */
const EXAMPLE = read('../../.env.example')
  .split('\n')
  .flatMap((line) => {
    const match = /^(#\s*)?([A-Z][A-Z0-9_]*)=(.*)$/.exec(line);
    return match ? [{ name: match[2]!, value: match[3]!, commented: Boolean(match[1]) }] : [];
  });

describe('.env.example', () => {
  it('finds the variables in src/config.ts (the scan itself works)', () => {
    expect(READ.length).toBeGreaterThan(40);
    expect(READ).toEqual(expect.arrayContaining(['UISP_URL', 'UISP_TOKEN', 'SLACK_BOT_TOKEN', 'OPS_HOST', 'SERVICE_STATUS_NUMBERING']));
  });

  it('the settings list is what the configuration reads: no setting is listed that nothing reads', () => {
    expect([...SETTINGS].sort()).toEqual([...READ].sort());
  });

  it('lists every setting, once, and nothing else', () => {
    const listed = EXAMPLE.map((entry) => entry.name);
    expect(listed.filter((name, i) => listed.indexOf(name) !== i)).toEqual([]);
    expect([...listed].sort()).toEqual([...SETTINGS].sort());
  });

  it('sets nothing as it is: the lines not commented out are empty, to be filled in', () => {
    expect(EXAMPLE.filter((entry) => !entry.commented && entry.value !== '')).toEqual([]);
    // SubOps' own parser (the one it reads .env with) reads every line, and sees only those empty values.
    const parsed = parseEnvText(read('../../.env.example'));
    expect(parsed.problems).toEqual([]);
    expect(parsed.assignments.every((assignment) => assignment.value === '')).toBe(true);
  });

  it('shows each default the code applies: uncommenting them all changes nothing', () => {
    const defaults: Env = Object.fromEntries(EXAMPLE.filter((entry) => entry.commented && entry.value !== '').map((entry) => [entry.name, entry.value]));
    expect(Object.keys(defaults).length).toBeGreaterThan(25);
    const http = { UISP_URL: 'https://uisp.example.net', UISP_TOKEN: 't', SLACK_BOT_TOKEN: 'xoxb-1', SLACK_SIGNING_SECRET: 's', ALLOWED_USERGROUP_ID: 'S0OPS' };
    const socket = { ...http, SLACK_APP_TOKEN: 'xapp-1', WEBHOOK_PORT: '3001' };
    for (const base of [http, socket]) expect(loadAppConfig({ ...defaults, ...base })).toEqual(loadAppConfig(base));
    expect(loadCoreConfig(defaults)).toEqual(loadCoreConfig({}));
  });

  it('every variable is in the settings table of docs/configuration.md too', () => {
    const page = read('../../docs/configuration.md');
    const start = page.indexOf('\n## Settings\n');
    expect(start).toBeGreaterThan(-1);
    const end = page.indexOf('\n## ', start + 1);
    const section = page.slice(start, end === -1 ? undefined : end);
    const missing = READ.filter((name) => !section.includes(`\`${name}\``));
    expect(missing).toEqual([]);
  });
});
