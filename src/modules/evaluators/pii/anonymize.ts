/**
 * Replace each finding with `<ENTITY_TYPE>` (or what `token` makes of the finding's type and text). Findings may overlap (an e-mail address and
 * the domain inside it); like Presidio's anonymizer, results of one type that intersect
 * are merged, and a result inside another, or on the same span with a lower score, is
 * dropped. Presidio would then garble the text on partial overlaps of different types;
 * here the higher-scoring (then longer) one wins.
 *
 * Offsets are code points, as in the findings.
 */
export function anonymize(
  text: string,
  findings: readonly Span[],
  token: (entityType: string, found: string) => string = (entityType) => `<${entityType}>`,
): string {
  if (findings.length === 0) return text;
  const chosen = resolveConflicts(findings);
  const chars = /[\uD800-\uDFFF]/.test(text) ? Array.from(text) : null;
  const slice = (from: number, to?: number) => (chars ? chars.slice(from, to).join('') : text.slice(from, to));
  let out = '';
  let cursor = 0;
  for (const f of chosen) {
    out += slice(cursor, f.start) + token(f.entity_type, slice(f.start, f.end));
    cursor = f.end;
  }
  return out + slice(cursor);
}

/** A finding where it is (code points) and how sure; the PII engine's findings and a project's own patterns' matches. */
export interface Span {
  entity_type: string;
  start: number;
  end: number;
  score: number;
}

function resolveConflicts(findings: readonly Span[]): Span[] {
  // Merge intersecting results of the same type.
  let spans: Span[] = findings.map((f) => ({ entity_type: f.entity_type, start: f.start, end: f.end, score: f.score }));
  let merged = true;
  while (merged) {
    merged = false;
    outer: for (let a = 0; a < spans.length; a++) {
      for (let b = a + 1; b < spans.length; b++) {
        const x = spans[a];
        const y = spans[b];
        if (x.entity_type === y.entity_type && x.start < y.end && y.start < x.end) {
          spans[a] = { entity_type: x.entity_type, start: Math.min(x.start, y.start), end: Math.max(x.end, y.end), score: Math.max(x.score, y.score) };
          spans.splice(b, 1);
          merged = true;
          break outer;
        }
      }
    }
  }
  // Drop results contained in another, or equal to a better-scored one.
  spans = spans.filter((s, i) =>
    !spans.some((o, j) => {
      if (i === j) return false;
      if (o.start === s.start && o.end === s.end) return o.score > s.score || (o.score === s.score && j < i);
      return o.start <= s.start && o.end >= s.end;
    }),
  );
  // Partial overlaps of different types: the stronger finding wins.
  const ranked = [...spans].sort((a, b) => b.score - a.score || b.end - b.start - (a.end - a.start) || a.start - b.start);
  const kept: Span[] = [];
  for (const s of ranked) if (!kept.some((k) => k.start < s.end && s.start < k.end)) kept.push(s);
  return kept.sort((a, b) => a.start - b.start);
}
