import { NotFound } from '../domain/outcome.ts';
import type { NotificationRepository } from './notification-repository.ts';
import type { SubmissionNotification } from './submission-notification.ts';

/** Notification ids are UUIDs; anything else names nothing, and is not worth a read. */
const NOTIFICATION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * The caller's own notification. The key is the caller's partition, so anyone else's id is
 * simply not found.
 */
export async function findNotification(
  ports: { readonly notifications: Pick<NotificationRepository, 'get'> },
  request: { readonly userId: number; readonly notificationId: string },
): Promise<SubmissionNotification> {
  const found = NOTIFICATION_ID.test(request.notificationId)
    ? await ports.notifications.get(request)
    : undefined;
  if (found === undefined) throw new NotFound();
  return found;
}
