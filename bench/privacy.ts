/**
 * Ingest with privacy at ingest off, masking every entity type, and hashing them: OTLP
 * protobuf requests of 100 spans, each span carrying 2 KB of support-chat text with
 * personal data in it. No two spans carry the same text (names, places, numbers and
 * addresses vary), so nothing the server might remember between values helps.
 */
import { ENTITY_TYPES } from '../src/modules/evaluators/index.ts';
import { ExportTraceServiceRequestType } from '../src/modules/traces/ingest/otlp-schema.ts';
import { backendCpu, threadCpu, type BenchServer } from './lib.ts';
import { benchIngest } from './traces.ts';

const FIRST = ['Maria', 'James', 'Aisha', 'Lukas', 'Sofia', 'Daniel', 'Mei', 'Omar', 'Hannah', 'Carlos', 'Ingrid', 'Tomasz', 'Priya', 'Kwame', 'Elena', 'Noah'];
const LAST = ['Gonzalez', 'Smith', 'Khan', 'Müller', 'Rossi', 'Cohen', 'Chen', 'Haddad', 'Becker', 'Silva', 'Larsen', 'Nowak', 'Patel', 'Mensah', 'Petrova', 'Walker'];
const CITIES = ['Denver', 'Leeds', 'Lyon', 'Porto', 'Austin', 'Gdansk', 'Bergen', 'Toronto', 'Seville', 'Utrecht', 'Adelaide', 'Nairobi'];
const DAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday'];
const MONTHS = ['January', 'March', 'May', 'July', 'September', 'November'];

/** A small deterministic generator, so every run sends the same texts. */
function digits(seed: number, n: number): string {
  let x = (seed * 2654435761) >>> 0;
  let out = '';
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    out += String((x >>> 16) % 10);
  }
  return out;
}

/** About 2 KB of support-chat English, different for every `n`, with a realistic share of personal data. */
export function privateText2kb(n: number): string {
  let out = '';
  for (let k = 0; out.length < 2048; k++) {
    const s = n * 31 + k;
    const first = FIRST[s % FIRST.length];
    const last = LAST[(s * 7 + 3) % LAST.length];
    const city = CITIES[(s * 5 + 1) % CITIES.length];
    const d = digits(s, 16);
    const sentences = [
      `Hi, this is ${first} ${last} from the billing team in ${city}.`,
      `Please call me back at (303) 555-${d.slice(0, 4)} or write to ${first.toLowerCase()}.${last.toLowerCase()}${d.slice(4, 6)}@example.com.`,
      `The refund for order ${d.slice(6, 11)} was issued to the card ending ${d.slice(11, 15)} on ${MONTHS[s % MONTHS.length]} ${1 + (s % 27)}th.`,
      `Our office at ${100 + (s % 1800)} Pennsylvania Avenue will be closed on ${DAYS[s % DAYS.length]}.`,
      'Customers can reach support through the help center any time of day.',
      `The IBAN on file is DE89 3704 0044 0532 0130 00 and the server IP is 192.168.${s % 256}.${(s * 3) % 256}.`,
      `We reviewed the logs for ticket ${d.slice(2, 8)} and found no further issues with the account.`,
    ];
    out += sentences[k % sentences.length] + ' ';
  }
  return out.slice(0, 2048);
}

const hex = (n: number, len: number) => n.toString(16).padStart(len, '0').slice(-len);
const kv = (key: string, value: string) => ({ key, value: { stringValue: value } });

/** benchIngest's request body: every span's input is 2 KB of text with personal data. */
export function privateOtlpRequest(firstTrace: number, spansPerRequest: number, spansPerTrace: number, startMs: number, salt: number): Buffer {
  const spans = [];
  for (let i = 0; i < spansPerRequest; i++) {
    const traceNo = firstTrace + Math.floor(i / spansPerTrace);
    const inTrace = i % spansPerTrace;
    const t = startMs + (traceNo % 2_000_000) * 1000 + inTrace;
    spans.push({
      traceId: Buffer.from(hex(salt, 8) + hex(traceNo + 1, 24), 'hex'),
      spanId: Buffer.from(hex(traceNo + 1, 10) + hex(inTrace + 1, 6), 'hex'),
      parentSpanId: inTrace === 0 ? Buffer.alloc(0) : Buffer.from(hex(traceNo + 1, 10) + hex(1, 6), 'hex'),
      name: inTrace === 0 ? 'agent' : 'chat gpt-4o-mini',
      kind: inTrace === 0 ? 2 : 3,
      startTimeUnixNano: (BigInt(t) * 1_000_000n).toString(),
      endTimeUnixNano: (BigInt(t + 400) * 1_000_000n).toString(),
      attributes: [kv('openinference.span.kind', inTrace === 0 ? 'AGENT' : 'LLM'), kv('input.value', privateText2kb(traceNo * spansPerTrace + inTrace + salt * 1_000_003)), kv('output.value', 'Thanks, I have passed this on.')],
      status: { code: 1 },
    });
  }
  const message = ExportTraceServiceRequestType.fromObject({
    resourceSpans: [{ resource: { attributes: [kv('service.name', 'bench-privacy')] }, scopeSpans: [{ scope: { name: 'bench' }, spans }] }],
  });
  return Buffer.from(ExportTraceServiceRequestType.encode(message).finish());
}

export type PrivacyBenchMode = 'off' | 'mask' | 'hash';

export interface PrivacyBenchResult {
  /** Spans per second, median of the rounds, by mode. */
  spansPerSecond: Record<PrivacyBenchMode, number>;
  rounds: Record<PrivacyBenchMode, number[]>;
  requestP50: Record<PrivacyBenchMode, number>;
  /**
   * CPU time per span of the server (all its threads: main, OTLP decode, PGlite, V8's helpers;
   * on PostgreSQL also the backends serving its database), ms, median of the rounds, by mode.
   * Other work on the machine moves it far less than spans per second.
   */
  cpuMsPerSpan: Record<PrivacyBenchMode, number>;
  cpuRounds: Record<PrivacyBenchMode, number[]>;
  /** The main thread's share of cpuMsPerSpan (where redaction runs), ms per span, median of the rounds. */
  mainCpuMsPerSpan: Record<PrivacyBenchMode, number>;
}


/**
 * Rounds of each mode interleaved (off, mask, hash, off, ...) on one server (in this
 * process, its clients in their own), so all meet the same database state; the median
 * round of each mode counts. A first round of every mode is not counted: a server that has
 * run for a while is what is measured, and the detection workers' code is still being
 * optimised through their first few thousand texts (the five warm-up requests of a round do
 * not cover them: with three rounds counted, the first masked round was the slowest in five
 * runs of seven). Each round's requests are different spans made the same way (new trace ids,
 * texts from the same generator), so no mode writes over another's rows.
 */
export async function benchPrivacy(
  server: BenchServer,
  opts: { requestsOff: number; requestsOn: number; rounds: number; warmUpRounds: number; clients: number; inFlight: number },
): Promise<PrivacyBenchResult> {
  const setMode = async (mode: PrivacyBenchMode) => {
    const res = await fetch(`${server.baseUrl}/api/privacy/settings`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${server.creds.adminApiKey}`, 'x-project-id': server.creds.project.id },
      body: JSON.stringify({ mode, entities: ENTITY_TYPES }),
    });
    if (res.status !== 200) throw new Error(`privacy settings answered ${res.status}: ${await res.text()}`);
  };
  const modes: PrivacyBenchMode[] = ['off', 'mask', 'hash'];
  type Round = { spansPerSecond: number; requestP50: number; cpuMsPerSpan: number; mainCpuMsPerSpan: number };
  const rounds: Record<PrivacyBenchMode, Round[]> = { off: [], mask: [], hash: [] };
  let firstTrace = 0;
  for (let round = 0; round < opts.warmUpRounds + opts.rounds; round++) {
    for (const mode of modes) {
      await setMode(mode);
      const requests = mode === 'off' ? opts.requestsOff : opts.requestsOn;
      let cpu = threadCpu();
      let used = cpu();
      let backendsBefore = new Map<number, number>();
      let backends = 0;
      const r = await benchIngest(
        server,
        { requests, clients: opts.clients, inFlight: opts.inFlight, firstTrace, salt: 5, body: privateOtlpRequest },
        {
          start: async () => {
            backendsBefore = await backendCpu(server);
            cpu = threadCpu();
          },
          end: async () => {
            used = cpu();
            for (const [pid, s] of await backendCpu(server)) backends += s - (backendsBefore.get(pid) ?? 0);
          },
        },
      );
      const seconds = used.main + used.decode + used.busiestOther + used.rest + backends;
      if (round >= opts.warmUpRounds) rounds[mode].push({ spansPerSecond: r.spansPerSecond, requestP50: r.requestP50, cpuMsPerSpan: (seconds * 1000) / r.spans, mainCpuMsPerSpan: (used.main * 1000) / r.spans });
      // Past this round's traces and its warm-up's (10,000,000 + firstTrace + 100).
      firstTrace += requests * 20 + 200;
    }
  }
  await setMode('off');
  const medianOf = (rs: Round[], k: keyof Round) => [...rs].sort((a, b) => a[k] - b[k])[Math.floor(rs.length / 2)][k];
  const pick = (k: keyof Round) => Object.fromEntries(modes.map((m) => [m, medianOf(rounds[m], k)])) as Record<PrivacyBenchMode, number>;
  const each = (k: keyof Round, digits: number) => Object.fromEntries(modes.map((m) => [m, rounds[m].map((r) => Number(r[k].toFixed(digits)))])) as Record<PrivacyBenchMode, number[]>;
  return {
    spansPerSecond: pick('spansPerSecond'),
    requestP50: Object.fromEntries(modes.map((m) => [m, [...rounds[m]].sort((a, b) => a.spansPerSecond - b.spansPerSecond)[Math.floor(rounds[m].length / 2)].requestP50])) as Record<PrivacyBenchMode, number>,
    rounds: each('spansPerSecond', 0),
    cpuMsPerSpan: pick('cpuMsPerSpan'),
    cpuRounds: each('cpuMsPerSpan', 2),
    mainCpuMsPerSpan: pick('mainCpuMsPerSpan'),
  };
}
