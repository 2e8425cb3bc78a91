import type { NetworkInterfaceInfo } from 'node:os';
import { describe, expect, it } from 'vitest';
import { publicHostOf } from '#infra/local/stage/public-host.ts';

const address = (address: string, internal: boolean, family: 'IPv4' | 'IPv6' = 'IPv4') =>
  ({ address, internal, family }) as NetworkInterfaceInfo;

const machine = {
  lo: [address('127.0.0.1', true), address('::1', true, 'IPv6')],
  eth0: [address('fd00::2', false, 'IPv6'), address('192.168.1.20', false)],
  wlan0: [address('10.0.0.7', false)],
};

describe('publicHostOf: the host other machines reach the stage by', () => {
  it('is none on loopback: links stay on 127.0.0.1', () => {
    for (const host of ['127.0.0.1', '127.0.0.2', '::1', 'localhost']) {
      expect(publicHostOf(host, machine)).toBeUndefined();
    }
  });

  it('is the first network IPv4 address when the stage listens on every interface', () => {
    expect(publicHostOf('0.0.0.0', machine)).toBe('192.168.1.20');
    expect(publicHostOf('::', machine)).toBe('192.168.1.20');
    expect(publicHostOf('0.0.0.0', { lo: machine.lo })).toBeUndefined();
  });

  it('is the address or name the stage listens on otherwise', () => {
    expect(publicHostOf('10.0.0.7', machine)).toBe('10.0.0.7');
    expect(publicHostOf('devbox.local', machine)).toBe('devbox.local');
  });
});
