/**
 * docs/slack-surfaces.md stays what the views draw today: the committed page is exactly what
 * `npm run docs:surfaces` would write, and each Block Kit Builder link carries real Block Kit.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { slackSurfacesPage, SURFACES_COMMAND } from '../../scripts/slack-surfaces/page.js';

const committed = readFileSync(fileURLToPath(new URL('../../docs/slack-surfaces.md', import.meta.url)), 'utf8');

describe('docs/slack-surfaces.md', () => {
  it('is what the view functions draw now', () => {
    const generated = slackSurfacesPage();
    if (committed !== generated) expect.fail(`docs/slack-surfaces.md is out of date with src/views: run ${SURFACES_COMMAND} and commit the page.`);
    expect(slackSurfacesPage()).toBe(generated);
  });

  it('links every surface to Block Kit Builder with its blocks, a modal or a Home tab', () => {
    const links = [...committed.matchAll(/\]\((https:\/\/app\.slack\.com\/block-kit-builder\/#[^)\s]+)\)/g)].map(([, url]) => url!);
    expect(links.length).toBeGreaterThanOrEqual(12);
    for (const url of links) {
      const payload = JSON.parse(decodeURIComponent(url.slice(url.indexOf('#') + 1))) as { type?: string; blocks?: unknown[] };
      expect(Array.isArray(payload.blocks) && payload.blocks.length > 0).toBe(true);
      expect([undefined, 'modal', 'home']).toContain(payload.type);
    }
  });
});
