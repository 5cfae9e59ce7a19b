/**
 * `node --import tsx bench/privacy-pipeline.ts`: CPU time per span of privacy at ingest's
 * own work on OTLP rows, detection left out: the privacy bench's requests (bench/privacy.ts,
 * 100 spans of 2 KB text each) decoded as the decode worker does, then redacted as ingest
 * does (the rows' JSON read, their values walked and replaced, the rows written again),
 * with three detectors: one that finds nothing, and the PII engine's findings for each text
 * recorded once and replayed (mask and hash), so detection itself costs nothing. REQ sets
 * the requests (default 4), RUNS the runs (default 7); prints each run and the median.
 */
import { answer } from '../src/modules/traces/ingest/otlp-decode-worker.ts';
import { ENTITY_TYPES } from '../src/modules/evaluators/index.ts';
import { piiDetector, type Detector } from '../src/modules/privacy/detect.ts';
import { compilePolicy, Redactor } from '../src/modules/privacy/redaction.ts';
import { redactPiece } from '../src/modules/traces/redact-rows.ts';
import type { PreparedRows } from '../src/modules/traces/span-rows.ts';
import { median } from './lib.ts';
import { privateOtlpRequest } from './privacy.ts';

const requests = Number(process.env.REQ ?? '4');
const runs = Number(process.env.RUNS ?? '7');
const start = Date.now() - 150 * 86_400_000;
const pieces: PreparedRows[] = [];
for (let i = 0; i < requests; i++) {
  const body = privateOtlpRequest(i * 20, 100, 5, start, 5);
  const [decoded] = answer({ id: 1, signal: 'traces', body, contentType: 'application/x-protobuf', contentEncoding: '', maxInflatedBytes: 1e8, latestTimeMs: Date.now() + 1e9, maxValueBytes: 1e6 });
  if (!('traces' in decoded)) throw new Error('the bench request did not decode');
  pieces.push(...decoded.traces.pieces);
}
const spans = requests * 100;
const known = new Map<string, ReturnType<Detector>>();
const recording: Detector = (text, entities) => {
  const found = piiDetector(text, entities);
  known.set(text, found);
  return found;
};
const replay: Detector = (text, entities) => known.get(text) ?? recording(text, entities);
const none: Detector = () => [];
const meter = { redacted() {}, failed() {} };

/** CPU ms per span of redacting every piece (a new policy each time, so its findings cache starts empty). */
async function run(detector: Detector, mode: 'mask' | 'hash'): Promise<number> {
  const policy = compilePolicy({ mode, entities: ENTITY_TYPES, untouchedKeys: [], patterns: [] });
  const redactor = new Redactor(policy, Buffer.from('bench-key'), { detector, budgetMs: 1e9, meter, path: 'otlp' });
  const before = process.cpuUsage();
  for (const piece of pieces) await redactPiece(piece, redactor, 1_000);
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000 / spans;
}

await run(recording, 'mask');
const results: Record<string, number[]> = { 'nothing found': [], 'mask, findings replayed': [], 'hash, findings replayed': [] };
for (let i = 0; i < runs; i++) {
  results['nothing found'].push(await run(none, 'mask'));
  results['mask, findings replayed'].push(await run(replay, 'mask'));
  results['hash, findings replayed'].push(await run(replay, 'hash'));
}
for (const [name, ms] of Object.entries(results)) console.log(`${name}: median ${median(ms).toFixed(3)} ms of CPU per span (runs ${ms.map((x) => x.toFixed(3)).join(', ')})`);
