/**
 * lingua/language_detection with tinyld in place of Lingua: the languages found above
 * `threshold` on the input and the output, their ISO 639-1 codes upper-cased as Lingua's.
 * The skips, score (how many languages were found), label (the most confident one) and
 * details follow langevals' evaluator.
 */
import { z } from 'zod';
import { check } from '../checks/index.ts';

const LANGUAGES = [
  'AF', 'AR', 'AZ', 'BE', 'BG', 'BN', 'BS', 'CA', 'CS', 'CY', 'DA', 'DE', 'EL', 'EN', 'EO', 'ES', 'ET', 'EU', 'FA', 'FI', 'FR', 'GA', 'GU', 'HE', 'HI',
  'HR', 'HU', 'HY', 'ID', 'IS', 'IT', 'JA', 'KA', 'KK', 'KO', 'LA', 'LG', 'LT', 'LV', 'MI', 'MK', 'MN', 'MR', 'MS', 'NB', 'NL', 'NN', 'PA', 'PL', 'PT',
  'RO', 'RU', 'SK', 'SL', 'SN', 'SO', 'SQ', 'SR', 'ST', 'SV', 'SW', 'TA', 'TE', 'TH', 'TL', 'TN', 'TR', 'TS', 'UK', 'UR', 'VI', 'XH', 'YO', 'ZH', 'ZU',
] as const;

/** langevals' word count: words between spaces, or one per 5 bytes of UTF-8 (languages without spaces). */
function words(text: string): number {
  return Math.max(text.split(' ').length, Math.floor(Buffer.byteLength(text, 'utf8') / 5));
}

type DetectAll = typeof import('tinyld').detectAll;
let tinyld: Promise<DetectAll> | null = null;
/**
 * tinyld on first use: its language profiles take ~40 MiB of the server's memory and ~0.2 s
 * of CPU to load, which a server that never runs this evaluator should not pay at every start.
 */
function detector(): Promise<DetectAll> {
  tinyld ??= import('tinyld').then((m) => m.detectAll);
  return tinyld;
}

/** The languages found above the threshold, most confident first. */
function languages(detectAll: DetectAll, text: string, threshold: number): Map<string, number> {
  return new Map(
    detectAll(text)
      .filter((l) => l.accuracy > threshold)
      .sort((a, b) => b.accuracy - a.accuracy)
      .map((l) => [l.lang.toUpperCase(), l.accuracy]),
  );
}

export const languageDetection = check({
  path: 'lingua/language_detection',
  name: 'Lingua Language Detection',
  description:
    'Detects the language of the input and output to check if the answer is in the same language as the prompt, or in a specific expected language (tinyld, 62 languages, in place of Lingua).',
  data: z.object({
    input: z.string().nullish().default('').describe('The user message (needed for input_matches_output).'),
    output: z.string().describe('The assistant reply.'),
  }),
  settings: z.object({
    check_for: z.enum(['input_matches_output', 'output_matches_language']).default('input_matches_output').describe('What should be checked'),
    expected_language: z.enum(LANGUAGES).nullish().describe('The specific language that the output is expected to be'),
    min_words: z
      .number()
      .int()
      .min(0)
      .default(7)
      .describe('Minimum number of words to check, as the language detection can be unreliable for very short texts. Inputs shorter than the minimum will be skipped.'),
    threshold: z
      .number()
      .min(0)
      .max(1)
      .default(0.25)
      .describe('Minimum confidence threshold for the language detection. If the confidence is lower than this, the evaluation will be skipped.'),
  }),
  isGuardrail: true,
  evaluate: async ({ data, settings: s }) => {
    const input = data.input ?? '';
    const skipped = (details: string) => ({ status: 'skipped' as const, details });
    if (s.check_for === 'input_matches_output' && words(input) < s.min_words) return skipped(`Skipped because the input has less than ${s.min_words} words`);
    if (words(data.output) < s.min_words) return skipped(`Skipped because the output has less than ${s.min_words} words`);
    const detectAll = await detector();
    const output = languages(detectAll, data.output, s.threshold);
    if (output.size === 0) return skipped(`Skipped because no language could be detected on the output with a confidence higher than ${s.threshold}`);
    const expected = s.expected_language ?? null;
    if (s.check_for === 'output_matches_language') {
      return {
        status: 'processed' as const,
        score: output.size,
        passed: expected === null || output.has(expected),
        label: [...output.keys()][0],
        details: `Languages detected: ${[...output.keys()].join(', ')}`,
        raw_response: { output: Object.fromEntries(output) },
      };
    }
    const inputLanguages = languages(detectAll, input, s.threshold);
    if (inputLanguages.size === 0) return skipped(`Skipped because no language could be detected on the input with a confidence higher than ${s.threshold}`);
    let passed = [...output.keys()].some((l) => inputLanguages.has(l));
    let details = passed ? '' : 'Input and output languages do not match. ';
    if (expected !== null) {
      passed = passed && output.has(expected);
      if (!passed) details = `Input and output do not match the expected language: ${expected}. `;
    }
    return {
      status: 'processed' as const,
      score: new Set([...output.keys(), ...inputLanguages.keys()]).size,
      passed,
      label: [...inputLanguages.keys()][0],
      details: `${details}Input languages detected: ${[...inputLanguages.keys()].join(', ')}. Output languages detected: ${[...output.keys()].join(', ')}`,
      raw_response: { input: Object.fromEntries(inputLanguages), output: Object.fromEntries(output) },
    };
  },
});
