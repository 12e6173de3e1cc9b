/**
 * src/slack/bolt.ts hands the Slack app Bolt's values without loading Bolt's entry point (Express and
 * the rest, a third of start-up). It must hand out the very objects the entry point exports, and the
 * Slack side must take Bolt's values from it: one stray `import { X } from '@slack/bolt'` brings the
 * whole entry point back.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as entryPoint from '@slack/bolt';
import { describe, expect, it } from 'vitest';
import * as bolt from '../../src/slack/bolt.js';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? sources(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : []));
}

describe('src/slack/bolt.ts', () => {
  it("hands out the objects Bolt's entry point exports", () => {
    expect(bolt.App).toBe(entryPoint.App);
    expect(bolt.HTTPReceiver).toBe(entryPoint.HTTPReceiver);
    expect(bolt.LogLevel).toBe(entryPoint.LogLevel);
    expect(bolt.isValidSlackRequest).toBe(entryPoint.isValidSlackRequest);
    expect(bolt.defaultBodyLimit).toBe(entryPoint.defaultBodyLimit);
    expect(bolt.webApi.WebClient).toBe(entryPoint.webApi.WebClient);
  });

  it("is where the Slack app takes Bolt's values from (type imports load nothing; the CLI's audit is no part of the bot)", () => {
    const valueImport = /import\s+(?!type\b)[^;]*?from\s+'@slack\/bolt'|import\(\s*'@slack\/bolt'\s*\)/;
    const offenders = sources(SRC)
      .map((file) => relative(SRC, file))
      .filter((file) => file !== join('slack', 'bolt.ts') && !file.startsWith(`cli/`))
      .filter((file) => valueImport.test(readFileSync(join(SRC, file), 'utf8')));
    expect(offenders).toEqual([]);
  });

  it('loads Socket Mode (and ws and undici under it) only when the app uses it', () => {
    // A fresh process: this one has loaded Bolt's entry point, which loads everything.
    const script = `
      const { createRequire } = await import('node:module');
      const { App } = await import(${JSON.stringify(join(SRC, 'slack', 'bolt.ts'))});
      const loaded = () => Object.keys(createRequire(import.meta.url).cache).filter((path) => /node_modules[\\/](@slack[\\/]socket-mode|ws|undici)[\\/]/.test(path)).length;
      const before = loaded();
      const app = new App({ token: 'xoxb-1', appToken: 'xapp-1', socketMode: true, deferInitialization: true });
      console.log(JSON.stringify({ before, after: loaded(), socketMode: app.receiver.constructor.name }));
    `;
    const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(JSON.parse(out)).toEqual({ before: 0, after: expect.any(Number), socketMode: 'SocketModeReceiver' });
    expect(JSON.parse(out).after).toBeGreaterThan(0);
  });
});
