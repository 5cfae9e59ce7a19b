/**
 * The few lines of ustar (POSIX tar) a backup file needs: regular files with short names,
 * written and read whole. The header parser also reads PGlite's data directory dumps
 * (db/pglite-fs.ts unpacks the first start's template). `tar tzf backup.tar.gz` lists what a backup holds.
 */

export interface TarEntry {
  name: string;
  data: Buffer;
  mode?: number;
}

const BLOCK = 512;

function octal(value: number, width: number): string {
  return value.toString(8).padStart(width - 1, '0') + '\0';
}

/** The 512-byte ustar header of one member; `type` '0' a regular file, '5' a directory. */
export function tarHeader(name: string, size: number, options: { mode?: number; mtime?: Date; type?: '0' | '5' } = {}): Buffer {
  if (Buffer.byteLength(name) > 100) throw new Error(`tar entry name too long: ${name}`);
  const header = Buffer.alloc(BLOCK);
  header.write(name, 0, 100, 'utf8');
  header.write(octal(options.mode ?? 0o600, 8), 100, 'ascii');
  header.write(octal(0, 8), 108, 'ascii'); // uid
  header.write(octal(0, 8), 116, 'ascii'); // gid
  header.write(octal(size, 12), 124, 'ascii');
  header.write(octal(Math.floor((options.mtime ?? new Date()).getTime() / 1000), 12), 136, 'ascii');
  header.write('        ', 148, 'ascii'); // checksum placeholder: spaces while summing
  header.write(options.type ?? '0', 156, 'ascii');
  header.write('ustar\0' + '00', 257, 'ascii');
  let sum = 0;
  for (const byte of header) sum += byte;
  header.write(octal(sum, 7) + ' ', 148, 'ascii');
  return header;
}

/** The zero bytes that pad a member's data of `size` bytes to whole blocks. */
export const tarPadding = (size: number) => Buffer.alloc((BLOCK - (size % BLOCK)) % BLOCK);
/** The two zero blocks that end an archive. */
export const TAR_END = Buffer.alloc(BLOCK * 2);

export function writeTar(entries: TarEntry[], mtime = new Date()): Buffer {
  const parts: Buffer[] = [];
  for (const e of entries) parts.push(tarHeader(e.name, e.data.length, { mode: e.mode, mtime }), e.data, tarPadding(e.data.length));
  parts.push(TAR_END);
  return Buffer.concat(parts);
}

/** What a tar header says; `type` '0' is a regular file, '5' a directory. */
export interface TarHeader {
  name: string;
  mode: number;
  size: number;
  type: string;
}

/** The header in a 512-byte block, or null for the zero block that ends an archive. */
export function parseTarHeader(header: Buffer): TarHeader | null {
  if (header.every((b) => b === 0)) return null;
  const field = (start: number, length: number) => header.subarray(start, start + length).toString('utf8').replace(/\0.*$/s, '').trim();
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 32 : header[i];
  if (parseInt(field(148, 8), 8) !== sum) throw new Error('not a tar file (bad header checksum)');
  // ustar keeps what does not fit in the 100-byte name in a prefix field.
  const prefix = field(257, 5) === 'ustar' ? field(345, 155) : '';
  return {
    name: prefix ? `${prefix}/${field(0, 100)}` : field(0, 100),
    mode: parseInt(field(100, 8), 8),
    size: parseInt(field(124, 12), 8),
    type: field(156, 1) || '0',
  };
}

/** Bytes a member's data takes in the archive (padded to whole blocks). */
export const tarPadded = (size: number) => Math.ceil(size / BLOCK) * BLOCK;
export const TAR_BLOCK = BLOCK;

export function readTar(tar: Buffer): TarEntry[] {
  const entries: TarEntry[] = [];
  let offset = 0;
  while (offset + BLOCK <= tar.length) {
    const header = parseTarHeader(tar.subarray(offset, offset + BLOCK));
    if (!header) break;
    const start = offset + BLOCK;
    if (start + header.size > tar.length) throw new Error('the backup file is truncated');
    if (header.type === '0') entries.push({ name: header.name, data: Buffer.from(tar.subarray(start, start + header.size)), mode: header.mode });
    offset = start + tarPadded(header.size);
  }
  return entries;
}
