import { PutObjectCommand } from '@aws-sdk/client-s3';
import { expect } from 'vitest';
import { USER_FILE_EXAMPLE } from '#shared/api/examples.ts';
import { MAX_UPLOAD_BYTES } from '#shared/user-files/upload-limits.ts';
import { eventually } from '#test/support/eventually.ts';
import {
  type Answer,
  completeUpload,
  EXAMPLE_OWNER,
  type SituationKit,
  startUpload,
  ticketOf,
} from '#test/support/example-situations.ts';
import { largestUserFileBody } from '#test/support/largest-bodies.ts';
import { routeFacts } from '#test/support/route-facts.ts';
import { postToSignedForm } from '#test/support/signed-form.ts';

/** A direct upload whose object is put straight into the bucket, completed until `status`. */
async function completedAs(kit: SituationKit, bytes: Buffer, status: number): Promise<Answer> {
  const as = kit.newUser();
  const ticket = ticketOf(
    await startUpload(kit, as, {
      name: 'landed.bin',
      type: 'other',
      filesize: Math.min(Math.max(bytes.length, 1), MAX_UPLOAD_BYTES),
    }),
  );
  await kit.stage.s3.send(
    new PutObjectCommand({ Bucket: kit.stage.bucket, Key: ticket.key, Body: bytes }),
  );
  return eventually(async () => {
    const answer = await kit.call('POST', completeUpload(ticket.id), { as });
    return answer.status === status ? answer : undefined;
  });
}

export default routeFacts({
  routes: {
    'POST /api/v1/user/me/file/upload/{file_id}/complete': {
      // Of their upload, not of a file of theirs.
      request: (own) => ({ path: completeUpload(own.pendingUpload) }),
      largestBody: largestUserFileBody,
    },
  },
  examples: {
    together: {
      // The owner's second file (the list has shown the first alone), sent with its signed form.
      'POST /api/v1/user/me/file/upload/{file_id}/complete 201': async (kit) => {
        const { name, type, filesize } = USER_FILE_EXAMPLE;
        const ticket = ticketOf(await startUpload(kit, EXAMPLE_OWNER, { name, type, filesize }));
        expect(await postToSignedForm(ticket, Buffer.alloc(filesize, 2))).toBe(204);
        return kit.call('POST', completeUpload(ticket.id), {
          as: EXAMPLE_OWNER,
          sent: { parameters: { file_id: ticket.id } },
        });
      },
      'POST /api/v1/user/me/file/upload/{file_id}/complete 400': (kit) =>
        completedAs(kit, Buffer.alloc(0), 400),
      // Completed before anything was sent to the signed form.
      'POST /api/v1/user/me/file/upload/{file_id}/complete 409': async (kit) => {
        const as = kit.newUser();
        const started = await startUpload(kit, as, {
          name: 'model.xlsx',
          type: 'financials',
          filesize: 10,
        });
        return kit.call('POST', completeUpload(ticketOf(started).id), { as });
      },
      'POST /api/v1/user/me/file/upload/{file_id}/complete 413': (kit) =>
        completedAs(kit, Buffer.alloc(MAX_UPLOAD_BYTES + 1, 1), 413),
    },
  },
});
