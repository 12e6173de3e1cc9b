/**
 * The import rules of ARCHITECTURE.md, checked on the source: no import cycles between modules, and each
 * folder imports only what its layer may. Reads src/ as text (static imports, `import type` included, and
 * dynamic `import()`), so a move that breaks a rule fails here, not in review.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../src', import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Module → the project modules it imports (paths relative to src/, .ts). */
function importGraph(): Map<string, { target: string; typeOnly: boolean }[]> {
  const graph = new Map<string, { target: string; typeOnly: boolean }[]>();
  const pattern = /(?:^|\n)\s*(import|export)\s+(type\s+)?[^'";]*?from\s+'(\.[^']+)'|import\(\s*'(\.[^']+)'\s*\)/g;
  for (const file of sourceFiles(SRC)) {
    const text = readFileSync(file, 'utf8');
    const edges = [...text.matchAll(pattern)].map((match) => {
      const specifier = match[3] ?? match[4]!;
      const target = relative(SRC, resolve(dirname(file), specifier)).replace(/\.js$/, '.ts');
      return { target, typeOnly: Boolean(match[2]) };
    });
    graph.set(relative(SRC, file), edges);
  }
  return graph;
}

const graph = importGraph();
const folderOf = (module: string) => module.split('/')[0]!;

describe('architecture', () => {
  it('reads every module and resolves every relative import to a file in src/', () => {
    expect(graph.size).toBeGreaterThan(100);
    const missing = [...graph].flatMap(([from, edges]) => edges.filter((edge) => !graph.has(edge.target) && !edge.target.endsWith('.json')).map((edge) => `${from} → ${edge.target}`));
    expect(missing).toEqual([]);
  });

  it('has no import cycles', () => {
    const cycles: string[] = [];
    const state = new Map<string, 'visiting' | 'done'>();
    const stack: string[] = [];
    const visit = (module: string) => {
      state.set(module, 'visiting');
      stack.push(module);
      for (const { target } of graph.get(module) ?? []) {
        if (state.get(target) === 'visiting') cycles.push([...stack.slice(stack.indexOf(target)), target].join(' → '));
        else if (!state.has(target) && graph.has(target)) visit(target);
      }
      stack.pop();
      state.set(module, 'done');
    };
    for (const module of graph.keys()) if (!state.has(module)) visit(module);
    expect(cycles).toEqual([]);
  });

  /** Folder → the folders (or single modules) under src/ it must not import. */
  const forbidden: Record<string, RegExp> = {
    services: /^(slack|cli|views|commands|playground|simulator|process)\/|^(app|serve|connect)\.ts$/,
    // SubOps' own state: SQL and its engines, knowing nothing of what it stores for whom.
    store: /^(services|slack|cli|views|render|commands|playground|simulator|process)\/|^(app|serve|connect|config|config-check|logging)\.ts$/,
    views: /^(slack\/(?!escape\.ts$|metadata\.ts$)|cli|commands|playground|simulator|process)\/|^(app|serve|connect)\.ts$|^services\/(uisp\/(http|exchange|pager|crm-client|nms-client)|container|converge)\.ts$/,
    // The sentences both front ends show: services' types and pure helpers only, nothing of either front end.
    render: /^(slack|cli|views|commands|playground|simulator|process)\/|^(app|serve|connect)\.ts$|^services\/(uisp\/(http|exchange|pager|crm-client|nms-client)|container|converge)\.ts$/,
    slack: /^(cli|commands|playground|simulator|process)\/|^(app|serve)\.ts$/,
    commands: /^(cli|playground|simulator|process)\/|^(app|serve|connect)\.ts$/,
    // The CLI's audit posts to the Slack audit channel too; `serve` and `demo` are loaded by main.ts as entry points.
    cli: /^(slack\/(?!audit\.ts$|errors\.ts$|logging\.ts$)|commands|views)\/|^app\.ts$/,
  };

  it.each(Object.keys(forbidden))('%s/ imports only what its layer may', (folder) => {
    const breaks = [...graph]
      .filter(([module]) => folderOf(module) === folder)
      .flatMap(([module, edges]) => edges.filter((edge) => forbidden[folder]!.test(edge.target)).map((edge) => `${module} → ${edge.target}`));
    expect(breaks).toEqual([]);
  });

  it('nothing outside src/cli/ imports the CLI', () => {
    const breaks = [...graph].filter(([module]) => folderOf(module) !== 'cli').flatMap(([module, edges]) => edges.filter((edge) => folderOf(edge.target) === 'cli').map((edge) => `${module} → ${edge.target}`));
    expect(breaks).toEqual([]);
  });

  it('the Slack app composes one register line per feature folder', () => {
    const features = readdirSync(join(SRC, 'commands'), { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => entry.name);
    const app = readFileSync(join(SRC, 'app.ts'), 'utf8');
    for (const feature of features) expect(app).toMatch(new RegExp(`from './commands/${feature}/index\\.js'`));
    expect(app.match(/^\s+\w+\.register\(app, deps\);$/gm)).toHaveLength(features.length);
  });
});
