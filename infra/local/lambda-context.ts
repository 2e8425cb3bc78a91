import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';

/** The Lambda context a function sees, for a local invocation with the given time limit. */
export function localLambdaContext(functionName: string, timeoutMs: number): Context {
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
    memoryLimitInMB: '1024',
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
