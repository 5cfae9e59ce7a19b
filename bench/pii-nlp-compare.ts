/**
 * Names, places and NRP alone: extractNlpEntities at an earlier commit against the current one
 * on texts neither has seen, alternated pair by pair in one process (CPU time), findings
 * compared first. `node --import tsx bench/pii-nlp-compare.ts <commit> [pairs]`: pairs of 300
 * texts (40 by default), each pair on new texts, which version runs first alternating.
 */
import * as current from '../src/modules/evaluators/pii/nlp.ts';
import { alternatedPairs, comparisonArgs, importBefore } from './pii-before.ts';
import { privateText2kb } from './privacy.ts';

type Nlp = Pick<typeof current, 'extractNlpEntities'>;
const { ref, runs: pairs, texts: compared } = comparisonArgs('pii-nlp-compare.ts', 40);
const before = await importBefore<Nlp>(ref, 'nlp.ts');
const TEXTS = 300;
let seed = 2_000_000;
const batch = () => Array.from({ length: TEXTS }, () => privateText2kb(seed++));

const r = alternatedPairs(before.extractNlpEntities, current.extractNlpEntities, compared, batch, pairs);
console.log(
  `extractNlpEntities: ${ref} ${r.before.toFixed(1)} us, current ${r.current.toFixed(1)} us per text; ` +
    `current / ${ref} ${r.ratio.toFixed(3)} (median of ${pairs} alternated pairs of ${TEXTS} texts)`,
);
