import { expect } from 'vitest';
import { USER_FILE_EXAMPLE } from '#shared/api/examples.ts';
import { requestExample, startUpload } from '#test/support/example-situations.ts';
import { MAX_ID } from '#test/support/largest-bodies.ts';
import { uploadForm } from '#test/support/multipart.ts';
import { routeFacts } from '#test/support/route-facts.ts';

export default routeFacts({
  routes: {
    'GET /api/v1/user/me/usage': {
      // Six numbers, each at most 2^53 - 1.
      largestBody: () => {
        const most = { used: MAX_ID, reserved: MAX_ID, allowed: MAX_ID };
        return { files: most, bytes: most };
      },
    },
  },
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
