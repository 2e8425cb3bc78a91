import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPOSITORY_ROOT } from '#infra/local/stage/data-folder.ts';

/** Every .ts file under a folder of the repository. */
const sources = (folder: string): string[] =>
  readdirSync(join(REPOSITORY_ROOT, folder), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .map((file) => join(REPOSITORY_ROOT, folder, file));

/**
 * `shared/<folder>` for a file in shared/, and `shared/<feature>/adapters` or `…/api` for a
 * feature's edges: a feature's domain, its adapters and its HTTP schemas are layers apart (one
 * feature's adapters may build on another's while their use cases import the other way), so
 * each is a folder of its own. Else the top-level folder.
 */
const folderOf = (path: string): string => {
  const [top = '', second = '', third = ''] = relative(REPOSITORY_ROOT, path).split('/');
  if (top !== 'shared') return top;
  return third === 'adapters' || third === 'api' ? `shared/${second}/${third}` : `shared/${second}`;
};

/** Which folders each folder imports from (relative and `#` alias imports). */
function folderGraph(): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const file of [...sources('shared'), ...sources('functions')]) {
    for (const [, spec = ''] of readFileSync(file, 'utf8').matchAll(/from\s+'([^']+)'/g)) {
      const target = spec.startsWith('#')
        ? join(REPOSITORY_ROOT, spec.slice(1))
        : spec.startsWith('.')
          ? resolve(dirname(file), spec)
          : undefined;
      if (target === undefined || folderOf(target) === folderOf(file)) continue;
      const edges = graph.get(folderOf(file)) ?? new Set<string>();
      edges.add(folderOf(target));
      graph.set(folderOf(file), edges);
    }
  }
  return graph;
}

describe('folders import one another without cycles', () => {
  it('no folder reaches itself through its imports', () => {
    const graph = folderGraph();
    const cycles: string[] = [];
    const visiting: string[] = [];
    const done = new Set<string>();
    const visit = (folder: string) => {
      visiting.push(folder);
      for (const next of graph.get(folder) ?? []) {
        const at = visiting.indexOf(next);
        if (at >= 0) cycles.push([...visiting.slice(at), next].join(' -> '));
        else if (!done.has(next)) visit(next);
      }
      visiting.pop();
      done.add(folder);
    };
    for (const folder of graph.keys()) if (!done.has(folder)) visit(folder);
    expect(cycles).toEqual([]);
  });
});
