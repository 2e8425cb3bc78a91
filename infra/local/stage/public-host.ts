import { type NetworkInterfaceInfo, networkInterfaces } from 'node:os';

/** A loopback name or address, which only this machine reaches. */
const isLoopback = (host: string): boolean => /^(127\.\d+\.\d+\.\d+|::1|localhost)$/i.test(host);
const WILDCARD = new Set(['0.0.0.0', '::', '']);

/** Whether the stage binds every interface (HOST=0.0.0.0 or ::). */
export const isWildcard = (host: string): boolean => WILDCARD.has(host);

/**
 * The host another machine reaches this stage by, for the links and forms it signs: none on
 * loopback; the address or name it binds; bound to every interface, this machine's first
 * network IPv4 address (a host name may not resolve on another machine). Where that guess is
 * wrong (several networks, a VPN), the stage's `publicHost` option says which.
 */
export function publicHostOf(
  host: string,
  interfaces: NodeJS.Dict<NetworkInterfaceInfo[]> = networkInterfaces(),
): string | undefined {
  if (isLoopback(host)) return undefined;
  if (!isWildcard(host)) return host;
  for (const addresses of Object.values(interfaces)) {
    const address = addresses?.find((a) => a.family === 'IPv4' && !a.internal);
    if (address !== undefined) return address.address;
  }
  return undefined;
}
