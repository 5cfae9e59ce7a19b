import fs from 'node:fs';
import path from 'node:path';

/**
 * The code of the page a navigation opens, named in the first answer. The built index.html
 * preloads the entry and the libraries every page uses; a page's own code (the route's module
 * and the chunks it imports) is otherwise asked for only once the entry has run, a round trip
 * and the entry's run time later. Named here as <link rel="modulepreload"> per page, it
 * arrives beside the entry. The chunks come from the build's manifest (dist/ui/.vite/manifest.json).
 */

/** A page path (without query) and the route modules the app draws for it, shell first: as src/ui/router.tsx declares them. */
const PAGES: [RegExp, string[]][] = [
  [/^\/signin$/, ['routes/signin.tsx']],
  [/^\/authorize$/, ['routes/authorize.tsx']],
  [/^\/(invite|reset-password)\/[^/]+$/, ['routes/set-password.tsx']],
  [/^\/share\/[^/]+$/, ['routes/share.tsx']],
  // The root and a project's root open its traces list.
  [/^\/(p\/[^/]+\/?)?$/, ['routes/traces.tsx']],
  ...(
    [
      ['traces', 'traces'],
      ['traces/[^/]+', 'trace'],
      ['users', 'users'],
      ['threads/[^/]+', 'thread'],
      ['prompts', 'prompts'],
      ['prompts/[^/]+', 'prompt'],
      ['datasets', 'datasets'],
      ['datasets/[^/]+', 'dataset'],
      ['queues', 'queues'],
      ['queues/[^/]+/review', 'queue-review'],
      ['evaluators', 'evaluators'],
      ['evaluators/new', 'custom-evaluator'],
      ['evaluators/custom/[^/]+/edit', 'custom-evaluator'],
      ['evaluators/[^/]+/[^/]+', 'evaluator'],
      ['monitors', 'monitors'],
      ['monitors/new', 'monitor-new'],
      ['monitors/[^/]+', 'monitor'],
      ['experiments', 'experiments'],
      ['experiments/[^/]+/setup', 'experiment-setup'],
      ['experiments/[^/]+/compare', 'experiment-compare'],
      ['experiments/[^/]+', 'experiment'],
      ['analytics', 'analytics'],
      ['settings/(projects|members|api-keys|webhooks|model-providers|privacy|organization|account)', 'settings/layout'],
    ] as const
  ).map(([page, module]): [RegExp, string[]] => [new RegExp(`^/p/[^/]+/${page}/?$`), [`routes/${module}.tsx`]]),
];

interface ManifestChunk {
  file: string;
  imports?: string[];
  isEntry?: boolean;
}

/** A function from a page's path to the <link> tags of its code, or null when the build has no manifest (nothing is added then). */
export function pageCodeLinks(uiDir: string): ((pagePath: string) => string) | null {
  let manifest: Record<string, ManifestChunk>;
  try {
    manifest = JSON.parse(fs.readFileSync(path.join(uiDir, '.vite', 'manifest.json'), 'utf8')) as Record<string, ManifestChunk>;
  } catch {
    return null;
  }
  // What the entry preloads already (itself and its static imports) is not named twice.
  const closure = (keys: string[], into = new Set<string>()) => {
    for (const key of keys) {
      if (into.has(key) || !manifest[key]) continue;
      into.add(key);
      closure(manifest[key].imports ?? [], into);
    }
    return into;
  };
  const entry = closure(Object.keys(manifest).filter((k) => manifest[k].isEntry));
  const shell = 'routes/shell.tsx';
  const cache = new Map<string, string>();
  return (pagePath) => {
    const found = PAGES.find(([pattern]) => pattern.test(pagePath));
    if (!found) return '';
    let modules = found[1];
    if (pagePath.startsWith('/p/') || pagePath === '/') modules = [shell, ...modules];
    if (pagePath.includes('/settings/')) modules = [...modules, `routes/settings/${pagePath.split('/settings/')[1].replace(/\/$/, '')}.tsx`];
    const key = modules.join(',');
    let links = cache.get(key);
    if (links === undefined) {
      links = [...closure(modules)]
        .filter((k) => !entry.has(k))
        .map((k) => `<link rel="modulepreload" crossorigin href="/${manifest[k].file}">`)
        .join('');
      cache.set(key, links);
    }
    return links;
  };
}
