// Where the server's memory goes (BENCH_MEMORY_BREAKDOWN=1, bench/overload.ts): preloaded with
// NODE_OPTIONS=--require, so it runs in the main thread and in every worker thread (--import
// preloads run in the main thread only). Each thread appends a sample every 200 ms to
// $SPYGLASS_MEMORY_PROBE_DIR/<pid>-<thread>.jsonl: its V8 heap, its WebAssembly memories, and,
// in the main thread, the process's resident memory by kind of mapping (/proc/self/smaps).
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { isMainThread, threadId } = require('node:worker_threads');

const dir = process.env.SPYGLASS_MEMORY_PROBE_DIR;
const MiB = (bytes) => Math.round((bytes / 1048576) * 10) / 10;

// PGlite creates its WebAssembly memory itself: noted here to read its size.
const memories = [];
const NativeMemory = WebAssembly.Memory;
WebAssembly.Memory = class Memory extends NativeMemory {
  constructor(descriptor) {
    super(descriptor);
    memories.push(this);
  }
};

const ARENA = 64n * 1024n * 1024n;
/**
 * Resident MiB by kind: the WebAssembly memory (an anonymous mapping larger than a malloc
 * arena, which V8 never makes for a JS heap page), malloc (thread arenas: 64 MiB-aligned
 * anonymous mappings of at most 64 MiB; [heap]: the main arena), files (node's binary,
 * libraries), and the other anonymous mappings: the threads' JS heaps, code, large buffers.
 */
function residentByKind() {
  const kinds = { wasm: 0, malloc: 0, files: 0, jsHeapsAndOther: 0 };
  let kind = null;
  for (const line of fs.readFileSync('/proc/self/smaps', 'utf8').split('\n')) {
    const map = /^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (map) {
      const start = BigInt(`0x${map[1]}`);
      const size = BigInt(`0x${map[2]}`) - start;
      const name = map[3];
      if (name === '[heap]') kind = 'malloc';
      else if (name.startsWith('/')) kind = 'files';
      else if (name) kind = 'jsHeapsAndOther';
      else if (size > ARENA) kind = 'wasm';
      else if (start % ARENA === 0n) kind = 'malloc';
      else kind = 'jsHeapsAndOther';
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss && kind) kinds[kind] += Number(rss[1]) * 1024;
  }
  return Object.fromEntries(Object.entries(kinds).map(([k, v]) => [k, MiB(v)]));
}

if (dir) {
  const file = path.join(dir, `${process.pid}-${isMainThread ? 'main' : `worker${threadId}`}.jsonl`);
  const sample = () => {
    const u = process.memoryUsage();
    const s = {
      t: Date.now(),
      heapTotal: MiB(u.heapTotal),
      heapUsed: MiB(u.heapUsed),
      external: MiB(u.external),
      wasm: MiB(memories.reduce((n, m) => n + m.buffer.byteLength, 0)),
    };
    if (isMainThread) Object.assign(s, { rss: MiB(u.rss), resident: residentByKind() });
    try {
      fs.appendFileSync(file, `${JSON.stringify(s)}\n`);
    } catch {
      /* the bench removed the directory */
    }
  };
  setInterval(sample, 200).unref();
}
