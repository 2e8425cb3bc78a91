import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';
import type { FunctionDeclaration } from '#shared/functions/function-declaration.ts';

/** The Lambda context a function sees, for a local invocation with the given time limit. */
export function localLambdaContext(
  functionName: string,
  timeoutMs: number,
  memoryMb = 1024,
  awsRequestId: string = randomUUID(),
): Context {
  const deadline = Date.now() + timeoutMs;
  const unsupported = () => {
    throw new Error('Callback-style completion is not supported; return a promise');
  };
  return {
    ...{ callbackWaitsForEmptyEventLoop: true, functionName, functionVersion: '$LATEST' },
    invokedFunctionArn: `arn:aws:lambda:us-east-1:000000000000:function:${functionName}`,
    ...{ memoryLimitInMB: String(memoryMb), awsRequestId, logStreamName: 'local' },
    logGroupName: `/aws/lambda/${functionName}`,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    // The callback era's completion methods, which the Context type still lists.
    // eslint-disable-next-line @typescript-eslint/no-deprecated
    ...{ done: unsupported, fail: unsupported, succeed: unsupported },
  };
}

/** The function ran past its timeout: Lambda stops it and reports `Sandbox.Timedout`. */
export class InvocationTimedOut extends Error {}

/** The caller stopped waiting first: API Gateway's integration timeout passed. */
export class CallerStoppedWaiting extends Error {}

/** The line Lambda writes to a function's log when it stops it at its timeout. */
export const timedOutMessage = (timeoutSeconds: number): string =>
  `Task timed out after ${timeoutSeconds.toFixed(2)} seconds`;

/** What Lambda sizes a function by: its declaration's timeout and memory. */
export type FunctionSizing = FunctionDeclaration['sizing'];

/**
 * One invocation of `functionName` as Lambda runs it, for every caller (gateway, Invoke API,
 * event sources): a context with its timeout and memory, then InvocationTimedOut past the
 * timeout, or CallerStoppedWaiting past `waitMs`, whichever comes first. Nothing can stop a
 * promise, so the handler goes on; how it ends is said on the console, never returned.
 */
export async function invokeAsLambda<T>(
  functionName: string,
  sizing: FunctionSizing,
  run: (context: Context) => Promise<T>,
  caller: { readonly requestId?: string; readonly waitMs?: number } = {},
): Promise<T> {
  const timeoutMs = sizing.timeoutSeconds * 1000;
  const context = localLambdaContext(functionName, timeoutMs, sizing.memoryMb, caller.requestId);
  const say = (what: string) => {
    console.error(`[${functionName}] ${what} (request ${context.awsRequestId})`);
  };
  const invocation = run(context);
  const timers: NodeJS.Timeout[] = [];
  const stopAfter = (ms: number, error: Error, after: string) =>
    new Promise<never>((_, reject) => {
      const stop = () => {
        reject(error);
        void invocation
          .then(
            () => `answered after ${after}; the answer is dropped`,
            (reason: unknown) => `failed after ${after}: ${String(reason)}`,
          )
          .then(say);
      };
      timers.push(setTimeout(stop, ms));
    });
  const stops = [stopAfter(timeoutMs, new InvocationTimedOut(), 'its timeout')];
  if (caller.waitMs !== undefined && caller.waitMs < timeoutMs) {
    stops.push(stopAfter(caller.waitMs, new CallerStoppedWaiting(), "API Gateway's timeout"));
  }
  try {
    return await Promise.race([invocation, ...stops]);
  } catch (error) {
    if (error instanceof InvocationTimedOut) say(timedOutMessage(sizing.timeoutSeconds));
    throw error;
  } finally {
    for (const timer of timers) clearTimeout(timer);
  }
}
