import { describe, expect, it } from 'vitest';
import { detectPii, type EntityType } from '../../src/modules/evaluators/pii/index.ts';

/**
 * The phone recognizers leave work out of a window when it cannot find anything: the
 * phone-shaped fallback is not searched in a window of fewer than 7 digits or one whose
 * every digit a number already took, and the check for a context word within reach is made
 * only before a matcher would run. A phone-shaped group beside a valid number in the same
 * window, at exactly 7 digits, or one digit short, must come out as a full search finds it.
 */
const PHONE: readonly EntityType[] = ['PHONE_NUMBER', 'PH_MOBILE_NUMBER'];
const find = (text: string, prune = true) =>
  detectPii(text, { entities: PHONE, minThreshold: 0.5, prune }).map((f) => `${f.entity_type} ${f.text} ${f.score}`);

describe('PII detection: phone windows', () => {
  it.each([
    ['a phone-shaped group of exactly 7 digits', 'Phone: 123 45 67 today', ['PHONE_NUMBER 123 45 67 0.55']],
    ['one of 6 digits', 'Phone: 123 45 6 today', []],
    [
      'a phone-shaped group in the window of a valid number',
      'Call (303) 555-0132 or 123 45 67 later',
      ['PHONE_NUMBER (303) 555-0132 1', 'PHONE_NUMBER 123 45 67 0.55'],
    ],
    ['two groups of one window', 'Call (303) 555-0132 or 555 0133 later', ['PHONE_NUMBER (303) 555-0132 1', 'PHONE_NUMBER 555 0133 0.55']],
    ['a German number and a group', 'call me at 0301 2345 or 98 76 543', ['PHONE_NUMBER 0301 2345 1', 'PHONE_NUMBER 98 76 543 0.55']],
    ['six digits with a call prefix, no context word', 'ticket 961000 and', []],
    ['eight digits, valid in Germany, with a context word', 'call 030 12345', ['PHONE_NUMBER 030 12345 1']],
  ])('%s', (_, text, expected) => {
    expect(find(text)).toEqual(expected);
    expect(find(text, false)).toEqual(expected);
  });

  it('finds the same numbers in a text however often, and in whatever order, windows of the same regions were searched before', () => {
    const texts = ['Call (303) 555-0132 or 123 45 67 later', 'call me at 0301 2345 or 98 76 543', 'Reach me on +44 20 7946 0958 or 0917 123 4567.'];
    const first = texts.map((t) => find(t));
    for (let round = 0; round < 3; round++) for (const [k, t] of [...texts.entries()].reverse()) expect(find(t)).toEqual(first[k]);
    expect(first[2].length).toBeGreaterThan(0);
  });
});
