import { expect } from 'vitest';
import { USER_FILE_EXAMPLE } from '#shared/api/examples.ts';
import { requestExample, startUpload } from '#test/support/example-situations.ts';
import { routeFacts } from '#test/support/route-facts.ts';
import { uploadForm } from '#test/support/multipart.ts';

export default routeFacts({
  examples: {
    together: {
      // A user with one file of the example's size, and a direct upload of the example's waiting.
      'GET /api/v1/user/me/usage 200': async (kit) => {
        const as = kit.newUser();
        const uploaded = await kit.stage.upload(
          as,
          uploadForm(Buffer.alloc(USER_FILE_EXAMPLE.filesize, 1)),
        );
        expect(uploaded.status).toBe(201);
        await uploaded.arrayBuffer();
        const started = await startUpload(
          kit,
          as,
          requestExample('POST /api/v1/user/me/file/upload'),
        );
        expect(started.status).toBe(201);
        return kit.call('GET', '/api/v1/user/me/usage', { as });
      },
    },
  },
});
