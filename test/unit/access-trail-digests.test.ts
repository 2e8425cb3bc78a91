import { createHash } from 'node:crypto';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { describe, expect, it } from 'vitest';
import { newAccessEntry } from '#shared/access-trail/access-entry.ts';
import { accessEntryPut } from '#shared/access-trail/adapters/access-entry-item.ts';
import {
  canonicalJson,
  foundEntryOf,
  sealedEntryOf,
} from '#shared/access-trail/adapters/entry-item-hash.ts';
import {
  digestBytes,
  newDigest,
  parseDigest,
  sha256Hex,
  type TrailDigest,
} from '#shared/access-trail/trail-digest.ts';

const hex = (text: string) => createHash('sha256').update(text).digest('hex');

/** A download's item as the trail's writers store it, in DynamoDB's typed JSON. */
function downloadItem() {
  const entry = newAccessEntry(
    { action: 'deal_file.download', outcome: 'allowed', groupId: 3, dealId: 5, fileId: 11 },
    { userId: 7, requestId: 'Abc1dEf2GhI=', sourceIp: '203.0.113.9', userAgent: 'curl/8.5.0' },
    { now: () => new Date('2026-05-04T03:02:01.234Z'), newEntryId: () => 'a'.repeat(32) },
  );
  const { Item } = accessEntryPut({ tableName: 'trail', retentionDays: 400 }, entry).Put;
  return marshall(Item, { removeUndefinedValues: true });
}

describe("an entry's hash", () => {
  it('is the SHA-256 of its canonical JSON: typed values, keys sorted, the expiry left out', () => {
    const item = {
      scope: { S: 'DEAL#3#5' },
      entry: { S: '2026-05-04T03:02:01.234Z#id' },
      user_id: { N: '7' },
      expiration: { N: '1812345678' },
    };
    expect(sealedEntryOf(item)).toEqual({
      scope: 'DEAL#3#5',
      entry: '2026-05-04T03:02:01.234Z#id',
      sha256: hex(
        '{"entry":{"S":"2026-05-04T03:02:01.234Z#id"},"scope":{"S":"DEAL#3#5"},"user_id":{"N":"7"}}',
      ),
    });
  });

  it('is the same whatever order the attributes come in, and whatever the expiry says', () => {
    const item = downloadItem();
    const reversed = Object.fromEntries(Object.entries(item).reverse());
    expect(sealedEntryOf(reversed)).toEqual(sealedEntryOf(item));
    expect(sealedEntryOf({ ...item, expiration: { N: '1' } })).toEqual(sealedEntryOf(item));
    const { expiration: _gone, ...withoutExpiry } = item;
    expect(sealedEntryOf(withoutExpiry)).toEqual(sealedEntryOf(item));
  });

  it('changes with any other attribute: a value, its type, one added or taken away', () => {
    const item = downloadItem();
    const { sha256 } = sealedEntryOf(item);
    const changed = [
      { ...item, user_agent: { S: 'curl/8.5.1' } },
      { ...item, user_id: { N: '8' } },
      { ...item, user_id: { S: '7' } },
      { ...item, user_id: { N: '7.0000000000000000001' } },
      { ...item, note: { S: '' } },
      Object.fromEntries(Object.entries(item).filter(([name]) => name !== 'source_ip')),
    ];
    for (const other of changed) expect(sealedEntryOf(other).sha256).not.toBe(sha256);
  });

  it('writes every kind of value one way: sets in order, bytes in base64, maps and lists', () => {
    expect(
      canonicalJson({ b: { SS: ['y', 'x'] }, a: { M: { z: { BOOL: true }, y: { L: [] } } } }),
    ).toBe('{"a":{"M":{"y":{"L":[]},"z":{"BOOL":true}}},"b":{"SS":["y","x"]}}');
    const sets = (members: string[]) =>
      sealedEntryOf({ scope: { S: 's' }, entry: { S: 'e' }, tags: { SS: members } }).sha256;
    expect(sets(['b', 'a'])).toBe(sets(['a', 'b']));
    expect(
      sealedEntryOf({ scope: { S: 's' }, entry: { S: 'e' }, raw: { B: Buffer.from('hi') } }).sha256,
    ).toBe(hex('{"entry":{"S":"e"},"raw":{"B":"aGk="},"scope":{"S":"s"}}'));
  });
});

describe('an entry as the trail writes it', () => {
  it('is one whose fields are an entry and whose keys are the ones the item module makes', () => {
    const item = downloadItem();
    expect(foundEntryOf(item).asWritten).toBe(true);
    // Moved where ByTime does not look, filed under another deal or time, or no entry at all.
    const moved: Record<string, AttributeValue>[] = [
      { ...item, time_shard: { S: '2026-05-04#99' } },
      { ...item, scope: { S: 'DEAL#3#6' } },
      { ...item, entry: { S: `2026-05-04T03:02:02.000Z#${'a'.repeat(32)}` } },
      { ...item, file: { S: 'FILE#12' } },
      { ...item, action: { S: 'deal_file.peek' } },
      { scope: { S: 'DEAL#3#5' }, entry: { S: 'anything' } },
    ];
    for (const other of moved) expect(foundEntryOf(other).asWritten).toBe(false);
  });
});

describe('a digest', () => {
  const digest: TrailDigest = newDigest({
    seq: 2,
    previousDigestSha256: 'f'.repeat(64),
    sealedFrom: '2026-05-04T03:00:00.000Z',
    sealedThrough: '2026-05-04T03:05:00.000Z',
    entries: [
      { scope: 'USER#7', entry: '2026-05-04T03:01:00.000Z#b', sha256: '1'.repeat(64) },
      { scope: 'DEAL#3#5', entry: '2026-05-04T03:01:00.000Z#b', sha256: '2'.repeat(64) },
      { scope: 'DEAL#3#5', entry: '2026-05-04T03:00#refused#7#2', sha256: '3'.repeat(64) },
    ],
  });

  it('lists its entries by key, then scope, and is stored as this JSON, whose hash it is', () => {
    const bytes = digestBytes(digest);
    expect(new TextDecoder().decode(bytes)).toBe(
      JSON.stringify({
        seq: 2,
        previous_digest_sha256: 'f'.repeat(64),
        sealed_from: '2026-05-04T03:00:00.000Z',
        sealed_through: '2026-05-04T03:05:00.000Z',
        entries: [
          { scope: 'DEAL#3#5', entry: '2026-05-04T03:00#refused#7#2', sha256: '3'.repeat(64) },
          { scope: 'DEAL#3#5', entry: '2026-05-04T03:01:00.000Z#b', sha256: '2'.repeat(64) },
          { scope: 'USER#7', entry: '2026-05-04T03:01:00.000Z#b', sha256: '1'.repeat(64) },
        ],
      }),
    );
    expect(sha256Hex(bytes)).toBe(createHash('sha256').update(bytes).digest('hex'));
    expect(parseDigest(bytes)).toEqual(digest);
  });

  it('is not read from bytes that are not one', () => {
    const json = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));
    const stored = JSON.parse(new TextDecoder().decode(digestBytes(digest))) as object;
    for (const bytes of [
      new Uint8Array([0xff, 0xfe]),
      json(null),
      json({ ...stored, seq: 0 }),
      json({ ...stored, previous_digest_sha256: 'F'.repeat(64) }),
      json({ ...stored, sealed_from: '2026-05-04' }),
      json({ ...stored, entries: [{ scope: 'x', entry: 'y' }] }),
    ]) {
      expect(parseDigest(bytes)).toBeUndefined();
    }
  });
});
