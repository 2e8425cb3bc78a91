/**
 * `admin user erase` raced by the user's own uploads (issue 41): whatever the user does
 * meanwhile, the erasure ends with nothing of theirs but its marker, never a record whose
 * bytes are gone; and every answer the user got is a stored file or the erased refusal.
 */
import { describe, expect, it, onTestFinished } from 'vitest';
import { DynamoGroupRepository } from '#shared/groups/adapters/dynamo-group-repository.ts';
import { DynamoUserItems } from '#shared/removal/adapters/dynamo-user-items.ts';
import { S3BlobStore } from '#shared/blobs/adapters/s3-blob-store.ts';
import { eraseUser } from '#shared/removal/erase-user.ts';
import { eventually } from '#test/support/eventually.ts';
import { expectRefused } from '#test/support/expect-refused.ts';
import type { DirectUploadTicket } from '#test/support/fastapi-bodies.ts';
import { uploadForm } from '#test/support/multipart.ts';
import { postToSignedForm } from '#test/support/signed-form.ts';
import { standInClients, useTestStage } from '#test/support/test-stage.ts';

const stage = useTestStage();

/*
 * The attack this answers left records without bytes in every run (commit 6031e15), so a few
 * rounds catch its return; each costs the suite about half a second of CPU.
 */
const ROUNDS = 6;
const ERASED = { detail: 'This account has been erased' } as const;
const JSON_HEADERS = { 'content-type': 'application/json' };

interface Loop {
  stop: boolean;
  /** Files the user was told were stored. */
  stored: number;
  /** Every answer, as `<step> <status>`. */
  readonly answers: string[];
}

async function multipartLoop(user: number, loop: Loop): Promise<void> {
  for (let n = 0; !loop.stop; n++) {
    const response = await stage().upload(user, uploadForm(`race ${String(n)}`));
    const body = await response.json();
    loop.answers.push(`upload ${String(response.status)}`);
    if (response.status === 201) loop.stored++;
    else expect(body).toEqual(ERASED);
  }
}

async function directLoop(user: number, loop: Loop): Promise<void> {
  while (!loop.stop) {
    const started = await stage().request('/api/v1/user/me/file/upload', {
      method: 'POST',
      as: user,
      headers: JSON_HEADERS,
      body: JSON.stringify({ name: 'race.bin', type: 'other', filesize: 5 }),
    });
    loop.answers.push(`start ${String(started.status)}`);
    if (started.status !== 201) {
      expect(await started.json()).toEqual(ERASED);
      continue;
    }
    const ticket = (await started.json()) as DirectUploadTicket;
    loop.answers.push(`form ${String(await postToSignedForm(ticket, Buffer.from('bytes')))}`);
    const completed = await stage().request(
      `/api/v1/user/me/file/upload/${String(ticket.id)}/complete`,
      { method: 'POST', as: user },
    );
    await completed.arrayBuffer();
    loop.answers.push(`complete ${String(completed.status)}`);
    if (completed.status === 201) loop.stored++;
  }
}

const theirs = (user: number) => (key: string) =>
  key.startsWith(`users/${String(user)}/`) || key.startsWith(`uploads/${String(user)}/`);

describe('npm run admin -- user erase, while the user uploads', () => {
  // One test a round, each with its own time: rounds in one test could outlast its limit on a
  // busy machine.
  for (let round = 0; round < ROUNDS; round++) {
    it(`leaves no record without its bytes, and nothing else of theirs (round ${String(round + 1)} of ${String(ROUNDS)}, 4 upload loops)`, async () => {
      const user = 4100 + round;
      const loop: Loop = { stop: false, stored: 0, answers: [] };
      // Whatever ends the test, a time-out too, ends its loops.
      onTestFinished(() => {
        loop.stop = true;
      });
      const loops = [
        multipartLoop(user, loop),
        multipartLoop(user, loop),
        multipartLoop(user, loop),
        directLoop(user, loop),
      ];
      // The erasure starts once the loops are storing files, and they go on meanwhile; a loop
      // that fails stops the others, so its own error is the one reported.
      const running = Promise.all(loops).finally(() => {
        loop.stop = true;
      });
      try {
        await Promise.race([running, eventually(() => loop.stored >= 2)]);
        const erased = await stage().admin([
          'user',
          'erase',
          '--user',
          String(user),
          '--settle-seconds',
          '0',
        ]);
        expect(erased.err).toBe('');
      } finally {
        loop.stop = true;
      }
      await running;

      // Stored, or refused as erased: a completion whose upload the erasure took is a 404, and
      // one the finalizer holds at that moment (the S3 event raced the call) a 409.
      for (const answer of new Set(loop.answers)) {
        expect([
          'upload 201',
          'upload 403',
          'start 201',
          'start 403',
          'form 204',
          'complete 201',
          'complete 404',
          'complete 409',
        ]).toContain(answer);
      }
      const report = await stage().reconcile();
      expect(report.records_without_objects).toEqual([]);
      // Bytes a form sent after the erasure go with the finalizer, as for any abandoned upload.
      await eventually(async () => (await stage().objectKeys()).filter(theirs(user)).length === 0);
      const items = (await stage().items()).filter((item) => item.PK === `USER#${String(user)}`);
      expect(items.map((item) => item.SK)).toEqual(['ERASED']);
      expect(
        await stage()
          .request('/api/v1/user/me/file', { as: user })
          .then((r) => r.json()),
      ).toEqual([]);
    });
  }

  it('refuses an erased user every new file, and stores nothing', async () => {
    const user = 4200;
    expect((await stage().upload(user, uploadForm('before'))).status).toBe(201);
    expect(
      (await stage().admin(['user', 'erase', '--user', String(user), '--settle-seconds', '0']))
        .code,
    ).toBe(0);
    await expectRefused(stage(), () => stage().upload(user, uploadForm('after')), 403, ERASED);
    await expectRefused(
      stage(),
      () =>
        stage().request('/api/v1/user/me/file/upload', {
          method: 'POST',
          as: user,
          headers: JSON_HEADERS,
          body: JSON.stringify({ name: 'late.bin', type: 'other', filesize: 5 }),
        }),
      403,
      ERASED,
    );
    // After every round above and this: table and bucket agree.
    expect((await stage().reconcile()).clean).toBe(true);
  });

  it('takes, in its last pass, what a request under way wrote while it waited', async () => {
    const user = 4300;
    const { dynamodb } = standInClients();
    const { tableName, bucket, s3 } = stage();
    // What an idempotent upload that began before the erasure saves as it ends.
    const saved = {
      PK: `IDEMPOTENCY#upload-user-file#USER#${String(user)}`,
      SK: 'upload-user-file#late',
      status: 'COMPLETED',
    };
    const erased = await eraseUser(
      {
        userItems: new DynamoUserItems(dynamodb, tableName),
        groups: new DynamoGroupRepository(dynamodb, tableName),
        blobs: new S3BlobStore(s3, bucket),
        sleep: () => stage().put([saved]),
      },
      user,
      { dryRun: false, settleMs: 30_000 },
    );
    expect(erased.idempotencyRecords).toBe(1);
    const left = (await stage().items()).filter((item) =>
      String(item.PK).endsWith(`USER#${String(user)}`),
    );
    expect(left.map((item) => item.SK)).toEqual(['ERASED']);
  });
});
