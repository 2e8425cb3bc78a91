import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';

/** The Lambda context a function sees, for a local invocation with the given time limit. */
export function localLambdaContext(
  functionName: string,
  timeoutMs: number,
  memoryMb = 1024,
): Context {
  const deadline = Date.now() + timeoutMs;
  const unsupported = () => {
    throw new Error('Callback-style completion is not supported; return a promise');
  };
  // The Context type still lists the callback-era completion methods; nothing may call them.
  /* eslint-disable @typescript-eslint/no-deprecated */
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:us-east-1:000000000000:function:${functionName}`,
    memoryLimitInMB: String(memoryMb),
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: unsupported,
    fail: unsupported,
    succeed: unsupported,
  };
  /* eslint-enable @typescript-eslint/no-deprecated */
}

/** The function ran past its timeout: Lambda stops it and reports `Sandbox.Timedout`. */
export class InvocationTimedOut extends Error {}

/** The line Lambda writes to a function's log when it stops it at its timeout. */
export const timedOutMessage = (timeoutSeconds: number): string =>
  `Task timed out after ${timeoutSeconds.toFixed(2)} seconds`;

/**
 * The handler's answer, or InvocationTimedOut once `timeoutMs` has passed. Lambda would stop
 * the function then; nothing here can stop a promise, so the handler goes on in this process
 * (its calls still reach the emulators), and `late` hears how it ended: its answer is never
 * sent.
 */
export async function withinTimeout<T>(
  invocation: Promise<T>,
  timeoutMs: number,
  late?: (outcome: PromiseSettledResult<T>) => void,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(new InvocationTimedOut());
      invocation.then(
        (value) => late?.({ status: 'fulfilled', value }),
        (reason: unknown) => late?.({ status: 'rejected', reason }),
      );
    }, timeoutMs);
  });
  try {
    return await Promise.race([invocation, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** What Lambda sizes a function by: its declaration's timeout and memory. */
export interface FunctionSizing {
  readonly timeoutSeconds: number;
  readonly memoryMb: number;
}

/**
 * One invocation of `functionName` as Lambda runs it, for the event sources (the finalizer's
 * S3 events, the queue's worker): a context with its timeout and memory, InvocationTimedOut
 * past the timeout with the line Lambda logs then, and whatever the handler does after said
 * on the console, never returned.
 */
export async function invokeAsLambda<T>(
  functionName: string,
  sizing: FunctionSizing,
  run: (context: Context) => Promise<T>,
): Promise<T> {
  const timeoutMs = sizing.timeoutSeconds * 1000;
  const context = localLambdaContext(functionName, timeoutMs, sizing.memoryMb);
  const say = (what: string) => {
    console.error(`[${functionName}] ${what} (request ${context.awsRequestId})`);
  };
  try {
    return await withinTimeout(run(context), timeoutMs, (outcome) => {
      say(`${outcome.status === 'fulfilled' ? 'finished' : 'failed'} after its timeout`);
    });
  } catch (error) {
    if (error instanceof InvocationTimedOut) say(timedOutMessage(sizing.timeoutSeconds));
    throw error;
  }
}
