import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import ipaddr from 'ipaddr.js';
import { isIP, type LookupFunction } from 'node:net';

/*
 * Where the server may send a push: a push service is a public https host, so an endpoint that is http, or whose
 * host is (or resolves to) a private, loopback, link-local or otherwise non-public address is refused — else a
 * subscription would make the server request addresses inside its own network. The resolved addresses are
 * checked (not the host name's text), at subscription time and again on every connection (the lookup of the
 * request itself, so a name that resolves elsewhere later is still refused). PUSH_ALLOW_INSECURE_ENDPOINTS=1
 * (tests only) allows http and loopback addresses, nothing else.
 */

export const ENDPOINT_MAX = 2048;

export const ENDPOINT_MESSAGES = {
  notUrl: 'endpoint must be an https URL of a push service',
  notHttps: 'endpoint must be an https URL of a push service',
  notPublic: 'endpoint must be on a public address (a push service), not a private, loopback or link-local one',
  unresolved: 'endpoint host could not be resolved',
} as const;

/** Ranges ipaddr.js 1.x calls unicast that no push service is on: benchmarking (RFC 2544) and discard-only (RFC 6666). */
const NOT_PUBLIC_V4 = [ipaddr.IPv4.parseCIDR('198.18.0.0/15')];
const NOT_PUBLIC_V6 = [ipaddr.IPv6.parseCIDR('100::/64')];

function onNonPublicRange(ip: ipaddr.IPv4 | ipaddr.IPv6): boolean {
  return ip.kind() === 'ipv4' ? NOT_PUBLIC_V4.some((net) => (ip as ipaddr.IPv4).match(net)) : NOT_PUBLIC_V6.some((net) => (ip as ipaddr.IPv6).match(net));
}

/** Whether the server may connect to this IP address. */
export function addressAllowed(address: string, allowInsecure: boolean): boolean {
  if (!ipaddr.isValid(address)) return false;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6') {
    const v6 = parsed as ipaddr.IPv6;
    // Site-local (fec0::/10, deprecated, private in practice): ipaddr.js 1.x calls it unicast.
    if ((v6.parts[0] & 0xffc0) === 0xfec0) return false;
    // An IPv6 address that carries an IPv4 one is judged by that one: mapped (::ffff:a.b.c.d), IPv4-compatible
    // (::a.b.c.d, deprecated) and NAT64 (64:ff9b::/96, 64:ff9b:1::/48), which ipaddr.js 1.x calls unicast.
    const embedded = v6.isIPv4MappedAddress() || v6.parts.slice(0, 6).every((p) => p === 0) || (v6.parts[0] === 0x64 && v6.parts[1] === 0xff9b);
    if (embedded && !(v6.parts.slice(0, 7).every((p) => p === 0) && v6.parts[7] <= 1)) {
      const bytes = v6.toByteArray().slice(12);
      parsed = ipaddr.fromByteArray(bytes);
    }
  }
  if (onNonPublicRange(parsed)) return false;
  const range = parsed.range();
  return range === 'unicast' || (allowInsecure && range === 'loopback');
}

/** What is wrong with the endpoint's URL itself (scheme, credentials, a literal address), or null. */
export function endpointUrlProblem(endpoint: string, allowInsecure: boolean): string | null {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return ENDPOINT_MESSAGES.notUrl;
  }
  if (url.protocol !== 'https:' && !(allowInsecure && url.protocol === 'http:')) return ENDPOINT_MESSAGES.notHttps;
  if (url.username || url.password || !url.hostname) return ENDPOINT_MESSAGES.notUrl;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) && !addressAllowed(host, allowInsecure)) return ENDPOINT_MESSAGES.notPublic;
  return null;
}

export type Resolver = (host: string) => Promise<string[]>;

const resolveAll: Resolver = (host) =>
  new Promise((resolve, reject) => dnsLookup(host, { all: true }, (err, addresses: LookupAddress[]) => (err ? reject(err) : resolve(addresses.map((a) => a.address)))));

/** The endpoint's problem, with its host resolved: every address it resolves to must be allowed. */
export async function endpointProblem(endpoint: string, allowInsecure: boolean, resolve: Resolver = resolveAll): Promise<string | null> {
  const problem = endpointUrlProblem(endpoint, allowInsecure);
  if (problem) return problem;
  const host = new URL(endpoint).hostname.replace(/^\[|\]$/g, '');
  if (isIP(host)) return null;
  let addresses: string[];
  try {
    addresses = await resolve(host);
  } catch {
    return ENDPOINT_MESSAGES.unresolved;
  }
  if (addresses.length === 0) return ENDPOINT_MESSAGES.unresolved;
  return addresses.every((a) => addressAllowed(a, allowInsecure)) ? null : ENDPOINT_MESSAGES.notPublic;
}

/** A `lookup` for http(s).request that refuses a host resolving to any address the server may not connect to. */
export function guardedLookup(allowInsecure: boolean): LookupFunction {
  return ((hostname: string, options: object, callback: (err: Error | null, address: string | LookupAddress[], family?: number) => void) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
      if (err) return callback(err, '', 4);
      const refused = addresses.find((a) => !addressAllowed(a.address, allowInsecure));
      if (refused || addresses.length === 0) return callback(new Error(`Push endpoint ${hostname} resolves to ${refused?.address ?? 'nothing'}: not a public address`), '', 4);
      if ((options as { all?: boolean }).all) return callback(null, addresses);
      callback(null, addresses[0].address, addresses[0].family);
    });
  }) as LookupFunction;
}
