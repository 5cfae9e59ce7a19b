import fs from 'node:fs';
import path from 'node:path';

/** statfs's type of a tmpfs (linux/magic.h TMPFS_MAGIC). */
const TMPFS_MAGIC = 0x01021994;
/** Where the suite's files go when no TMPDIR is set: a RAM file system Linux mounts by default. */
const RAM_DIR = '/dev/shm';
/** The most the suite's temporary files take at once (data folders, Chromium profiles, backups), with room to spare. */
const NEEDED_BYTES = 4 * 1024 ** 3;
const PREFIX = 'spyglass-test-';

/**
 * The suite's temporary files (servers' data folders, PGlite databases, backups, uploads,
 * Chromium's profiles) on a RAM file system when the machine has one with room and TMPDIR
 * does not say otherwise. On this project's machines a file created on the disk costs about
 * 0.7 ms of system time and 1.5 ms of waiting (1,000 files with 8 KiB each: 0.78 s of system
 * CPU on ext4 against 0.011 s on /dev/shm), and a server's first start unpacks a 1,455-file
 * database template: the spawning files took about a fifth less time and a tenth less CPU
 * (docs/performance.md). What the tests check does not depend on the disk: they read files
 * back, count fsync calls and kill processes, none of which a RAM file system changes.
 *
 * Runs in vitest's main process before the test workers start, which inherit TMPDIR (as do
 * the servers, CLIs and Chromium they start). Returns the directory made, for the teardown
 * to remove, or null when TMPDIR is kept. Directories left by a run that was killed, whose
 * process is gone, are removed first.
 */
export function useRamTmpdir(): string | null {
  if (process.env.TMPDIR || process.env.SPYGLASS_TEST_DISK_TMPDIR) return null;
  try {
    const stats = fs.statfsSync(RAM_DIR);
    if (stats.type !== TMPFS_MAGIC || stats.bavail * stats.bsize < NEEDED_BYTES) return null;
    fs.accessSync(RAM_DIR, fs.constants.W_OK);
  } catch {
    return null;
  }
  for (const name of fs.readdirSync(RAM_DIR)) {
    const pid = Number(name.startsWith(PREFIX) ? name.slice(PREFIX.length) : NaN);
    if (Number.isInteger(pid) && pid > 0 && !isRunning(pid)) fs.rmSync(path.join(RAM_DIR, name), { recursive: true, force: true });
  }
  const dir = path.join(RAM_DIR, `${PREFIX}${process.pid}`);
  // Others may pass through but not list it, as they may /tmp: the replica tests run PostgreSQL's
  // tools as the postgres user on a directory inside it.
  // (Set after making it: mkdir's mode passes through the umask.)
  fs.mkdirSync(dir, { recursive: true });
  fs.chmodSync(dir, 0o711);
  process.env.TMPDIR = dir;
  return dir;
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
