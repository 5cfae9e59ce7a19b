import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { hasChromium, launchBrowser } from '../test/support/browser.ts';
import { admin, median, percentile } from './lib.ts';
import { otlpRequest } from './otlp-payloads.ts';
import { cpuMs, procStatus, sampleRssPeak, startServer } from './overload.ts';

/**
 * Datasets: a 100,000-row CSV of ~50 MB uploaded in one request (time to stored, the
 * server's peak RSS while it is read and stored), the dataset read back through the records
 * route page by page (rows/s), its page in Chromium (first rows drawn), then 10,000 traces
 * matching a search added by the background import while ingest goes on (time to completed,
 * ingest latency meanwhile). The spec's upload limits (25 MiB, 10,000 rows) are the defaults
 * of SPYGLASS_DATASET_UPLOAD_MAX_BYTES / _MAX_ROWS; this bench raises them.
 * BENCH_DATASETS_BIN: the server to run (default this checkout's bin/spyglass.mjs), e.g. an
 * older checkout's, to compare before and after in one sitting.
 */
export interface DatasetsBenchResult {
  rows: number;
  fileMiB: number;
  uploadSeconds: number;
  /** CPU seconds the server used (user + system, all its threads): steadier than wall time on a shared machine. */
  uploadCpuSeconds: number;
  readCpuSeconds: number;
  restBeforeMiB: number;
  uploadPeakRssMiB: number;
  readRows: number;
  readSeconds: number;
  readRowsPerSecond: number;
  pageLimit: number;
  readPeakRssMiB: number;
  /** The dataset page in Chromium (null: no Chromium): ms from navigation to the first rows drawn. */
  page: { firstRowsMs: number; runs: number[]; endRowsMs: number; resources: { name: string; start: number; end: number }[] } | null;
  import: ImportBenchResult;
}

export interface ImportBenchResult {
  traces: number;
  /** From POST from-traces to the import answering completed (the job queue polls every 2 s). */
  seconds: number;
  /** Server CPU seconds over the import, the concurrent ingest's included. */
  cpuSeconds: number;
  recordsCreated: number;
  peakRssMiB: number;
  /** 100-span OTLP requests, one in flight, before the import and while it runs. */
  ingestIdle: { requests: number; p50: number; max: number };
  ingestDuring: { requests: number; p50: number; p95: number; max: number; failures: number; statuses: Record<string, number> };
}

function writeCsv(file: string, rows: number): number {
  const fd = fs.openSync(file, 'w');
  const filler = 'lorem ipsum dolor sit amet, consectetur adipiscing elit '.repeat(10);
  let buf = 'question,expected_output,context,score\n';
  for (let i = 0; i < rows; i++) {
    buf += `"Question ${i}: what does ""row ${i}"" say?","Answer ${i} ${filler.slice(0, 200)}","${filler.slice(i % 50, 260 + (i % 50))}",${(i % 100) / 100}\n`;
    if (buf.length > 1 << 20) {
      fs.writeSync(fd, buf);
      buf = '';
    }
  }
  fs.writeSync(fd, buf);
  fs.closeSync(fd);
  return fs.statSync(file).size;
}

/** Streams head + file + tail as one multipart body (never whole in this process either). */
function uploadFile(baseUrl: string, key: string, name: string, file: string): Promise<{ status: number; body: string }> {
  const boundary = `bench${randomBytes(8).toString('hex')}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="name"\r\n\r\n${name}\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="bench.csv"\r\nContent-Type: text/csv\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const size = head.length + fs.statSync(file).size + tail.length;
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${baseUrl}/api/dataset/upload`,
      { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': size } },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.write(head);
    const stream = fs.createReadStream(file);
    stream.on('error', reject);
    stream.on('end', () => req.end(tail));
    stream.pipe(req, { end: false });
  });
}

export async function benchDatasets(kind: 'pglite' | 'postgres', postgresUrl: string, opts: { rows: number; pageLimit: number; importTraces: number }): Promise<DatasetsBenchResult> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'spyglass-datasets-'));
  const env: Record<string, string> = {
    SPYGLASS_DATA_DIR: dataDir,
    SPYGLASS_DATASET_UPLOAD_MAX_BYTES: String(512 * 1024 * 1024),
    SPYGLASS_DATASET_UPLOAD_MAX_ROWS: String(opts.rows),
    SPYGLASS_REQUEST_TIMEOUT_SECONDS: '600',
  };
  let dropDb: (() => Promise<void>) | null = null;
  if (kind === 'postgres') {
    const name = `spyglass_datasets_${randomBytes(4).toString('hex')}`;
    await admin(postgresUrl, `CREATE DATABASE ${name}`);
    const u = new URL(postgresUrl);
    u.pathname = `/${name}`;
    env.DATABASE_URL = u.toString();
    dropDb = () => admin(postgresUrl, `DROP DATABASE IF EXISTS ${name}`);
  }
  const csv = path.join(dataDir, 'bench.csv');
  const fileBytes = writeCsv(csv, opts.rows);
  // A random port may be taken by another server on the machine: another one, twice at most.
  const bin = process.env.BENCH_DATASETS_BIN;
  const start = () => (bin ? startServer(env, bin) : startServer(env));
  const server = await start().catch(start).catch(start);
  try {
    const { projectApiKey: key } = JSON.parse(fs.readFileSync(path.join(dataDir, 'initial-credentials.json'), 'utf8')) as { projectApiKey: string };
    const pid = server.child.pid!;
    await new Promise((r) => setTimeout(r, 1_000));
    const restBeforeKiB = procStatus(pid, 'VmRSS');
    const rss = sampleRssPeak(pid, 50);
    const cpu0 = cpuMs(pid);
    const t0 = performance.now();
    const res = await uploadFile(server.baseUrl, key, 'Bench upload', csv);
    const uploadSeconds = (performance.now() - t0) / 1000;
    const uploadCpuSeconds = (cpuMs(pid) - cpu0) / 1000;
    await rss.stop();
    if (res.status !== 201) throw new Error(`upload answered ${res.status}: ${res.body.slice(0, 300)}`);
    const { slug, recordsCreated } = JSON.parse(res.body) as { slug: string; recordsCreated: number };
    if (recordsCreated !== opts.rows) throw new Error(`stored ${recordsCreated} rows of ${opts.rows}`);

    const readRss = sampleRssPeak(pid, 50);
    const cpu1 = cpuMs(pid);
    const t1 = performance.now();
    let read = 0;
    for (let page = 1; ; page++) {
      const r = await fetch(`${server.baseUrl}/api/dataset/${slug}/records?page=${page}&limit=${opts.pageLimit}`, {
        headers: { authorization: `Bearer ${key}`, 'accept-encoding': 'identity' },
      });
      const body = (await r.json()) as { data: unknown[]; pagination: { totalPages: number } };
      if (r.status !== 200) throw new Error(`page ${page} answered ${r.status}`);
      read += body.data.length;
      if (page >= body.pagination.totalPages) break;
    }
    const readSeconds = (performance.now() - t1) / 1000;
    const readCpuSeconds = (cpuMs(pid) - cpu1) / 1000;
    await readRss.stop();
    if (read !== opts.rows) throw new Error(`read ${read} rows of ${opts.rows}`);
    const page = await benchDatasetPage(server.baseUrl, dataDir, slug, opts.rows);
    const imported = await benchImport(server.baseUrl, key, pid, opts.importTraces);
    return {
      rows: opts.rows,
      fileMiB: fileBytes / 1024 / 1024,
      uploadSeconds,
      uploadCpuSeconds,
      readCpuSeconds,
      restBeforeMiB: restBeforeKiB / 1024,
      uploadPeakRssMiB: rss.peakKiB / 1024,
      readRows: read,
      readSeconds,
      readRowsPerSecond: read / readSeconds,
      pageLimit: opts.pageLimit,
      readPeakRssMiB: readRss.peakKiB / 1024,
      page,
      import: imported,
    };
  } finally {
    await server.stop();
    await dropDb?.();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The dataset page of `rows` rows in Chromium: first rows drawn (p50 of `runs` loads), then the last rows after End. */
async function benchDatasetPage(baseUrl: string, dataDir: string, slug: string, rows: number, runs = 5): Promise<DatasetsBenchResult['page']> {
  if (!hasChromium) return null;
  const creds = JSON.parse(fs.readFileSync(path.join(dataDir, 'initial-credentials.json'), 'utf8')) as { projectApiKey: string; project: { id: string }; user: { email: string; password: string } };
  const list = (await (await fetch(`${baseUrl}/api/dataset`, { headers: { authorization: `Bearer ${creds.projectApiKey}` } })).json()) as { data: { id: string; slug: string }[] };
  const id = list.data.find((d) => d.slug === slug)!.id;
  const browser = await launchBrowser();
  try {
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    await page.goto(`${baseUrl}/signin`);
    await page.getByLabel('E-mail').fill(creds.user.email);
    await page.locator('input[type=password]').fill(creds.user.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`**/p/${creds.project.id}/traces`);
    const url = `${baseUrl}/p/${creds.project.id}/datasets/${id}`;
    const firstRow = page.locator('[role=row][data-record-id]').first();
    const loads: number[] = [];
    // One load first (the page's code into the cache, as a returning user has it), then the measured ones.
    for (let i = 0; i <= runs; i++) {
      await page.goto(url, { waitUntil: 'commit' });
      await firstRow.waitFor();
      const ms = await page.evaluate(() => performance.now());
      if (i > 0) loads.push(ms);
    }
    // Where the last load's time went: each request from navigation start, in ms.
    const resources = await page.evaluate<{ name: string; start: number; end: number }[]>(
      `performance.getEntriesByType('resource').map((e) => ({ name: e.name.replace(location.origin, ''), start: Math.round(e.startTime), end: Math.round(e.responseEnd) }))`,
    );
    // To the last row: the page of rows there is fetched and drawn.
    const t0 = Date.now();
    await page.getByTestId('dataset-grid').evaluate((el) => (el.scrollTop = el.scrollHeight));
    await page.locator(`[role=row][aria-rowindex="${rows + 1}"][data-record-id]`).waitFor();
    return { firstRowsMs: median(loads), runs: loads, endRowsMs: Date.now() - t0, resources };
  } finally {
    await browser.close();
  }
}

async function postOtlp(baseUrl: string, key: string, body: Buffer): Promise<number> {
  const res = await fetch(`${baseUrl}/api/otel/v1/traces`, { method: 'POST', headers: { 'content-type': 'application/x-protobuf', authorization: `Bearer ${key}` }, body });
  await res.arrayBuffer();
  return res.status;
}

/**
 * `traces` traces (an agent root with input and output, LLM and tool spans) ingested, then
 * every one of them added to a new dataset by POST from-traces with a search (the background
 * import), while one client keeps ingesting 100-span requests outside the search's window.
 */
async function benchImport(baseUrl: string, key: string, pid: number, traces: number): Promise<ImportBenchResult> {
  const spansPerTrace = 4;
  const perRequest = 100 / spansPerTrace;
  const start = Date.now() - 3 * 86_400_000;
  for (let first = 0; first < traces; first += perRequest * 4) {
    const statuses = await Promise.all(
      [0, 1, 2, 3].filter((k) => first + k * perRequest < traces).map((k) => postOtlp(baseUrl, key, otlpRequest(first + k * perRequest, 100, spansPerTrace, start, 7))),
    );
    if (statuses.some((s) => s !== 200)) throw new Error(`ingest answered ${statuses.join(',')}`);
  }
  const auth = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const created = await fetch(`${baseUrl}/api/dataset`, {
    method: 'POST',
    headers: auth,
    body: JSON.stringify({
      name: 'Bench import',
      columnTypes: [
        { name: 'question', type: 'string' },
        { name: 'answer', type: 'string' },
        { name: 'contexts', type: 'rag_contexts' },
        { name: 'conversation', type: 'chat_messages' },
        { name: 'model', type: 'string' },
        { name: 'user', type: 'string' },
      ],
    }),
  });
  const { slug } = (await created.json()) as { slug: string };
  // Ingest while the import runs: newer traces (an hour ago), outside the search's window.
  const later = Date.now() - 3_600_000;
  let n = 0;
  const timed = async () => {
    const body = otlpRequest(n * perRequest, 100, spansPerTrace, later, 8);
    n++;
    const t = performance.now();
    const status = await postOtlp(baseUrl, key, body);
    return { ms: performance.now() - t, status };
  };
  const idle: number[] = [];
  for (let i = 0; i < 10; i++) idle.push((await timed()).ms);

  const rss = sampleRssPeak(pid, 50);
  const cpu0 = cpuMs(pid);
  const t0 = performance.now();
  const res = await fetch(`${baseUrl}/api/dataset/${slug}/from-traces`, {
    method: 'POST',
    headers: auth,
    body: JSON.stringify({
      filter: { startDate: start - 1000, endDate: start + traces * 1000 },
      limit: traces,
      mapping: { question: 'input', answer: 'output', contexts: 'contexts', conversation: 'messages', model: 'model', user: 'metadata.user_id' },
    }),
  });
  const job = (await res.json()) as { id: string };
  if (res.status !== 202) throw new Error(`from-traces answered ${res.status}: ${JSON.stringify(job)}`);
  let done = false;
  const during: { ms: number; status: number }[] = [];
  const ingesting = (async () => {
    while (!done) during.push(await timed());
  })();
  let state: { status: string; recordsCreated: number; error: string | null };
  for (;;) {
    state = (await (await fetch(`${baseUrl}/api/dataset/${slug}/imports/${job.id}`, { headers: auth })).json()) as typeof state;
    if (state.status === 'completed' || state.status === 'failed') break;
    if (performance.now() - t0 > 600_000) throw new Error('the import did not end in 10 minutes');
    await new Promise((r) => setTimeout(r, 100));
  }
  const seconds = (performance.now() - t0) / 1000;
  const cpuSeconds = (cpuMs(pid) - cpu0) / 1000;
  done = true;
  await ingesting;
  await rss.stop();
  if (state.status !== 'completed') throw new Error(`the import failed: ${state.error}`);
  const ms = during.map((d) => d.ms);
  return {
    traces,
    seconds,
    cpuSeconds,
    recordsCreated: state.recordsCreated,
    peakRssMiB: rss.peakKiB / 1024,
    ingestIdle: { requests: idle.length, p50: median(idle), max: Math.max(...idle) },
    ingestDuring: { requests: during.length, p50: median(ms), p95: percentile(ms, 95), max: Math.max(...ms), failures: during.filter((d) => d.status !== 200).length, statuses: Object.fromEntries([...new Set(during.map((d) => d.status))].map((st) => [st, during.filter((d) => d.status === st).length])) },
  };
}
