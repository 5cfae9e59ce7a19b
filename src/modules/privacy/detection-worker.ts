/**
 * A detection worker (entry: detection-worker.entry.mjs; the main thread's side:
 * detection-pool.ts; the messages: detection-protocol.ts). It loads the PII engine once, warms
 * it (the word lists and gazetteers load on first use), says it is ready, then answers one
 * text at a time with what the engine and the project's patterns find in it.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { ALL_ENTITIES, compilePatterns, patternFindings, piiDetector, type CompiledPattern } from './detect.ts';
import { DETECTION_WORKER_ROLE, packFindings, type DetectionWorkerData, type FromWorker, type PolicyMessage, type ToWorker, type WorkerFault } from './detection-protocol.ts';

/** Policies a worker keeps (a process serves few projects with privacy on at once; an evicted one is sent again). */
const POLICIES_KEPT = 64;

const WARM_UP_TEXT = 'Maria Gonzalez from Denver wrote to maria@example.com, call +1 303 555 0147.';

interface Policy {
  entities: PolicyMessage['entities'];
  compiled: CompiledPattern[];
}

function serve(port: NonNullable<typeof parentPort>, fault: WorkerFault | undefined): void {
  const policies = new Map<number, Policy>();
  const send = (m: FromWorker) => port.postMessage(m);
  port.on('message', (m: ToWorker) => {
    if (m.kind === 'policy') {
      if (policies.size >= POLICIES_KEPT) policies.delete(policies.keys().next().value!);
      policies.set(m.policy, { entities: m.entities, compiled: compilePatterns(m.patterns) });
      return;
    }
    try {
      const policy = policies.get(m.policy);
      if (!policy) throw new Error(`policy ${m.policy} was not sent to this worker`);
      if (fault) injectFault(fault, m.text);
      const findings = packFindings([...piiDetector(m.text, policy.entities), ...patternFindings(m.text, policy.compiled)]);
      // The numbers' memory moves to the main thread rather than being copied.
      port.postMessage({ kind: 'found', id: m.id, findings } satisfies FromWorker, [findings.numbers.buffer]);
    } catch (err) {
      send({ kind: 'failed', id: m.id, error: err instanceof Error ? err.message : String(err) });
    }
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
if (parentPort && data?.role === DETECTION_WORKER_ROLE) serve(parentPort, data.fault);
