/**
 * A detection worker (entry: detection-worker.entry.mjs; the main thread's side:
 * detection-pool.ts; the messages: detection-protocol.ts). It loads the PII engine once, warms
 * it (the word lists and gazetteers load on first use), says it is ready, then answers each
 * batch of texts with what the engine and the project's patterns find in them, text by text,
 * telling the pool (DetectionProgress) which text it is on and since when.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { ALL_ENTITIES, compilePatterns, patternFindings, piiDetector, type CompiledPattern } from './detect.ts';
import { DETECTION_WORKER_ROLE, DetectionProgress, packBatch, type DetectionWorkerData, type FromWorker, type PolicyMessage, type ToWorker, type WorkerFault } from './detection-protocol.ts';

/** Policies a worker keeps (a process serves few projects with privacy on at once; an evicted one is sent again). */
const POLICIES_KEPT = 64;

const WARM_UP_TEXT = 'Maria Gonzalez from Denver wrote to maria@example.com, call +1 303 555 0147.';

interface Policy {
  entities: PolicyMessage['entities'];
  compiled: CompiledPattern[];
}

function serve(port: NonNullable<typeof parentPort>, fault: WorkerFault | undefined, progress: DetectionProgress): void {
  const policies = new Map<number, Policy>();
  const send = (m: FromWorker) => port.postMessage(m);
  port.on('message', (m: ToWorker) => {
    if (m.kind === 'policy') {
      if (policies.size >= POLICIES_KEPT) policies.delete(policies.keys().next().value!);
      policies.set(m.policy, { entities: m.entities, compiled: compilePatterns(m.patterns) });
      return;
    }
    const policy = policies.get(m.policy);
    if (!policy) return send({ kind: 'failed', seq: m.seq, error: `policy ${m.policy} was not sent to this worker` });
    const found = m.texts.map((text, i) => {
      progress.begin(m.seq, i);
      try {
        if (fault) injectFault(fault, text);
        return [...piiDetector(text, policy.entities), ...patternFindings(text, policy.compiled)];
      } catch {
        // This text fails (stored as [redaction failed]); the batch's others do not.
        return null;
      }
    });
    progress.end(m.texts.length);
    const findings = packBatch(found);
    // One message per batch (a message per text cost both threads more than packing does); the numbers' memory moves rather than being copied.
    port.postMessage({ kind: 'found', seq: m.seq, findings } satisfies FromWorker, [findings.numbers.buffer]);
  });
  piiDetector(WARM_UP_TEXT, ALL_ENTITIES);
  send({ kind: 'ready' });
}

function injectFault(fault: WorkerFault, text: string): void {
  if (fault.hangOn && text.includes(fault.hangOn)) for (;;) { /* a detection that never ends */ }
  if (fault.throwOn && text.includes(fault.throwOn)) throw new Error('detection broke (a test fault)');
  if (fault.exitOn && text.includes(fault.exitOn)) process.exit(1);
}

// Only in a thread started as a detection worker, not in any worker that imports this file (a test runner's).
const data = workerData as Partial<DetectionWorkerData> | null;
if (parentPort && data?.role === DETECTION_WORKER_ROLE && data.progress) serve(parentPort, data.fault, new DetectionProgress(data.progress));
