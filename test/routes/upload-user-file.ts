import { randomUUID } from 'node:crypto';
import { USER_FILE_EXAMPLE } from '#shared/api/examples.ts';
import {
  answerOf,
  EXAMPLE_OWNER,
  userAtFileLimit,
  whileHeld,
} from '#test/support/example-situations.ts';
import { largestUserFileBody } from '#test/support/largest-bodies.ts';
import { multipartBody, uploadForm } from '#test/support/multipart.ts';
import { routeFacts } from '#test/support/route-facts.ts';

export default routeFacts({
  routes: {
    'POST /api/v1/user/me/file': {
      request: () => ({ form: uploadForm('intruding bytes', { name: 'x.pdf' }) }),
      largestBody: largestUserFileBody,
    },
  },
  examples: {
    first: {
      // The owner's file, which the other routes' examples read, list, archive and download.
      'POST /api/v1/user/me/file 201': async (kit) => {
        const { name, type, filesize } = USER_FILE_EXAMPLE;
        const form = uploadForm(Buffer.alloc(filesize, 1), { name, type: type ?? '' });
        return answerOf(await kit.stage.upload(EXAMPLE_OWNER, form));
      },
    },
    together: {
      'POST /api/v1/user/me/file 400': async (kit) =>
        answerOf(
          await kit.stage.upload(kit.newUser(), {
            body: Buffer.from('--x junk\r\n\r\n--x--\r\n'),
            contentType: 'multipart/form-data; boundary=x',
          }),
        ),
      'POST /api/v1/user/me/file 403': async (kit) =>
        answerOf(
          await kit.stage.upload(await userAtFileLimit(kit), uploadForm('one file too many')),
        ),
      'POST /api/v1/user/me/file 413': async (kit) =>
        answerOf(
          await kit.stage.upload(kit.newUser(), uploadForm(Buffer.alloc(5 * 1024 * 1024, 1))),
        ),
      'POST /api/v1/user/me/file 422': async (kit) =>
        answerOf(
          await kit.stage.upload(
            kit.newUser(),
            multipartBody([
              { name: 'name', value: 'Q3 deck.pdf' },
              { name: 'type', value: 'deck' },
            ]),
          ),
        ),
    },
    alone: {
      // The same upload again while the first one's bytes are held on their way to S3.
      'POST /api/v1/user/me/file 409': async (kit) => {
        const as = kit.newUser();
        const key = { 'idempotency-key': `key-${randomUUID()}` };
        const form = uploadForm('bytes');
        const upload = () => kit.stage.upload(as, form, key);
        return whileHeld(
          kit.holds.s3,
          (held) => held.path.includes(`/users/${String(as)}/`),
          upload,
          async () => answerOf(await upload()),
        );
      },
    },
  },
});
