import { randomUUID } from 'node:crypto';
import { toStatusBody } from '#shared/notifications/api/notification-response.ts';
import { eventually } from '#test/support/eventually.ts';
import { EXAMPLE_OWNER } from '#test/support/example-situations.ts';
import { largestNotification } from '#test/support/largest-bodies.ts';
import { routeFacts } from '#test/support/route-facts.ts';

const notificationAt = (id: string) => `/api/v1/user/me/file/notify/${id}`;

export default routeFacts({
  routes: {
    'GET /api/v1/user/me/file/notify/{notification_id}': {
      largestBody: () => toStatusBody(largestNotification),
    },
  },
  examples: {
    together: {
      // The notify example's notification, once it is sent.
      'GET /api/v1/user/me/file/notify/{notification_id} 200': async (kit) => {
        const notified = await kit.answer('POST /api/v1/user/me/file/notify 202');
        const { notification_id: id } = notified.body as { notification_id: string };
        return eventually(async () => {
          const answer = await kit.call('GET', notificationAt(id), {
            as: EXAMPLE_OWNER,
            sent: { parameters: { notification_id: id } },
          });
          return (answer.body as { status?: string }).status === 'sent' ? answer : undefined;
        });
      },
      'GET /api/v1/user/me/file/notify/{notification_id} 404': (kit) =>
        kit.call('GET', notificationAt(randomUUID()), { as: kit.newUser() }),
    },
  },
});
