/**
 * The words of a text as context words are read (contextTokens) at an earlier commit against
 * the current one, on texts neither has seen, alternated pair by pair in one process (CPU time),
 * the words compared first, on the bench's texts and on texts of other scripts.
 * `node --import tsx bench/pii-context-compare.ts <commit> [pairs]`: pairs of 300 texts (40 by
 * default), each pair on new texts, which version runs first alternating.
 */
import * as current from '../src/modules/evaluators/pii/context.ts';
import { alternatedPairs, comparisonArgs, importBefore } from './pii-before.ts';
import { privateText2kb } from './privacy.ts';

type Context = Pick<typeof current, 'contextTokens'>;
const { ref, runs: pairs, texts } = comparisonArgs('pii-context-compare.ts', 40);
const before = await importBefore<Context>(ref, 'context.ts');
// Lower-cased as a whole or word by word (a dotted capital I, a final sigma), other scripts, stop words in capitals.
const ODD = ['İstanbul İZMİR phone', 'ΟΔΟΣ Σ A.Σ ΣΑ', 'Straße STRASSE ǅ ǈ', "it's the AND n't 'd THE The", 'Позвоните ПО ТЕЛЕФОНУ, and call me'];
const TEXTS = 300;
let seed = 2_000_000;
const batch = () => Array.from({ length: TEXTS }, () => privateText2kb(seed++));

const r = alternatedPairs(before.contextTokens, current.contextTokens, [...texts, ...ODD], batch, pairs);
console.log(
  `contextTokens: ${ref} ${r.before.toFixed(1)} us, current ${r.current.toFixed(1)} us per text; ` +
    `current / ${ref} ${r.ratio.toFixed(3)} (median of ${pairs} alternated pairs of ${TEXTS} texts)`,
);
