/**
 * What Python's `ipaddress.ip_address` accepts (Presidio invalidates IP matches it
 * rejects), extended with a CIDR suffix and an IPv6 zone: dotted quads without leading
 * zeros, and IPv6 with at most one "::" and an optional embedded IPv4 tail.
 */
export function isValidIp(candidate: string): boolean {
  let address = candidate;
  let prefix: number | null = null;
  const slash = address.indexOf('/');
  if (slash >= 0) {
    const bits = address.slice(slash + 1);
    if (!/^[0-9]{1,3}$/.test(bits)) return false;
    prefix = Number(bits);
    address = address.slice(0, slash);
  }
  if (!address.includes(':')) return isValidIpv4(address) && (prefix === null || prefix <= 32);
  const percent = address.indexOf('%');
  if (percent >= 0) {
    if (prefix !== null || !/^[0-9A-Za-z]+$/.test(address.slice(percent + 1))) return false;
    address = address.slice(0, percent);
  }
  return isValidIpv6(address) && (prefix === null || prefix <= 128);
}

function isValidIpv4(address: string): boolean {
  const parts = address.split('.');
  if (parts.length !== 4) return false;
  return parts.every((p) => /^(0|[1-9][0-9]{0,2})$/.test(p) && Number(p) <= 255);
}

function isValidIpv6(address: string): boolean {
  const halves = address.split('::');
  if (halves.length > 2) return false;
  const groups = (s: string) => (s === '' ? [] : s.split(':'));
  const head = groups(halves[0]);
  const tail = halves.length === 2 ? groups(halves[1]) : [];
  const all = [...head, ...tail];
  let count = 0;
  for (let i = 0; i < all.length; i++) {
    const g = all[i];
    if (i === all.length - 1 && g.includes('.')) {
      if (!isValidIpv4(g)) return false;
      count += 2;
    } else if (/^[0-9A-Fa-f]{1,4}$/.test(g)) {
      count += 1;
    } else {
      return false;
    }
  }
  return halves.length === 2 ? count <= 7 : count === 8;
}
