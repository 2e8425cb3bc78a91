/** A queue of text messages, as SQS keeps them; the worker side can put one off. */
export interface MessageQueue {
  /**
   * Queues a message. `group` names its tenant (SQS's MessageGroupId): on a standard queue
   * that makes it a fair queue, which hands quiet groups' messages out before a noisy one's
   * backlog. Without one, a message is a group of its own.
   */
  send(body: string, group?: string): Promise<void>;
  /**
   * Makes a received message visible again `delayMs` from now instead of after the queue's
   * visibility timeout (SQS ChangeMessageVisibility).
   */
  changeVisibility(receiptHandle: string, delayMs: number): Promise<void>;
}

/** SQS keeps a message invisible at most 12 hours. */
export const MAX_VISIBILITY_MS = 12 * 60 * 60 * 1000;
