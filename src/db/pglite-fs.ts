import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { NodeFS } from '@electric-sql/pglite/nodefs';
import { parseTarHeader, TAR_BLOCK, tarPadded } from '../platform/tar.ts';

/**
 * PGlite's Node filesystem, made durable and private.
 *
 * Durable: PGlite starts PostgreSQL with `-F` (fsync off), and Emscripten's NODEFS has no
 * fsync (and its fdatasync does nothing), so a commit reached the OS page cache only: a
 * SIGKILL kept it, a power loss or kernel crash could not. Here fsync is on, the WAL is
 * flushed with fsync (`wal_sync_method=fsync`, the call that reaches the file system), and
 * NODEFS's fsync is the real fsync(2). Each commit is then on disk before it is
 * acknowledged, as on a PostgreSQL server; group commit shares one flush among the
 * requests of a transaction.
 *
 * Private: NODEFS creates files with mode 0666 whatever the umask; every file it creates
 * here is made 0600 and every directory 0700, as PostgreSQL itself does.
 */
export class DurableNodeFS extends NodeFS {
  override async init(pg: PGlite, opts: Parameters<NodeFS['init']>[1]) {
    const result = await super.init(pg, opts);
    const preRun = result.emscriptenOpts.preRun ?? [];
    result.emscriptenOpts.preRun = [...(Array.isArray(preRun) ? preRun : [preRun]), (mod: EmscriptenModule) => patchNodeFs(mod)];
    return result;
  }
}

/** Start parameters: PGlite's own, without `-F` (fsync off), with a WAL flush that really flushes. */
export function durableStartParams(): string[] {
  const params = PGlite.defaultStartParams.filter((p: string) => p !== '-F');
  return [...params, '-c', 'fsync=on', '-c', 'wal_sync_method=fsync', '-c', 'synchronous_commit=on'];
}

const FILE_MODE = 0o600;
const DIR_MODE = 0o700;

interface NodeFsStream {
  nfd?: number;
}
interface NodeFsNode {
  mode: number;
}
interface EmscriptenModule {
  NODEFS: {
    realPath(node: NodeFsNode): string;
    stream_ops: { fsync?: (stream: NodeFsStream) => number };
    node_ops: { mknod: (parent: NodeFsNode, name: string, mode: number, dev: number) => NodeFsNode };
  };
}

const S_IFMT = 0o170000;
const S_IFDIR = 0o040000;

function patchNodeFs(mod: EmscriptenModule): void {
  const nodefs = mod.NODEFS;
  nodefs.stream_ops.fsync = (stream) => {
    if (stream.nfd !== undefined) fs.fsyncSync(stream.nfd);
    return 0;
  };
  const mknod = nodefs.node_ops.mknod;
  nodefs.node_ops.mknod = (parent, name, mode, dev) => {
    const node = mknod(parent, name, mode, dev);
    fs.chmodSync(nodefs.realPath(node), (node.mode & S_IFMT) === S_IFDIR ? DIR_MODE : FILE_MODE);
    return node;
  };
}

/**
 * Makes an existing tree private (0700 directories, 0600 files): a data directory made by
 * an earlier version, or by hand, keeps whatever mode it was given otherwise.
 */
export function makePrivate(dir: string): void {
  fs.chmodSync(dir, DIR_MODE);
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) makePrivate(full);
    else if (entry.isFile()) fs.chmodSync(full, FILE_MODE);
  }
}

/** Flushes one file or directory (a directory: the names in it, after a create or rename). */
export function fsyncPath(p: string): void {
  const fd = fs.openSync(p, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Flushes a whole new tree to disk once: the files PGlite's initdb writes never pass
 * through an fsync (PostgreSQL's own initdb syncs the data directory at its end).
 * `sync -f` is one syncfs(2) for the file system (0.2 s here, against 0.6-1.8 s for an
 * fsync of each of the ~1,100 files, which is the fallback).
 */
export function syncTree(dir: string): void {
  try {
    execFileSync('sync', ['-f', dir], { stdio: 'ignore' });
    return;
  } catch {
    /* no coreutils sync: each file and directory in turn */
  }
  const walk = (p: string) => {
    fsyncPath(p);
    if (fs.statSync(p).isDirectory()) for (const entry of fs.readdirSync(p)) walk(path.join(p, entry));
  };
  walk(dir);
}

/**
 * Unpacks a tar of a data directory (PGlite's dumpDataDir) into `dir`, which must not exist,
 * a piece at a time: PGlite's own loadDataDir holds the whole archive in memory (twice) and
 * writes it through the WebAssembly file system, which left ~100 MiB resident after a first
 * start. Files are 0600 and directories 0700; nothing is flushed here (see syncTree).
 */
export function unpackTar(tarFile: string, dir: string): void {
  fs.mkdirSync(dir, { mode: DIR_MODE });
  const chunk = Buffer.alloc(1 << 20);
  const header = Buffer.alloc(TAR_BLOCK);
  const tar = fs.openSync(tarFile, 'r');
  try {
    let offset = 0;
    const read = (into: Buffer, length: number) => {
      if (fs.readSync(tar, into, 0, length, offset) !== length) throw new Error(`${tarFile} is truncated`);
      offset += length;
    };
    for (;;) {
      read(header, TAR_BLOCK);
      const entry = parseTarHeader(header);
      if (!entry) return;
      const parts = entry.name.split('/').filter((p) => p && p !== '.');
      if (parts.includes('..')) throw new Error(`${tarFile}: entry outside the directory: ${entry.name}`);
      const target = path.join(dir, ...parts);
      if (entry.type === '5') {
        fs.mkdirSync(target, { recursive: true, mode: DIR_MODE });
      } else if (entry.type === '0') {
        fs.mkdirSync(path.dirname(target), { recursive: true, mode: DIR_MODE });
        const out = fs.openSync(target, 'wx', FILE_MODE);
        try {
          for (let left = entry.size; left > 0; ) {
            const n = Math.min(left, chunk.length);
            read(chunk, n);
            fs.writeSync(out, chunk, 0, n);
            left -= n;
          }
        } finally {
          fs.closeSync(out);
        }
        offset += tarPadded(entry.size) - entry.size;
        continue;
      } else {
        throw new Error(`${tarFile}: unexpected entry type ${entry.type} (${entry.name})`);
      }
      offset += tarPadded(entry.size);
    }
  } finally {
    fs.closeSync(tar);
  }
}
