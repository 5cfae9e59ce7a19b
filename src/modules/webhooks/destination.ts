import dns from 'node:dns';
import net from 'node:net';

/**
 * Where webhooks may be sent. A receiver URL is a request the server makes on a user's
 * behalf: without these checks an endpoint pointed at 127.0.0.1, 10.x or the cloud
 * metadata address would let an API key reach the server's private network. Checked when
 * an endpoint is saved and again for every connection (see `guardedLookup`), so a name
 * that later resolves elsewhere (DNS rebinding) is still refused.
 */

export class DestinationError extends Error {
  constructor(
    message: string,
    /** true when the name did not resolve (a network failure, worth retrying), false when refused. */
    readonly transient = false,
  ) {
    super(message);
  }
}

type V4Range = [base: number, bits: number, label: string];

const ipv4ToInt = (ip: string): number => ip.split('.').reduce((n, part) => n * 256 + Number(part), 0);

const V4_BLOCKED: V4Range[] = (
  [
    ['0.0.0.0', 8, '"this network"'],
    ['10.0.0.0', 8, 'private'],
    ['100.64.0.0', 10, 'shared address space (carrier-grade NAT)'],
    ['127.0.0.0', 8, 'loopback'],
    ['169.254.0.0', 16, 'link-local (cloud metadata)'],
    ['172.16.0.0', 12, 'private'],
    ['192.0.0.0', 24, 'IETF protocol assignments'],
    ['192.0.2.0', 24, 'documentation'],
    ['192.88.99.0', 24, '6to4 relay'],
    ['192.168.0.0', 16, 'private'],
    ['198.18.0.0', 15, 'benchmarking'],
    ['198.51.100.0', 24, 'documentation'],
    ['203.0.113.0', 24, 'documentation'],
    ['224.0.0.0', 4, 'multicast'],
    ['240.0.0.0', 4, 'reserved'],
    // Azure's platform endpoint (metadata, DNS) on a public-looking address.
    ['168.63.129.16', 32, 'cloud metadata'],
  ] as const
).map(([ip, bits, label]) => [ipv4ToInt(ip), bits, label]);

function v4Reason(ip: string): string | null {
  const n = ipv4ToInt(ip);
  for (const [base, bits, label] of V4_BLOCKED) {
    const size = 2 ** (32 - bits);
    if (n >= base && n < base + size) return label;
  }
  return null;
}

/** 16 bytes of an IPv6 address (zone id dropped, a trailing dotted IPv4 accepted). */
function ipv6Bytes(ip: string): number[] {
  let s = ip.split('%')[0].toLowerCase();
  let tail: number[] = [];
  const dotted = /^(.*:)(\d+\.\d+\.\d+\.\d+)$/.exec(s);
  if (dotted) {
    const n = ipv4ToInt(dotted[2]);
    tail = [(n >>> 16) & 0xffff, n & 0xffff];
    s = dotted[1].endsWith('::') ? dotted[1] : dotted[1].slice(0, -1);
  }
  const groups = (part: string) => (part ? part.split(':').map((h) => parseInt(h, 16)) : []);
  const gap = s.indexOf('::');
  const all =
    gap < 0
      ? [...groups(s), ...tail]
      : (() => {
          const left = groups(s.slice(0, gap));
          const right = [...groups(s.slice(gap + 2)), ...tail];
          return [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
        })();
  return all.flatMap((g) => [(g >> 8) & 0xff, g & 0xff]);
}

function v6Reason(ip: string): string | null {
  const b = ipv6Bytes(ip);
  const zeroUpTo = (n: number) => b.slice(0, n).every((x) => x === 0);
  const embeddedV4 = (offset: number) => b.slice(offset, offset + 4).join('.');
  if (zeroUpTo(16)) return 'unspecified';
  if (zeroUpTo(15) && b[15] === 1) return 'loopback';
  // ::ffff:a.b.c.d (IPv4-mapped) and ::a.b.c.d (IPv4-compatible) reach the IPv4 address.
  if (zeroUpTo(10) && b[10] === 0xff && b[11] === 0xff) return v4Reason(embeddedV4(12));
  if (zeroUpTo(12)) return v4Reason(embeddedV4(12));
  // NAT64 (64:ff9b::/96) translates to the embedded IPv4 address.
  if (b[0] === 0x00 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b) {
    return b.slice(4, 12).every((x) => x === 0) ? v4Reason(embeddedV4(12)) : 'local NAT64';
  }
  // 6to4 (2002::/16) carries an IPv4 address in bytes 2..5.
  if (b[0] === 0x20 && b[1] === 0x02) return v4Reason(embeddedV4(2));
  if (b[0] === 0x20 && b[1] === 0x01 && b[2] === 0x00 && b[3] === 0x00) return 'Teredo tunnel';
  if (b[0] === 0x20 && b[1] === 0x01 && b[2] === 0x0d && b[3] === 0xb8) return 'documentation';
  if (b[0] === 0x01 && b[1] === 0x00 && b.slice(2, 8).every((x) => x === 0)) return 'discard';
  if ((b[0] & 0xfe) === 0xfc) return 'unique local (private)';
  if (b[0] === 0xfe && (b[1] & 0xc0) === 0x80) return 'link-local';
  if (b[0] === 0xfe && (b[1] & 0xc0) === 0xc0) return 'site-local';
  if (b[0] === 0xff) return 'multicast';
  return null;
}

/** Why an IP address may not receive webhooks; null when it may. */
export function blockedAddressReason(ip: string): string | null {
  const family = net.isIP(ip);
  if (family === 4) return v4Reason(ip);
  if (family === 6) return v6Reason(ip);
  return 'not an IP address';
}

const BLOCKED_NAMES = new Set(['localhost', 'metadata', 'metadata.google.internal', 'metadata.goog', 'instance-data']);

function blockedNameReason(host: string): string | null {
  const name = host.toLowerCase().replace(/\.$/, '');
  if (BLOCKED_NAMES.has(name) || name.endsWith('.localhost')) return 'a local or metadata host name';
  return null;
}

/** The URL's host without IPv6 brackets. */
export function hostOf(url: URL): string {
  return url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
}

/**
 * Resolves `host` and checks every address (a name with one public and one private
 * address is refused: the connection could pick either).
 */
export async function checkHost(host: string): Promise<{ address: string; family: number }[]> {
  const nameReason = blockedNameReason(host);
  if (nameReason) throw new DestinationError(`${host} is ${nameReason}`);
  if (net.isIP(host)) {
    const reason = blockedAddressReason(host);
    if (reason) throw new DestinationError(`${host} is a ${reason} address`);
    return [{ address: host, family: net.isIP(host) }];
  }
  let addresses: dns.LookupAddress[];
  try {
    addresses = await dns.promises.lookup(host, { all: true, verbatim: true });
  } catch (err) {
    throw new DestinationError(`${host} does not resolve (${(err as NodeJS.ErrnoException).code ?? 'lookup failed'})`, true);
  }
  if (addresses.length === 0) throw new DestinationError(`${host} does not resolve`, true);
  for (const a of addresses) {
    const reason = blockedAddressReason(a.address);
    if (reason) throw new DestinationError(`${host} resolves to ${a.address}, a ${reason} address`);
  }
  return addresses;
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;

/**
 * A `lookup` for http.request: the connection goes only to addresses that passed the
 * check, resolved for this very connection.
 */
export function guardedLookup(hostname: string, options: dns.LookupOptions, callback: LookupCallback): void {
  checkHost(hostname).then(
    (addresses) => {
      if (options.all) callback(null, addresses);
      else {
        const wanted = options.family === 4 || options.family === 6 ? addresses.find((a) => a.family === options.family) : addresses[0];
        if (!wanted) callback(Object.assign(new Error(`${hostname} has no IPv${options.family} address`), { code: 'ENOTFOUND' }), '');
        else callback(null, wanted.address, wanted.family);
      }
    },
    (err: Error) => callback(Object.assign(err, { code: err instanceof DestinationError && !err.transient ? 'EDESTINATION' : 'ENOTFOUND' }), ''),
  );
}
