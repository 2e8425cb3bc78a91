import { toUserFileItem } from '#shared/storage/file-items.ts';
import { dealFile } from '#test/support/deal-fixtures.ts';
import { EXAMPLE_OWNER } from '#test/support/example-situations.ts';
import { largestUserFileBody } from '#test/support/largest-bodies.ts';
import { routeFacts } from '#test/support/route-facts.ts';

const FILES = '/api/v1/user/me/file';

export default routeFacts({
  routes: {
    'GET /api/v1/user/me/file': { largestBody: largestUserFileBody },
  },
  examples: {
    first: {
      // The owner's one file, as the upload example stored it, before another is added.
      'GET /api/v1/user/me/file 200': async (kit) => {
        await kit.answer('POST /api/v1/user/me/file 201');
        return kit.call('GET', FILES, { as: EXAMPLE_OWNER });
      },
    },
    together: {
      // More files than a page of 20 holds: records alone, as a listing reads them.
      'GET /api/v1/user/me/file 200 header link': async (kit) => {
        const as = kit.newUser();
        await kit.stage.put(
          Array.from({ length: 21 }, (_, n) =>
            toUserFileItem({ ...dealFile(0, 0, n + 1000), userId: as }),
          ),
        );
        return kit.call('GET', `${FILES}?limit=20`, { as });
      },
      'GET /api/v1/user/me/file 422': (kit) =>
        kit.call('GET', `${FILES}?limit=0`, { as: kit.newUser() }),
    },
    elsewhere: {
      'GET /api/v1/user/me/file 400':
        'over 100,000 files: test/hardening/big-accounts.test.ts gets this answer for real',
    },
  },
});
