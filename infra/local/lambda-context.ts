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

/**
 * The handler's answer, or InvocationTimedOut once `timeoutMs` has passed. The handler goes
 * on in the background then, as nothing here can stop it; Lambda would freeze it.
 */
export async function withinTimeout<T>(invocation: Promise<T>, timeoutMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(new InvocationTimedOut());
    }, timeoutMs);
  });
  try {
    return await Promise.race([invocation, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
