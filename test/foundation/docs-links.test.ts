import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The README and docs/ are the manual a newcomer navigates: every relative link must reach a
 * file of the repository, and every #anchor a heading of the file it names (GitHub's slugs).
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
const DOCS = ['README.md', ...fs.readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to dashes, repeats numbered. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const text of headings(markdown)) {
    const slug = text
      .trim()
      .toLowerCase()
      .replace(/<[^>]+>/g, '')
      .replace(/[`*_]/g, '')
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/[^\p{L}\p{N}\s-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    anchors.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return anchors;
}

function headings(markdown: string): string[] {
  const found: string[] = [];
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    const m = !fenced && /^#{1,6} (.+)$/.exec(line);
    if (m) found.push(m[1]);
  }
  return found;
}

/** Markdown links and images outside code, as [text](target). */
function linksOf(markdown: string): string[] {
  const prose = markdown.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
  return [...prose.matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => m[1]);
}

describe('the manual', () => {
  it('has a README of front-door size and the docs it points to', () => {
    const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    expect(readme.split('\n').length).toBeLessThan(250);
    for (const doc of ['getting-started', 'configuration', 'api', 'web-app', 'operating', 'performance', 'architecture']) {
      expect(readme).toContain(`docs/${doc}.md`);
    }
  });

  it.each(DOCS)('%s: every relative link reaches a file, and every anchor a heading', (doc) => {
    const text = fs.readFileSync(path.join(ROOT, doc), 'utf8');
    const broken: string[] = [];
    for (const link of linksOf(text)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(link)) continue; // http:, https:, mailto:
      const [file, anchor] = link.split('#') as [string, string | undefined];
      const target = file ? path.resolve(path.dirname(path.join(ROOT, doc)), decodeURIComponent(file)) : path.join(ROOT, doc);
      if (!fs.existsSync(target)) {
        broken.push(`${link}: no file ${path.relative(ROOT, target)}`);
        continue;
      }
      if (anchor && target.endsWith('.md') && !anchorsOf(fs.readFileSync(target, 'utf8')).has(anchor)) {
        broken.push(`${link}: no heading #${anchor} in ${path.relative(ROOT, target)}`);
      }
    }
    expect(broken).toEqual([]);
  });
});
