/**
 * The few lines of ustar (POSIX tar) a backup file needs: regular files with short names,
 * written and read whole. `tar tzf backup.tar.gz` lists what a backup holds.
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

export function writeTar(entries: TarEntry[], mtime = new Date()): Buffer {
  const parts: Buffer[] = [];
  for (const e of entries) {
    if (Buffer.byteLength(e.name) > 100) throw new Error(`tar entry name too long: ${e.name}`);
    const header = Buffer.alloc(BLOCK);
    header.write(e.name, 0, 100, 'utf8');
    header.write(octal(e.mode ?? 0o600, 8), 100, 'ascii');
    header.write(octal(0, 8), 108, 'ascii'); // uid
    header.write(octal(0, 8), 116, 'ascii'); // gid
    header.write(octal(e.data.length, 12), 124, 'ascii');
    header.write(octal(Math.floor(mtime.getTime() / 1000), 12), 136, 'ascii');
    header.write('        ', 148, 'ascii'); // checksum placeholder: spaces while summing
    header.write('0', 156, 'ascii'); // regular file
    header.write('ustar\0' + '00', 257, 'ascii');
    let sum = 0;
    for (const byte of header) sum += byte;
    header.write(octal(sum, 7) + ' ', 148, 'ascii');
    parts.push(header, e.data, Buffer.alloc((BLOCK - (e.data.length % BLOCK)) % BLOCK));
  }
  parts.push(Buffer.alloc(BLOCK * 2));
  return Buffer.concat(parts);
}

export function readTar(tar: Buffer): TarEntry[] {
  const entries: TarEntry[] = [];
  let offset = 0;
  while (offset + BLOCK <= tar.length) {
    const header = tar.subarray(offset, offset + BLOCK);
    if (header.every((b) => b === 0)) break;
    const field = (start: number, length: number) => header.subarray(start, start + length).toString('utf8').replace(/\0.*$/s, '').trim();
    let sum = 0;
    for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 32 : header[i];
    if (parseInt(field(148, 8), 8) !== sum) throw new Error('not a backup file (bad tar header checksum)');
    const size = parseInt(field(124, 12), 8);
    const start = offset + BLOCK;
    if (start + size > tar.length) throw new Error('the backup file is truncated');
    if (field(156, 1) === '0' || field(156, 1) === '') {
      entries.push({ name: field(0, 100), data: Buffer.from(tar.subarray(start, start + size)), mode: parseInt(field(100, 8), 8) });
    }
    offset = start + Math.ceil(size / BLOCK) * BLOCK;
  }
  return entries;
}
