/**
 * Ragas' traditional metrics, as Ragas computes them: `ragas/bleu_score` (sacrebleu's corpus
 * BLEU: 13a tokens, 4-grams, exponential smoothing, the reference's sentences as alternative
 * references) and `ragas/rouge_score` (Google's rouge_score with its stemmer: ROUGE-1 or
 * ROUGE-L, F-measure, precision or recall).
 */
import { z } from 'zod';
import { check } from '../checks/index.ts';
import { EvaluatorError } from '../errors.ts';
import { porterStem } from './porter-stemmer.ts';

const pair = z.object({
  output: z.string().describe('The generated text.'),
  expected_output: z.string().describe('The reference text.'),
});

/** sacrebleu's 13a tokenizer (mteval-v13a): punctuation split off, except periods and commas inside numbers. */
export function tokenize13a(line: string): string[] {
  let text = line.replaceAll('<skipped>', '').replaceAll('-\n', '').replaceAll('\n', ' ');
  if (text.includes('&')) text = text.replaceAll('&quot;', '"').replaceAll('&amp;', '&').replaceAll('&lt;', '<').replaceAll('&gt;', '>');
  text = ` ${text} `
    .replace(/([{-~[-` -&(-+:-@/])/g, ' $1 ')
    .replace(/([^0-9])([.,])/g, '$1 $2 ')
    .replace(/([.,])([^0-9])/g, ' $1 $2')
    .replace(/([0-9])(-)/g, '$1 $2 ');
  return text.split(/\s+/).filter(Boolean);
}

const MAX_ORDER = 4;

function ngramCounts(tokens: readonly string[], n: number): Map<string, number> {
  const counts = new Map<string, number>();
  for (let i = 0; i + n <= tokens.length; i++) {
    const key = tokens.slice(i, i + n).join('\u0000');
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

/**
 * sacrebleu's corpus_bleu(hypotheses, references) / 100, where references[k] is the k-th
 * reference stream (one sentence per hypothesis).
 */
export function corpusBleu(hypotheses: readonly string[], references: readonly (readonly string[])[]): number {
  if (references.some((stream) => stream.length !== hypotheses.length)) {
    throw new EvaluatorError('EOFError', 'Source and reference streams have different lengths!');
  }
  const correct = new Array<number>(MAX_ORDER).fill(0);
  const total = new Array<number>(MAX_ORDER).fill(0);
  let sysLen = 0;
  let refLen = 0;
  hypotheses.forEach((hypothesis, i) => {
    const hyp = tokenize13a(hypothesis.trimEnd());
    const refs = references.map((stream) => tokenize13a(stream[i].trimEnd()));
    sysLen += hyp.length;
    // The closest reference length; the shorter on ties.
    let closest = refs[0]?.length ?? 0;
    for (const r of refs) {
      const [d, best] = [Math.abs(r.length - hyp.length), Math.abs(closest - hyp.length)];
      if (d < best || (d === best && r.length < closest)) closest = r.length;
    }
    refLen += closest;
    for (let n = 1; n <= MAX_ORDER; n++) {
      const maxRef = new Map<string, number>();
      for (const r of refs) for (const [k, c] of ngramCounts(r, n)) maxRef.set(k, Math.max(maxRef.get(k) ?? 0, c));
      for (const [k, c] of ngramCounts(hyp, n)) {
        correct[n - 1] += Math.min(c, maxRef.get(k) ?? 0);
        total[n - 1] += c;
      }
    }
  });
  if (sysLen === 0) return 0;
  const precisions = new Array<number>(MAX_ORDER).fill(0);
  let smooth = 1;
  for (let n = 0; n < MAX_ORDER; n++) {
    if (total[n] === 0) break;
    if (correct[n] === 0) {
      smooth *= 2;
      precisions[n] = 100 / (smooth * total[n]);
    } else precisions[n] = (100 * correct[n]) / total[n];
  }
  // sacrebleu's my_log: log(0) is -9999999999, so a missing order gives 0.
  const logs = precisions.map((p) => (p === 0 ? -9999999999 : Math.log(p)));
  const brevity = sysLen < refLen ? Math.exp(1 - refLen / sysLen) : 1;
  return (brevity * Math.exp(logs.reduce((a, b) => a + b, 0) / MAX_ORDER)) / 100;
}

export const bleuScore = check({
  path: 'ragas/bleu_score',
  name: 'BLEU Score',
  description: 'Traditional NLP metric. BLEU score for evaluating the similarity between two strings.',
  data: pair,
  settings: z.object({}),
  evaluate: ({ data }) => {
    // Ragas: sentences split at ". "; each reference sentence is an alternative reference.
    const hypotheses = data.output.split('. ');
    const references = data.expected_output.split('. ').map((sentence) => [sentence]);
    return Promise.resolve({ status: 'processed', score: corpusBleu(hypotheses, references) });
  },
});

/** rouge_score's tokenizer: lower case, runs of anything but [a-z0-9] separate, words over 3 letters stemmed. */
export function rougeTokens(text: string): string[] {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .split(/\s+/)
    .filter(Boolean)
    .map((t) => (t.length > 3 ? porterStem(t) : t));
}

function lcsLength(a: readonly string[], b: readonly string[]): number {
  let previous = new Array<number>(b.length + 1).fill(0);
  for (const x of a) {
    const row = new Array<number>(b.length + 1).fill(0);
    for (let j = 1; j <= b.length; j++) row[j] = x === b[j - 1] ? previous[j - 1] + 1 : Math.max(previous[j], row[j - 1]);
    previous = row;
  }
  return previous[b.length];
}

export interface RougeScore {
  precision: number;
  recall: number;
  fmeasure: number;
}

/** rouge_score's RougeScorer([type], use_stemmer=True).score(target, prediction). */
export function rouge(type: 'rouge1' | 'rougeL', target: string, prediction: string): RougeScore {
  const t = rougeTokens(target);
  const p = rougeTokens(prediction);
  let overlap: number;
  if (type === 'rougeL') overlap = t.length && p.length ? lcsLength(t, p) : 0;
  else {
    const counts = ngramCounts(t, 1);
    overlap = 0;
    for (const [k, c] of ngramCounts(p, 1)) overlap += Math.min(c, counts.get(k) ?? 0);
  }
  const precision = p.length ? overlap / p.length : 0;
  const recall = t.length ? overlap / t.length : 0;
  const fmeasure = precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0;
  return { precision, recall, fmeasure };
}

export const rougeScore = check({
  path: 'ragas/rouge_score',
  name: 'ROUGE Score',
  description: 'Traditional NLP metric. ROUGE score for evaluating the similarity between two strings.',
  data: pair,
  settings: z.object({
    rouge_type: z.enum(['rouge1', 'rougeL']).default('rouge1').describe('ROUGE type'),
    measure_type: z.enum(['fmeasure', 'precision', 'recall']).default('fmeasure').describe('ROUGE measure type'),
  }),
  evaluate: ({ data, settings }) =>
    Promise.resolve({ status: 'processed', score: rouge(settings.rouge_type, data.expected_output, data.output)[settings.measure_type] }),
});
