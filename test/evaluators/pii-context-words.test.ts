import { describe, expect, it } from 'vitest';
import { detectPii } from '../../src/modules/evaluators/pii/index.ts';
import { contextTokens } from '../../src/modules/evaluators/pii/context.ts';

// What counts as a word decides which words are within reach of a finding (five words before
// it and five after, besides the word it starts in): letters and digits of any script,
// astral ones included, and words joined by an apostrophe, a hyphen or "#" are one word.
function phoneScore(input: string): number {
  const found = detectPii(input, { entities: ['PHONE_NUMBER'], minThreshold: 0 });
  expect(found).toHaveLength(1);
  return found[0].score;
}

describe('PII context words among words of other scripts', () => {
  it.each([
    ['four words between', 'phone b c d e 4155550132', 0.75],
    ['five words between', 'phone b c d e f 4155550132', 0.4],
    ['five accented letters between', 'phone é ü ø å ж 4155550132', 0.4],
    ['four astral letters between', 'phone 𝐀 𝐁 𝐂 𝐃 4155550132', 0.75],
    ['five astral letters between', 'phone 𝐀 𝐁 𝐂 𝐃 𝐄 4155550132', 0.4],
    ['five digits of other scripts between', 'phone ٣ ४ ৫ ๖ ８ 4155550132', 0.4],
    ['five letters joined by hyphens, one word', 'phone é-ü-ø-å-ж 4155550132', 0.75],
    ['five words joined by apostrophes and "#", one word', "phone b'c’d#e'f# 4155550132", 0.75],
    ['five emoji between, no words', 'phone 😀 😀 😀 😀 😀 4155550132', 0.75],
    ['a context word glued to astral letters', '𝐀phone𝐁 4155550132', 0.75],
    ['a context word in capitals after an astral letter', '𝐀 PHONE 4155550132', 0.75],
    ['stop words between, which use up no room', 'phone the of and to in it 4155550132', 0.75],
    // Words are lower-cased from one lower-cased copy of the text, except where that differs from
    // lower-casing each word by itself: a character whose lower case is longer, a final sigma.
    ['a capital dotted I, longer in lower case, before the context word', 'İstanbul PHONE 4155550132', 0.75],
    ['a capital dotted I five words before the number', 'PHONE İ b c d e 4155550132', 0.4],
    ['a capital sigma ending a word', 'ΟΔΟΣ PHONE 4155550132', 0.75],
    ['a capital sigma after a full stop', 'A.Σ phone 4155550132', 0.75],
  ])('%s', (_name, input, score) => {
    expect(phoneScore(input)).toBeCloseTo(score, 6);
  });
});

describe('PII context words, lower-cased with the text once', () => {
  it('gives every word the lower case it has by itself, on texts of many scripts', () => {
    const texts = ['İstanbul İZMİR phone', 'ΟΔΟΣ Σ A.Σ ΣΑ', 'Straße STRASSE ǅ ǈ', 'plain ASCII Words #tag it’s well-known'];
    for (const t of texts) {
      for (const token of contextTokens(t)) expect(token.lower).toBe(t.slice(token.start, token.end).toLowerCase());
    }
  });
});
