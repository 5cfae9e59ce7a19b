import dns from 'node:dns';
import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { blockedAddressReason, checkHost, guardedLookup } from '../../src/modules/webhooks/destination.ts';
import { urlProblem } from '../../src/modules/webhooks/schemas.ts';

describe('webhook destinations', () => {
  it('classifies addresses: loopback, private, link-local, metadata and their IPv6 spellings are blocked', () => {
    const blocked: [string, string][] = [
      ['127.0.0.1', 'loopback'],
      ['127.255.1.2', 'loopback'],
      ['0.0.0.0', '"this network"'],
      ['10.0.0.1', 'private'],
      ['172.16.5.4', 'private'],
      ['172.31.255.255', 'private'],
      ['192.168.0.10', 'private'],
      ['100.64.0.1', 'shared address space (carrier-grade NAT)'],
      ['169.254.169.254', 'link-local (cloud metadata)'],
      ['168.63.129.16', 'cloud metadata'],
      ['224.0.0.1', 'multicast'],
      ['255.255.255.255', 'reserved'],
      ['::1', 'loopback'],
      ['::', 'unspecified'],
      ['::ffff:127.0.0.1', 'loopback'],
      ['::ffff:7f00:1', 'loopback'],
      ['::ffff:a9fe:a9fe', 'link-local (cloud metadata)'],
      ['::10.0.0.1', 'private'],
      ['64:ff9b::192.168.1.1', 'private'],
      ['2002:c0a8:0101::1', 'private'],
      ['fd00:ec2::254', 'unique local (private)'],
      ['fe80::1', 'link-local'],
      ['fe80::1%eth0', 'link-local'],
      ['ff02::1', 'multicast'],
    ];
    for (const [ip, reason] of blocked) expect(blockedAddressReason(ip), ip).toBe(reason);
    for (const ip of ['8.8.8.8', '172.32.0.1', '93.184.215.14', '2606:4700:4700::1111', '::ffff:8.8.8.8', '64:ff9b::8.8.8.8']) {
      expect(blockedAddressReason(ip), ip).toBeNull();
    }
  });

  it('checks URLs for what needs no network', () => {
    expect(urlProblem('https://example.com/hook')).toBeNull();
    expect(urlProblem('ftp://example.com/')).toMatch(/http or https/);
    expect(urlProblem('example.com/hook')).toMatch(/absolute/);
    expect(urlProblem('https://u:p@example.com/')).toMatch(/credentials/);
  });

  it('refuses host names by what they resolve to, also in the lookup of the connection itself', async () => {
    await expect(checkHost('localhost')).rejects.toThrow(/local or metadata host name/);
    await expect(checkHost('metadata.google.internal')).rejects.toThrow(/metadata/);
    // This machine's own name: wherever it resolves in a sandbox or CI (loopback, a private
    // container address), it is not a public address.
    const name = os.hostname();
    const addresses = await dns.promises.lookup(name, { all: true }).catch(() => []);
    if (addresses.length === 0 || addresses.some((a) => blockedAddressReason(a.address) === null)) return;
    await expect(checkHost(name)).rejects.toThrow(`${name} resolves to`);
    const err = await new Promise<NodeJS.ErrnoException | null>((resolve) => guardedLookup(name, { all: true }, (e) => resolve(e)));
    expect(err?.code).toBe('EDESTINATION');
  });
});
