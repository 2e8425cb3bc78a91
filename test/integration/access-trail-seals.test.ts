/**
 * Sealing on DynamoDB Local and the local object store, through the adapters the sealer and
 * `access seal` run on: the chain of digests, the windows they seal, two seals at once, and
 * the last digest found in a few listings however many there are.
 */
import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { PutCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureTable, trailTableNameOf } from '#infra/local/dynamodb/dynamodb-local.ts';
import {
  ensureBucket,
  LOCAL_CREDENTIALS,
  LOCAL_REGION,
  s3ClientOptions,
} from '#infra/local/stage/stand-ins.ts';
import {
  type AccessEntry,
  type EntryFacts,
  newAccessEntry,
  OPERATOR,
} from '#shared/access-trail/access-entry.ts';
import { accessEntryPut, refusalPuts } from '#shared/access-trail/adapters/access-entry-item.ts';
import { DynamoTrailHashes } from '#shared/access-trail/adapters/dynamo-trail-hashes.ts';
import { S3TrailDigests } from '#shared/access-trail/adapters/s3-trail-digests.ts';
import { SEAL_GRACE_SECONDS, sealAccessTrail } from '#shared/access-trail/seal-access-trail.ts';
import { parseDigest, sha256Hex, type TrailDigest } from '#shared/access-trail/trail-digest.ts';
import { verifyAccessTrail } from '#shared/access-trail/verify-access-trail.ts';
import { standInClients } from '#test/support/test-stage.ts';

const { dynamodb: documents, dynamodbEndpoint, s3Endpoint, s3Credentials } = standInClients();
const dynamodb = new DynamoDBClient({
  endpoint: dynamodbEndpoint,
  region: LOCAL_REGION,
  credentials: LOCAL_CREDENTIALS,
});
const s3 = new S3Client({
  ...s3ClientOptions(s3Endpoint),
  region: LOCAL_REGION,
  credentials: s3Credentials,
});
const suffix = randomUUID().slice(0, 8);
const trail = { tableName: trailTableNameOf(`seals-${suffix}`), retentionDays: 1 };
const bucket = `seals-${suffix}`;
const hashes = new DynamoTrailHashes(dynamodb, trail.tableName);
/** Each test's digests under a bucket of its own: their seqs start at 1. */
const digestsIn = async (name: string, pageSize?: number) => {
  await ensureBucket(s3Endpoint, `${bucket}-${name}`, s3Credentials);
  return new S3TrailDigests(s3, `${bucket}-${name}`, pageSize);
};

let ids = 0;
/** An entry at this time, with an id whose first digit walks the 16 shards. */
async function seed(at: string, facts: Partial<EntryFacts> = {}): Promise<AccessEntry> {
  ids += 1;
  const id = (ids % 16).toString(16) + String(ids).padStart(31, '0');
  const entry = newAccessEntry(
    {
      action: 'deal_file.download',
      outcome: 'allowed',
      groupId: 3,
      dealId: 5,
      fileId: 11,
      ...facts,
    },
    facts.outcome === 'refused'
      ? { userId: 7, requestId: `request-${String(ids)}`, sourceIp: '203.0.113.9' }
      : OPERATOR,
    { now: () => new Date(at), newEntryId: () => id },
  );
  await documents.send(new PutCommand(accessEntryPut(trail, entry).Put));
  return entry;
}
const keyOf = (entry: AccessEntry) => accessEntryPut(trail, entry).Put.Item.entry;
const at = (iso: string) => () => new Date(iso);
const sealedKeys = (digest: TrailDigest) => digest.entries.map((e) => e.entry);

beforeAll(async () => {
  await ensureTable(dynamodbEndpoint, `seals-${suffix}`);
});
afterAll(() => {
  dynamodb.destroy();
  documents.destroy();
  s3.destroy();
});

describe('sealing the access trail', () => {
  it('chains each digest to the last: the first from a retention ago, each next from where it ended', async () => {
    const digests = await digestsIn('chain');
    const ports = { trail: hashes, digests };
    // A day's retention: the first window starts 2026-05-03T12:00, across midnight.
    const early = await seed('2026-05-03T23:59:59.999Z');
    const refused = await seed('2026-05-04T11:56:30.000Z', { outcome: 'refused', status: 404 });
    const late = await seed('2026-05-04T11:56:59.999Z');
    // Filed at the seal's end or after: the next digest's.
    const next = await seed('2026-05-04T11:57:00.000Z');
    await seed('2026-05-02T12:00:00.000Z'); // a retention and more ago: expired
    const first = await sealAccessTrail(ports, {
      now: at(`2026-05-04T12:00:00.000Z`),
      retentionDays: 1,
    });
    const stored = await digests.latest();
    expect(first).toEqual({
      kind: 'sealed',
      digest: {
        seq: 1,
        previousDigestSha256: null,
        sealedFrom: '2026-05-03T12:00:00.000Z',
        sealedThrough: '2026-05-04T11:57:00.000Z',
        // In key order: a refusal's key files it at the start of its minute.
        entries: [early, refused, late].map((entry) => ({
          scope: 'DEAL#3#5',
          entry: keyOf(entry),
          sha256: expect.stringMatching(/^[0-9a-f]{64}$/) as unknown,
        })),
      },
    });
    expect(stored?.seq).toBe(1);
    expect(parseDigest(stored?.bytes ?? new Uint8Array())).toEqual(
      first.kind === 'sealed' ? first.digest : undefined,
    );
    expect(SEAL_GRACE_SECONDS).toBe(180);

    // No time since: no digest. (Any later seal seals the time since, entries or none.)
    expect(
      await sealAccessTrail(ports, { now: at('2026-05-04T12:00:00.000Z'), retentionDays: 1 }),
    ).toEqual({ kind: 'up-to-date', sealedThrough: '2026-05-04T11:57:00.000Z' });

    const second = await sealAccessTrail(ports, {
      now: at('2026-05-04T12:05:00.000Z'),
      retentionDays: 1,
    });
    if (second.kind !== 'sealed') throw new Error(`not sealed: ${second.kind}`);
    expect(second.digest).toMatchObject({
      seq: 2,
      previousDigestSha256: sha256Hex(stored?.bytes ?? new Uint8Array()),
      sealedFrom: '2026-05-04T11:57:00.000Z',
      sealedThrough: '2026-05-04T12:02:00.000Z',
    });
    expect(sealedKeys(second.digest)).toEqual([keyOf(next)]);
    expect(await digests.seqs()).toEqual([1, 2]);

    const report = await verifyAccessTrail(ports, {
      now: at('2026-05-04T12:05:00.000Z'),
      retentionDays: 1,
    });
    expect(report).toMatchObject({ clean: true, entriesVerified: 4, notYetSealed: 0 });
  });

  it('writes one digest of a window when two seal it at once', async () => {
    const digests = await digestsIn('race');
    const seal = () =>
      sealAccessTrail(
        { trail: hashes, digests },
        { now: at('2026-05-04T12:00:00.000Z'), retentionDays: 1 },
      );
    const results = await Promise.all([seal(), seal(), seal()]);
    expect(results.map((result) => result.kind).sort()).toEqual([
      'sealed',
      'sealed-by-another',
      'sealed-by-another',
    ]);
    expect(await digests.seqs()).toEqual([1]);
    const sealed = results.find((result) => result.kind === 'sealed');
    const stored = parseDigest((await digests.read(1)) ?? new Uint8Array());
    expect(stored).toEqual(sealed?.kind === 'sealed' ? sealed.digest : undefined);
  });

  it('finds what no index finds: an entry moved off its time shard is in no digest', async () => {
    const digests = await digestsIn('hidden');
    const ports = { trail: hashes, digests };
    const hidden = await seed('2026-05-04T10:00:00.000Z');
    await documents.send(
      new UpdateCommand({
        TableName: trail.tableName,
        Key: { scope: 'DEAL#3#5', entry: keyOf(hidden) },
        UpdateExpression: 'SET time_shard = :nowhere',
        ExpressionAttributeValues: { ':nowhere': '2026-05-04#16' },
      }),
    );
    const sealed = await sealAccessTrail(ports, {
      now: at('2026-05-04T12:00:00.000Z'),
      retentionDays: 1,
    });
    if (sealed.kind !== 'sealed') throw new Error(`not sealed: ${sealed.kind}`);
    expect(sealedKeys(sealed.digest)).not.toContain(keyOf(hidden));
    const report = await verifyAccessTrail(ports, {
      now: at('2026-05-04T12:00:00.000Z'),
      retentionDays: 1,
    });
    expect(report.inserted).toEqual([{ scope: 'DEAL#3#5', entry: keyOf(hidden) }]);
    expect(report.clean).toBe(false);
  });

  it('passes over the callers’ refusal slots in the table: they are no entries', async () => {
    await ensureTable(dynamodbEndpoint, `slots-${suffix}`);
    const slotTrail = { tableName: trailTableNameOf(`slots-${suffix}`), retentionDays: 1 };
    const ports = {
      trail: new DynamoTrailHashes(dynamodb, slotTrail.tableName),
      digests: await digestsIn('slots'),
    };
    const refused = newAccessEntry(
      { action: 'deal_file.download', outcome: 'refused', status: 404, groupId: 3, dealId: 5 },
      { userId: 7, requestId: 'slot-request', sourceIp: '203.0.113.9' },
      { now: at('2026-05-04T10:00:00.000Z') },
    );
    // As a refused request writes it: the caller's slot, then its entry.
    await documents.send(
      new TransactWriteCommand({ TransactItems: refusalPuts(slotTrail, [refused]) }),
    );
    const options = { now: at('2026-05-04T12:00:00.000Z'), retentionDays: 1 };
    const sealed = await sealAccessTrail(ports, options);
    if (sealed.kind !== 'sealed') throw new Error(`not sealed: ${sealed.kind}`);
    expect(sealedKeys(sealed.digest)).toEqual([accessEntryPut(slotTrail, refused).Put.Item.entry]);
    expect(await verifyAccessTrail(ports, options)).toMatchObject({
      inserted: [],
      altered: [],
      removed: [],
      clean: true,
    });
  });

  it('finds the last digest in a few listings, gaps and all', async () => {
    const digests = await digestsIn('gallop', 2);
    expect(await digests.latest()).toBeUndefined();
    const held = Array.from({ length: 23 }, (_, i) => i + 1).filter((seq) => seq % 7 !== 0);
    for (const seq of held) {
      expect(await digests.create(seq, new TextEncoder().encode(String(seq)))).toBe('created');
    }
    // Written once: the same seq again is refused, the bytes kept.
    expect(await digests.create(23, new TextEncoder().encode('again'))).toBe('taken');
    let listings = 0;
    s3.middlewareStack.add(
      (next, context) => (args) => {
        if (context.commandName === ListObjectsV2Command.name) listings += 1;
        return next(args);
      },
      { step: 'initialize', name: 'countListings' },
    );
    try {
      const latest = await digests.latest();
      expect(latest?.seq).toBe(23);
      expect(new TextDecoder().decode(latest?.bytes)).toBe('23');
      // Listing them all, two a page, would take 10.
      expect(listings).toBeLessThanOrEqual(7);
      expect(await digests.seqs()).toEqual(held);
    } finally {
      s3.middlewareStack.remove('countListings');
    }
  });
});
