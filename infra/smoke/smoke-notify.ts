import * as z from 'zod';
import { CheckFailed, type SentFile, sleep, type SmokeRun } from './smoke-run.ts';

const AcceptedBody = z.object({ notification_id: z.string(), status: z.string() });
const NotificationBody = z.object({ status: z.string() });

/** One real chat message for the uploaded file, followed until it is sent (or a minute). */
export const notifySent = (run: SmokeRun, uploaded: SentFile | undefined) =>
  run.step(
    'notify, sent',
    async () => {
      const response = await run.call('/api/v1/user/me/file/notify', {
        method: 'POST',
        headers: { ...run.auth, 'content-type': 'application/json' },
        body: JSON.stringify({
          file_ids: [(uploaded as SentFile).id],
          message: 'Smoke check',
        }),
      });
      await run.expectStatus(response, 202, 'notify');
      const accepted = await run.json(response, AcceptedBody, 'notify');
      const path = `/api/v1/user/me/file/notify/${accepted.notification_id}`;
      const deadline = Date.now() + 60_000;
      let status = accepted.status;
      while (status !== 'sent' && Date.now() < deadline) {
        if (status === 'failed' || status === 'unconfirmed') break;
        await sleep(500);
        const polled = await run.call(path, { headers: run.auth });
        await run.expectStatus(polled, 200, 'notification status');
        status = (await run.json(polled, NotificationBody, 'notification status')).status;
      }
      if (status !== 'sent') throw new CheckFailed(`the notification is ${status}`);
      return `notification ${accepted.notification_id} sent`;
    },
    [uploaded],
  );
