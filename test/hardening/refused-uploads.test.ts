/**
 * Issue 53's attack, over HTTP: a user with a 5-file limit makes 150 direct-upload starts the
 * quota refuses, and 150 uploads whose bytes are refused (each gives its reservation back, so
 * the limit never stops them). The refusals answer exactly, store nothing but the user's last
 * ten refusals in one item, and a usage read costs what it costs a user with none: the same
 * DynamoDB calls, the same items read (`npm run bench -- refusals` holds the same figures).
 */
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { REFUSALS_KEPT } from '#shared/direct-uploads/adapters/upload-refusals-item.ts';
import type { DirectUploadTicket } from '#test/support/fastapi-bodies.ts';
import { useTestStage } from '#test/support/test-stage.ts';

const MAX_FILES = 5;
const REFUSALS = 150;
const DECLARED = 10;
const stage = useTestStage(() => ({ settings: { MAX_FILES_PER_USER: MAX_FILES } }));

const START = '/api/v1/user/me/file/upload';
const USAGE = '/api/v1/user/me/usage';

const start = (as: number) =>
  stage().request(START, {
    method: 'POST',
    as,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'model.xlsx', type: 'financials', filesize: DECLARED }),
  });

async function started(as: number): Promise<DirectUploadTicket> {
  const response = await start(as);
  expect(response.status).toBe(201);
  return (await response.json()) as DirectUploadTicket;
}

/** A usage read's answer, its DynamoDB calls (by command) and the items they read. */
async function usageRead(as: number) {
  const calls: string[] = [];
  let items = 0;
  const client = stage().wiring.clients.dynamodb;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      calls.push(context.commandName ?? '?');
      const result = await next(args);
      const output = result.output as { ScannedCount?: number; Item?: unknown };
      items += output.ScannedCount ?? (output.Item === undefined ? 0 : 1);
      return result;
    },
    { step: 'initialize', name: 'countUsageRead' },
  );
  try {
    const response = await stage().request(USAGE, { as });
    expect(response.status).toBe(200);
    return { body: await response.json(), calls: calls.sort(), items };
  } finally {
    client.middlewareStack.remove('countUsageRead');
  }
}

const usageOf = (files: number, reserved: number) => ({
  files: { used: files, reserved, allowed: MAX_FILES },
  bytes: { used: 0, reserved: reserved * DECLARED, allowed: 10_737_418_240 },
});

const itemsOf = async (userId: number) =>
  (await stage().items()).filter((item) => item.PK === `USER#${String(userId)}`);

describe(`${String(REFUSALS)} refused direct uploads by a user with a ${String(MAX_FILES)}-file limit`, () => {
  it('refuses each start over the limit exactly, stores nothing, and leaves the usage read as it was', async () => {
    for (const user of [1, 2]) for (let n = 0; n < MAX_FILES; n++) await started(user);
    const before = await usageRead(2);
    const stored = await stage().stored();
    for (let n = 0; n < REFUSALS; n++) {
      const response = await start(2);
      expect({ status: response.status, body: await response.json() }).toEqual({
        status: 403,
        body: { detail: 'Storage quota exceeded: 5 files allowed, 5 in use, 1 more asked' },
      });
    }
    expect(await stage().stored()).toEqual(stored);
    expect(await usageRead(2)).toEqual(before);
    // And as the user at the limit who was refused nothing.
    expect(await usageRead(1)).toEqual(before);
    expect(before.body).toEqual(usageOf(0, MAX_FILES));
  });

  it(`keeps only the last ${String(REFUSALS_KEPT)} uploads refused for their bytes, and a usage read costs what it does with none`, async () => {
    // A user with none, whose usage is stored: one upload started and cancelled.
    const cancelled = await started(3);
    const deleted = await stage().request(`/api/v1/user/me/file/${String(cancelled.id)}`, {
      method: 'DELETE',
      as: 3,
    });
    expect(deleted.status).toBe(204);
    const none = await usageRead(3);
    expect(none).toMatchObject({ body: usageOf(0, 0), calls: ['GetItemCommand', 'QueryCommand'] });

    // As fast as the limit lets them come: one refusal under way per file the user may hold.
    const ids: number[] = [];
    const refuseOne = async () => {
      const ticket = await started(4);
      ids.push(ticket.id);
      // More than declared under the form's key: a signed PUT takes any bytes (on AWS the
      // form's own range refuses them).
      await stage().s3.send(
        new PutObjectCommand({
          Bucket: stage().bucket,
          Key: ticket.key,
          Body: Buffer.alloc(DECLARED + 1, 3),
        }),
      );
      const completed = await stage().request(`${START}/${String(ticket.id)}/complete`, {
        method: 'POST',
        as: 4,
      });
      expect({ status: completed.status, body: await completed.json() }).toEqual({
        status: 413,
        body: { detail: 'The uploaded file is larger than its declared filesize of 10 bytes' },
      });
    };
    await Promise.all(
      Array.from({ length: MAX_FILES }, async () => {
        for (let n = 0; n < REFUSALS / MAX_FILES; n++) await refuseOne();
      }),
    );
    expect(await usageRead(4)).toEqual(none);
    const items = await itemsOf(4);
    expect(items.map((item) => item.SK)).toEqual(['REFUSED#uploads', 'USAGE']);
    const kept = (items[0]?.refusals ?? []) as { id: number; rejection: string }[];
    expect(kept).toHaveLength(REFUSALS_KEPT);
    for (const refusal of kept) {
      expect(ids).toContain(refusal.id);
      expect(refusal.rejection).toBe('larger_than_declared');
    }
    const theirs = (await stage().objectKeys()).filter(
      (key) => key.startsWith('uploads/4/') || key.startsWith('users/4/'),
    );
    expect(theirs).toEqual([]);
  });
});
