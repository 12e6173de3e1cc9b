/**
 * `npm run docs:surfaces`: writes docs/slack-surfaces.md from the view functions (./slack-surfaces/page.ts).
 * Run it after changing a view; test/docs/slack-surfaces.test.ts fails while the page is out of date.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { slackSurfacesPage } from './slack-surfaces/page.js';

const target = fileURLToPath(new URL('../docs/slack-surfaces.md', import.meta.url));
writeFileSync(target, slackSurfacesPage());
console.log(`Wrote ${target}`);
