import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { admin, procStatus, sampleRssPeak, startServer } from './overload.ts';

/**
 * Datasets (issue 23): a 100,000-row CSV of ~50 MB uploaded in one request (time to stored,
 * the server's peak RSS while it is read and stored), then the dataset read back through the
 * records route page by page (rows/s). The spec's upload limits (25 MiB, 10,000 rows) are
 * the defaults of SPYGLASS_DATASET_UPLOAD_MAX_BYTES / _MAX_ROWS; this bench raises them.
 */
export interface DatasetsBenchResult {
  rows: number;
  fileMiB: number;
  uploadSeconds: number;
  restBeforeMiB: number;
  uploadPeakRssMiB: number;
  readRows: number;
  readSeconds: number;
  readRowsPerSecond: number;
  pageLimit: number;
  readPeakRssMiB: number;
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

export async function benchDatasets(kind: 'pglite' | 'postgres', postgresUrl: string, opts: { rows: number; pageLimit: number }): Promise<DatasetsBenchResult> {
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
  const server = await startServer(env).catch(() => startServer(env)).catch(() => startServer(env));
  try {
    const { projectApiKey: key } = JSON.parse(fs.readFileSync(path.join(dataDir, 'initial-credentials.json'), 'utf8')) as { projectApiKey: string };
    const pid = server.child.pid!;
    await new Promise((r) => setTimeout(r, 1_000));
    const restBeforeKiB = procStatus(pid, 'VmRSS');
    const rss = sampleRssPeak(pid, 50);
    const t0 = performance.now();
    const res = await uploadFile(server.baseUrl, key, 'Bench upload', csv);
    const uploadSeconds = (performance.now() - t0) / 1000;
    await rss.stop();
    if (res.status !== 201) throw new Error(`upload answered ${res.status}: ${res.body.slice(0, 300)}`);
    const { slug, recordsCreated } = JSON.parse(res.body) as { slug: string; recordsCreated: number };
    if (recordsCreated !== opts.rows) throw new Error(`stored ${recordsCreated} rows of ${opts.rows}`);

    const readRss = sampleRssPeak(pid, 50);
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
    await readRss.stop();
    if (read !== opts.rows) throw new Error(`read ${read} rows of ${opts.rows}`);
    return {
      rows: opts.rows,
      fileMiB: fileBytes / 1024 / 1024,
      uploadSeconds,
      restBeforeMiB: restBeforeKiB / 1024,
      uploadPeakRssMiB: rss.peakKiB / 1024,
      readRows: read,
      readSeconds,
      readRowsPerSecond: read / readSeconds,
      pageLimit: opts.pageLimit,
      readPeakRssMiB: readRss.peakKiB / 1024,
    };
  } finally {
    await server.stop();
    await dropDb?.();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
