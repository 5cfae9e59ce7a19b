import { createHash, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { PassThrough, type Readable } from 'node:stream';
import { loadOrCreateKeyFile } from '../platform/tokens.ts';

/**
 * One process per PGlite data directory, held by the kernel rather than by a PID file:
 * a listening Unix socket named after the directory (in Linux's abstract namespace, so
 * there is no file to go stale). The kernel closes it when the process dies, SIGKILL
 * included, so a restart right after a crash is never refused, and a reused PID cannot
 * keep it. A second opener's bind fails at once; the holder answers its PID when asked,
 * so the refusal names it. Elsewhere than Linux the socket is a file in the directory,
 * and a file nobody listens on is taken over.
 *
 * The same socket carries requests to the holder (`spyglass backup` asks a running server
 * for a consistent copy): after the PID line the holder reads one line, `<command>
 * <control key>`. Anyone on the host can connect to an abstract socket, so a request must
 * carry the key in `<dataDir>/control.key`, which only who can read the data directory
 * can present; what a request can obtain, they could already read.
 */
export interface DataDirLock {
  release(): Promise<void>;
  /** Answers `command` requests: the handler writes its response to the socket and ends it. */
  handle(command: string, handler: ControlHandler): void;
}

/** Another process holds the data directory (its PID is in the message). */
export class DataDirInUseError extends Error {}

export type ControlHandler = (socket: net.Socket) => Promise<void>;

const CONTROL_KEY_FILE = 'control.key';
const MAX_REQUEST_LINE = 1024;

export async function lockDataDir(dataDir: string): Promise<DataDirLock> {
  const address = lockAddress(dataDir);
  // A PID file of earlier versions means nothing now; leaving it would only mislead.
  fs.rmSync(path.join(dataDir, 'spyglass.lock'), { force: true });
  const handlers = new Map<string, ControlHandler>();
  for (let attempt = 0; attempt < 2; attempt++) {
    const server = net.createServer((socket) => answer(socket, dataDir, handlers));
    try {
      await listen(server, address);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
      const holder = await askHolder(address);
      // An abstract socket is bound only while its process lives; only a socket file can
      // outlive its process, and then nobody answers on it.
      const abstract = address.startsWith('\0');
      if (holder !== null || abstract) {
        throw new DataDirInUseError(`the data directory ${dataDir} is in use by process ${holder ?? 'unknown'}; stop it first (PGlite allows one process per data directory)`);
      }
      fs.rmSync(address, { force: true });
      continue;
    }
    server.unref();
    // Made while the lock is held, so two openers never race to create it.
    loadOrCreateKeyFile(path.join(dataDir, CONTROL_KEY_FILE));
    return {
      release: () => new Promise<void>((resolve) => server.close(() => resolve())),
      handle: (command, handler) => void handlers.set(command, handler),
    };
  }
  throw new Error(`could not lock the data directory ${dataDir}`);
}

export function lockAddress(dataDir: string): string {
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

/** The holder's side of one connection: its PID, then at most one authenticated request. */
function answer(socket: net.Socket, dataDir: string, handlers: Map<string, ControlHandler>): void {
  socket.on('error', () => {});
  socket.write(`${process.pid}\n`);
  let line = '';
  const fail = (error: string) => socket.end(JSON.stringify({ ok: false, error }) + '\n');
  socket.setTimeout(10_000, () => socket.destroy());
  const onData = (chunk: Buffer) => {
    line += chunk.toString('utf8');
    const end = line.indexOf('\n');
    if (end < 0) {
      if (line.length > MAX_REQUEST_LINE) socket.destroy();
      return;
    }
    socket.off('data', onData);
    socket.setTimeout(0);
    const [command, credential = ''] = line.slice(0, end).trim().split(' ');
    const handler = handlers.get(command);
    if (!authorized(dataDir, credential)) return fail(`not authorized: the request must carry ${CONTROL_KEY_FILE} of the data directory`);
    if (!handler) return fail(`this process does not answer ${JSON.stringify(command)}`);
    handler(socket).catch((err: Error) => (socket.writable ? fail(err.message) : socket.destroy()));
  };
  socket.on('data', onData);
  socket.on('end', () => {
    if (!line.includes('\n')) socket.end();
  });
}

function authorized(dataDir: string, credential: string): boolean {
  let expected: Buffer;
  try {
    expected = Buffer.from(fs.readFileSync(path.join(dataDir, CONTROL_KEY_FILE), 'utf8').trim());
  } catch {
    return false;
  }
  const given = Buffer.from(credential);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * Sends `command` to the process holding the data directory; null when no process holds
 * it. The answer is the rest of the connection after the holder's PID line.
 */
export async function requestHolder(dataDir: string, command: string): Promise<{ pid: string; answer: Readable } | null> {
  if (!fs.existsSync(dataDir)) return null;
  const address = lockAddress(dataDir);
  let credential: string;
  try {
    credential = fs.readFileSync(path.join(dataDir, CONTROL_KEY_FILE), 'utf8').trim();
  } catch (err) {
    // Every holder writes the key when it takes the lock: without one, nobody holds it.
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  return new Promise((resolve, reject) => {
    const socket = net.connect(address);
    const answer = new PassThrough();
    let head = '';
    let pid: string | null = null;
    socket.on('error', (err: NodeJS.ErrnoException) => {
      if (pid === null && (err.code === 'ECONNREFUSED' || err.code === 'ENOENT')) resolve(null);
      else if (pid === null) reject(err);
      else answer.destroy(err);
    });
    socket.on('data', (chunk: Buffer) => {
      if (pid !== null) {
        if (!answer.write(chunk)) {
          socket.pause();
          answer.once('drain', () => socket.resume());
        }
        return;
      }
      head += chunk.toString('latin1');
      const end = head.indexOf('\n');
      if (end < 0) return;
      pid = head.slice(0, end).trim();
      socket.write(`${command} ${credential}\n`);
      const rest = Buffer.from(head.slice(end + 1), 'latin1');
      if (rest.length) answer.write(rest);
      resolve({ pid, answer });
    });
    socket.on('end', () => {
      if (pid === null) resolve(null);
      answer.end();
    });
  });
}

/** The holder's PID, or null when nobody listens (a stale socket file). */
function askHolder(address: string): Promise<string | null> {
  return new Promise((resolve) => {
    let answer = '';
    const socket = net.connect(address);
    // Half-closed at once: the holder answers its PID and ends, without waiting for a request.
    socket.on('connect', () => socket.end());
    socket.setTimeout(2000, () => socket.destroy());
    socket.on('data', (d: Buffer) => (answer += d.toString('utf8')));
    socket.on('end', () => resolve(answer.trim() || 'unknown'));
    socket.on('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'ECONNREFUSED' || err.code === 'ENOENT' ? null : 'unknown'));
    socket.on('close', () => resolve(answer.trim() || null));
  });
}
