import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { toAcceptedBody } from '#shared/notifications/api/notification-response.ts';
import {
  answerOf,
  EXAMPLE_OWNER,
  idIn,
  json,
  requestExample,
  whileHeld,
} from '#test/support/example-situations.ts';
import { largestNotification } from '#test/support/largest-bodies.ts';
import { uploadForm } from '#test/support/multipart.ts';
import { routeFacts } from '#test/support/route-facts.ts';

const NOTIFY = '/api/v1/user/me/file/notify';

export default routeFacts({
  routes: {
    'POST /api/v1/user/me/file/notify': {
      request: (own) => ({ json: { file_ids: [own.file], fund_name: 'F', message: 'm' } }),
      answerToIntruder: (own) => ({
        status: 404,
        body: { detail: `File not found: ${String(own.file)}` },
      }),
      largestBody: () => toAcceptedBody(largestNotification),
    },
  },
  examples: {
    together: {
      // The owner's two files: the multipart upload's and the direct upload's.
      'POST /api/v1/user/me/file/notify 202': async (kit) => {
        const [deck, model] = await Promise.all([
          kit.answer('POST /api/v1/user/me/file 201'),
          kit.answer('POST /api/v1/user/me/file/upload/{file_id}/complete 201'),
        ]);
        const announcement = {
          ...(requestExample('POST /api/v1/user/me/file/notify') as object),
          file_ids: [idIn(deck), idIn(model)],
        };
        return kit.call('POST', NOTIFY, {
          as: EXAMPLE_OWNER,
          ...json(announcement),
          sent: { body: announcement },
        });
      },
      'POST /api/v1/user/me/file/notify 404': (kit) =>
        kit.call('POST', NOTIFY, { as: kit.newUser(), ...json({ file_ids: [32, 999999] }) }),
      'POST /api/v1/user/me/file/notify 422': (kit) =>
        kit.call('POST', NOTIFY, { as: kit.newUser(), ...json({ file_ids: [] }) }),
      // The user's one notify of the minute (the stage allows one), then the one over it.
      'POST /api/v1/user/me/file/notify 429': async (kit) => {
        const as = kit.newUser();
        const uploaded = (await (await kit.stage.upload(as, uploadForm('bytes'))).json()) as {
          id: number;
        };
        const body = json({ file_ids: [uploaded.id] });
        expect((await kit.call('POST', NOTIFY, { as, ...body })).status).toBe(202);
        return kit.call('POST', NOTIFY, { as, ...body });
      },
    },
    alone: {
      // The same notify again while the first one's read of the files is held.
      'POST /api/v1/user/me/file/notify 409': async (kit) => {
        const as = kit.newUser();
        const { id } = (await (await kit.stage.upload(as, uploadForm('x'))).json()) as {
          id: number;
        };
        const key = `key-${randomUUID()}`;
        const notify = () =>
          kit.stage.request(NOTIFY, {
            method: 'POST',
            as,
            ...json({ file_ids: [id] }),
            headers: { 'content-type': 'application/json', 'idempotency-key': key },
          });
        return whileHeld(
          kit.holds.dynamodb,
          (held) => held.operation === 'BatchGetItem',
          notify,
          async () => answerOf(await notify()),
        );
      },
    },
  },
});
