import { createHash } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';

/**
 * One process per PGlite data directory, held by the kernel rather than by a PID file:
 * a listening Unix socket named after the directory (in Linux's abstract namespace, so
 * there is no file to go stale). The kernel closes it when the process dies, SIGKILL
 * included, so a restart right after a crash is never refused, and a reused PID cannot
 * keep it. A second opener's bind fails at once; the holder answers its PID when asked,
 * so the refusal names it. Elsewhere than Linux the socket is a file in the directory,
 * and a file nobody listens on is taken over.
 */
export async function lockDataDir(dataDir: string): Promise<() => Promise<void>> {
  const address = lockAddress(dataDir);
  // A PID file of earlier versions means nothing now; leaving it would only mislead.
  fs.rmSync(path.join(dataDir, 'spyglass.lock'), { force: true });
  for (let attempt = 0; attempt < 2; attempt++) {
    const server = net.createServer((socket) => socket.end(`${process.pid}\n`));
    try {
      await listen(server, address);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
      const holder = await askHolder(address);
      // An abstract socket is bound only while its process lives; only a socket file can
      // outlive its process, and then nobody answers on it.
      const abstract = address.startsWith('\0');
      if (holder !== null || abstract) {
        throw new Error(`the data directory ${dataDir} is in use by process ${holder ?? 'unknown'}; stop it first (PGlite allows one process per data directory)`);
      }
      fs.rmSync(address, { force: true });
      continue;
    }
    server.unref();
    return () => new Promise<void>((resolve) => server.close(() => resolve()));
  }
  throw new Error(`could not lock the data directory ${dataDir}`);
}

function lockAddress(dataDir: string): string {
  const real = fs.realpathSync(dataDir);
  if (process.platform === 'linux') return `\0spyglass-datadir-${createHash('sha256').update(real).digest('hex').slice(0, 40)}`;
  return path.join(real, 'spyglass.sock');
}

function listen(server: net.Server, address: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(address, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/** The holder's PID, or null when nobody listens (a stale socket file). */
function askHolder(address: string): Promise<string | null> {
  return new Promise((resolve) => {
    let answer = '';
    const socket = net.connect(address);
    socket.setTimeout(2000, () => socket.destroy());
    socket.on('data', (d) => (answer += d));
    socket.on('end', () => resolve(answer.trim() || 'unknown'));
    socket.on('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'ECONNREFUSED' || err.code === 'ENOENT' ? null : 'unknown'));
    socket.on('close', () => resolve(answer.trim() || null));
  });
}
