/**
 * The shape the code keeps (issue 16): bounded contexts (`libs/<context>`, the projections
 * folder, each app) depend on each other in one direction only. A cycle between two contexts
 * means neither can be read, tested or moved without the other; this test names the files
 * that close any cycle so it is fixed where it starts.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const ROOT = resolve(__dirname, '..');
const SOURCE_ROOTS = ['libs', 'projections', 'apps/server', 'apps/cli'];
const IMPORT = /(?:import|export)\s[^'"]*?from\s+['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)/g;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'node_modules' ? [] : sourceFiles(path);
    return /\.tsx?$/.test(name) && !/\.(spec|conformance)\.ts$/.test(name) ? [path] : [];
  });
}

/**
 * `libs/zones/...` → `zones`; `apps/server/...` → `apps/server`; `projections/...` →
 * `projections`. A context's pure `domain/` folder is a node of its own (`zones/domain`):
 * the projections (the read side of every context) read the domain's events, and the
 * contexts' queries read the projections' read models; neither is a cycle as long as the
 * domain imports nothing above it.
 */
export function contextOf(file: string): string {
  const parts = relative(ROOT, file).split(/[\\/]/);
  if (parts[0] === 'apps') return `apps/${parts[1]}`;
  if (parts[0] === 'libs') return parts[2] === 'domain' ? `${parts[1]}/domain` : parts[1];
  return parts[0];
}

function contextGraph(): Map<string, Map<string, string[]>> {
  const graph = new Map<string, Map<string, string[]>>();
  for (const file of SOURCE_ROOTS.flatMap((r) => sourceFiles(join(ROOT, r)))) {
    const from = contextOf(file);
    for (const m of readFileSync(file, 'utf8').matchAll(IMPORT)) {
      const to = contextOf(resolve(dirname(file), m[1] ?? m[2]));
      if (to === from || to.split('/')[0] === from.split('/')[0]) continue;
      const edges = graph.get(from) ?? new Map<string, string[]>();
      edges.set(to, [...(edges.get(to) ?? []), relative(ROOT, file)]);
      graph.set(from, edges);
    }
  }
  return graph;
}

/** Every elementary cycle's first witness: for each strongly connected group, the edges inside it. */
function cycles(graph: Map<string, Map<string, string[]>>): string[] {
  const found: string[] = [];
  for (const [a, edges] of graph) {
    for (const [b, files] of edges) {
      if (a < b && graph.get(b)?.has(a)) found.push(`${a} -> ${b} (${files[0]}) and ${b} -> ${a} (${graph.get(b)!.get(a)![0]})`);
    }
  }
  // Longer cycles: a path back to the start through other contexts.
  const reach = (start: string, target: string, seen = new Set<string>()): boolean =>
    [...(graph.get(start)?.keys() ?? [])].some((n) => n === target || (!seen.has(n) && (seen.add(n), reach(n, target, seen))));
  for (const [a, edges] of graph) {
    for (const b of edges.keys()) {
      if (!graph.get(b)?.has(a) && reach(b, a)) found.push(`${a} -> ${b} -> ... -> ${a} (${edges.get(b)![0]})`);
    }
  }
  return found;
}

describe('architecture', () => {
  it('has no import cycles between bounded contexts', () => {
    expect(cycles(contextGraph())).toEqual([]);
  });

  it('keeps the pure and shared layers free of the contexts above them', () => {
    const graph = contextGraph();
    for (const lower of ['shared', 'eventstore', 'readstore']) {
      const upward = [...(graph.get(lower)?.keys() ?? [])].filter((c) => !['shared', 'eventstore', 'readstore'].includes(c));
      expect({ lower, upward }).toEqual({ lower, upward: [] });
    }
  });
});
