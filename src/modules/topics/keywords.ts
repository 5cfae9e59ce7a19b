/**
 * A topic's keywords: the words its traces use more than the others do (a TF-IDF over the sampled
 * inputs). They name a topic when no naming model is set, and help a model name it when one is.
 */

const STOPWORDS = new Set(
  `a about above after again against all am an and any are as at be because been before being below between both but by can
  could did do does doing down during each few for from further had has have having he her here hers herself him himself his how
  i if in into is it its itself just me more most my myself no nor not now of off on once only or other our ours ourselves out
  over own same she should so some such than that the their theirs them themselves then there these they this those through to
  too under until up very was we were what when where which while who whom why will with would you your yours yourself
  yourselves please thanks thank hi hello hey can could would get got want need like know tell help one also really much many
  make way use using used still even let lets ok okay yes yeah well`.split(/\s+/),
);

/** The words of a text that can be keywords: lower-case, letters and digits, three characters or more, not a stop word. */
export function keywordTokens(text: string): string[] {
  const out: string[] = [];
  for (const m of text.toLowerCase().matchAll(/[\p{L}\p{N}][\p{L}\p{N}'-]{2,}/gu)) {
    const w = m[0].replace(/'s$/, '');
    if (!STOPWORDS.has(w) && !/^\d+$/.test(w)) out.push(w);
  }
  return out;
}

/**
 * For each group of texts, its `count` most distinctive words: how many of the group's texts use
 * a word, weighted by how rare the word is across all groups.
 */
export function distinctiveWords(groups: readonly (readonly string[])[], count = 5): string[][] {
  const docFreq = groups.map((texts) => {
    const df = new Map<string, number>();
    for (const t of texts) for (const w of new Set(keywordTokens(t))) df.set(w, (df.get(w) ?? 0) + 1);
    return df;
  });
  const total = groups.reduce((s, g) => s + g.length, 0);
  const overall = new Map<string, number>();
  for (const df of docFreq) for (const [w, c] of df) overall.set(w, (overall.get(w) ?? 0) + c);
  return docFreq.map((df, i) => {
    const size = Math.max(1, groups[i].length);
    return [...df.entries()]
      .filter(([, c]) => c >= Math.min(2, size))
      .map(([w, c]) => ({ w, score: (c / size) * Math.log((total + 1) / (overall.get(w)! + 1)) }))
      .sort((a, b) => b.score - a.score || a.w.localeCompare(b.w))
      .slice(0, count)
      .map((x) => x.w);
  });
}
