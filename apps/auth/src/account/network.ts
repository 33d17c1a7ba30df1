/**
 * The coarse network of an address, shown beside each session instead of a place (no geo
 * database). Rules:
 * - IPv4 (and IPv4-mapped IPv6) addresses give their /24 ("192.0.2.0/24");
 * - IPv6 addresses give their /48 ("2001:db8:1::/48");
 * - anything that is not an IP address gives undefined.
 */
import { isIPv4, isIPv6 } from 'node:net';

function v4(ip: string): string {
  const [a, b, c] = ip.split('.');
  return `${a}.${b}.${c}.0/24`;
}

function expandV6(ip: string): number[] {
  const [head = '', tail] = ip.split('::');
  const part = (s: string | undefined) => (s ? s.split(':').map((h) => parseInt(h, 16)) : []);
  const left = part(head);
  const right = tail === undefined ? [] : part(tail);
  return [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
}

export function networkOf(ip: string): string | undefined {
  if (isIPv4(ip)) return v4(ip);
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped && isIPv4(mapped[1]!)) return v4(mapped[1]!);
  if (!isIPv6(ip) || ip.includes('.')) return undefined;
  const groups = expandV6(ip.split('%')[0]!);
  const prefix = groups.slice(0, 3).map((g) => g.toString(16));
  return `${prefix.join(':')}::/48`;
}
