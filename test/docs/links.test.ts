/**
 * The documentation's relative links lead somewhere: every `[text](path)` and `[text](path#anchor)` in
 * README.md, ARCHITECTURE.md, BENCHMARKS.md and docs/*.md names a file of the repository and, with an
 * anchor, a heading of that file as GitHub slugs it.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { usage } from '../../src/cli/main.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const PAGES = ['README.md', 'ARCHITECTURE.md', 'BENCHMARKS.md', ...readdirSync(join(ROOT, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)];

const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

/** The page without fenced code blocks and inline code, where brackets are not links. */
function prose(text: string): string {
  return text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's anchor for a heading (github-slugger): its text lowercased, punctuation dropped, spaces as hyphens. */
function githubSlug(heading: string): string {
  const text = heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[`*_]/g, (marker) => (marker === '_' ? '_' : ''))
    .trim()
    .toLowerCase();
  return text.replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '').replace(/ /g, '-');
}

/** Every anchor of a page, with GitHub's -1, -2… for repeated headings. */
function anchorsOf(text: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  const outsideCode = text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
  for (const [, heading] of outsideCode.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const slug = githubSlug(heading!);
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

/** Relative link targets of a page (http(s), mailto and other schemes left out). */
function relativeLinks(text: string): string[] {
  return [...prose(text).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map(([, target]) => target!).filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

describe('documentation links', () => {
  it('slugs headings as GitHub does', () => {
    expect(githubSlug('Quick start (fresh machine, Node 20.19+)')).toBe('quick-start-fresh-machine-node-2019');
    expect(githubSlug('Creating the Slack app from `manifest.yml`')).toBe('creating-the-slack-app-from-manifestyml');
    expect(githubSlug('Approvals: a second pair of eyes')).toBe('approvals-a-second-pair-of-eyes');
    expect(githubSlug('Payment notice (a change made in UISP)')).toBe('payment-notice-a-change-made-in-uisp');
    expect([...anchorsOf('# A\n## Notes\n```\n# not a heading\n```\n## Notes\n')]).toEqual(['a', 'notes', 'notes-1']);
  });

  it('finds the pages and their links (the scan itself works)', () => {
    expect(PAGES).toEqual(expect.arrayContaining(['README.md', 'docs/configuration.md', 'docs/failure-modes.md']));
    expect(relativeLinks(read('README.md')).length).toBeGreaterThan(10);
  });

  it.each(PAGES)('%s: every relative link and anchor resolves', (page) => {
    const dead: string[] = [];
    for (const target of relativeLinks(read(page))) {
      const [path, anchor] = target.split('#') as [string, string | undefined];
      const file = path === '' ? page : relative(ROOT, join(ROOT, dirname(page), decodeURIComponent(path)));
      if (!existsSync(join(ROOT, file))) {
        dead.push(`${target} (no file ${file})`);
        continue;
      }
      if (anchor !== undefined && file.endsWith('.md') && !anchorsOf(read(file)).has(anchor)) dead.push(`${target} (no heading #${anchor} in ${file})`);
    }
    expect(dead).toEqual([]);
  });
});

/**
 * Files that are not documentation point into it in their comments: `docs/running.md#anchor`, or by a
 * section's name, `README.md ("Configuration")` / `README, "Approvals"`. Each must name a page that
 * exists and a heading it has (a named section: a heading that starts with that name).
 */
const POINTING = ['.env.example', 'manifest.yml', 'manifest.http.yml', 'Dockerfile', 'compose.yaml'];
const PAGE = String.raw`(README(?:\.md)?|ARCHITECTURE\.md|docs/[\w-]+\.md)`;

function pointers(text: string): { page: string; anchor?: string; section?: string }[] {
  const page = (name: string) => (name === 'README' ? 'README.md' : name);
  const anchored = [...text.matchAll(new RegExp(`${PAGE}#([\\w-]+)`, 'g'))].map(([, name, anchor]) => ({ page: page(name!), anchor: anchor! }));
  const named = [...text.matchAll(new RegExp(`${PAGE},? \\(?"([^"]+)"`, 'g'))].map(([, name, section]) => ({ page: page(name!), section: section! }));
  return [...anchored, ...named];
}

function headingsOf(text: string): string[] {
  const outsideCode = text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
  return [...outsideCode.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)].map(([, heading]) => heading!.replace(/`/g, ''));
}

describe('pointers into the documentation from other files', () => {
  it('finds both kinds of pointer (the scan itself works)', () => {
    expect(pointers('see docs/security.md#approvals-a-second-pair-of-eyes; README.md ("Slack app"); README, "Permissions".')).toEqual([
      { page: 'docs/security.md', anchor: 'approvals-a-second-pair-of-eyes' },
      { page: 'README.md', section: 'Slack app' },
      { page: 'README.md', section: 'Permissions' },
    ]);
  });

  it.each(POINTING.filter((file) => existsSync(join(ROOT, file))))('%s: every page, anchor and section it names exists', (file) => {
    const dead: string[] = [];
    for (const { page, anchor, section } of pointers(read(file))) {
      if (!existsSync(join(ROOT, page))) {
        dead.push(`${page} (no such file)`);
        continue;
      }
      if (anchor !== undefined && !anchorsOf(read(page)).has(anchor)) dead.push(`${page}#${anchor} (no such heading)`);
      if (section !== undefined && !headingsOf(read(page)).some((heading) => heading.startsWith(section))) dead.push(`${page} ("${section}") (no such section)`);
    }
    expect(dead).toEqual([]);
  });
});

describe("the README's command list", () => {
  it('names every command `subops help` lists', () => {
    const commands = [...usage.matchAll(/^ {2}([a-z]+) {2,}/gm)].map(([, name]) => name!);
    expect(commands).toEqual(expect.arrayContaining(['activate', 'reasons', 'simulate', 'demo']));
    const listed = /From a terminal[\s\S]*?```\n([\s\S]*?)```/.exec(read('README.md'))?.[1] ?? '';
    expect(commands.filter((name) => !new RegExp(`\\bsubops ${name}\\b`).test(listed))).toEqual([]);
  });
});
