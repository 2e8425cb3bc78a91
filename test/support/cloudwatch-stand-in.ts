import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * CloudWatch's JSON protocol, just GetMetricStatistics: the one call `npm run smoke --
 * --metrics` makes. Answers each with `sum` as one data point (none when 0). Point the SDK at
 * it with AWS_ENDPOINT_URL_CLOUDWATCH.
 */
export interface CloudWatchStandIn {
  readonly endpoint: string;
  /** Each request's JSON body, in order. */
  readonly requests: readonly unknown[];
  sum: number;
  close(): Promise<void>;
}

export async function startCloudWatchStandIn(): Promise<CloudWatchStandIn> {
  const requests: unknown[] = [];
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      requests.push(JSON.parse(body) as unknown);
      const datapoints =
        standIn.sum === 0
          ? []
          : [{ Timestamp: Date.now() / 1000, Sum: standIn.sum, Unit: 'Count' }];
      response.setHeader('content-type', 'application/x-amz-json-1.0');
      response.end(JSON.stringify({ Label: 'ThreatsFound', Datapoints: datapoints }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const standIn: CloudWatchStandIn = {
    endpoint: `http://127.0.0.1:${String(port)}`,
    requests,
    sum: 0,
    close: () =>
      new Promise((resolve) =>
        server.close(() => {
          resolve();
        }),
      ),
  };
  return standIn;
}
