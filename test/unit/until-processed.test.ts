import { afterEach, describe, expect, it, vi } from 'vitest';
import { sendUntilProcessed } from '#shared/storage/aws/until-processed.ts';

afterEach(() => {
  vi.useRealTimers();
});

describe('sendUntilProcessed', () => {
  it('sends again only what DynamoDB left unprocessed, until nothing is left', async () => {
    const sent: number[][] = [];
    await sendUntilProcessed('BatchWriteItem', [1, 2, 3], (pending) => {
      sent.push(pending);
      return Promise.resolve(pending.slice(1));
    });
    expect(sent).toEqual([[1, 2, 3], [2, 3], [3]]);
  });

  it('sends nothing for an empty batch', async () => {
    const send = vi.fn(() => Promise.resolve([]));
    await sendUntilProcessed('BatchGetItem', [], send);
    expect(send).not.toHaveBeenCalled();
  });

  it('gives up after eight calls that leave requests unprocessed', async () => {
    vi.useFakeTimers();
    const send = vi.fn((pending: number[]) => Promise.resolve(pending));
    const settled = sendUntilProcessed('BatchWriteItem', [1, 2], send).catch(
      (error: unknown) => error,
    );
    await vi.runAllTimersAsync();
    expect(await settled).toEqual(
      new Error('BatchWriteItem left 2 requests unprocessed after retries'),
    );
    expect(send).toHaveBeenCalledTimes(8);
  });
});
