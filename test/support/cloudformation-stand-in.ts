import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * CloudFormation's query protocol, just DescribeStacks: the one call the CLIs make to find a
 * deployed stage. Answers the stack asked for with `outputs`, or "does not exist" while
 * `outputs` is undefined. Point the SDK at it with AWS_ENDPOINT_URL_CLOUDFORMATION.
 */
export interface CloudFormationStandIn {
  readonly endpoint: string;
  /** Each request's form body, in order. */
  readonly requests: readonly string[];
  outputs: Record<string, string> | undefined;
  close(): Promise<void>;
}

export async function startCloudFormationStandIn(): Promise<CloudFormationStandIn> {
  const requests: string[] = [];
  const ns = 'xmlns="http://cloudformation.amazonaws.com/doc/2010-05-15/"';
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      requests.push(body);
      const stackName = new URLSearchParams(body).get('StackName') ?? '';
      response.setHeader('content-type', 'text/xml');
      const outputs = standIn.outputs;
      if (outputs === undefined) {
        response.statusCode = 400;
        response.end(
          `<ErrorResponse ${ns}><Error><Type>Sender</Type><Code>ValidationError</Code><Message>Stack with id ${stackName} does not exist</Message></Error><RequestId>r1</RequestId></ErrorResponse>`,
        );
        return;
      }
      const members = Object.entries(outputs)
        .map(
          ([key, value]) =>
            `<member><OutputKey>${key}</OutputKey><OutputValue>${value}</OutputValue></member>`,
        )
        .join('');
      response.end(
        `<DescribeStacksResponse ${ns}><DescribeStacksResult><Stacks><member><StackName>${stackName}</StackName><StackStatus>UPDATE_COMPLETE</StackStatus><CreationTime>2026-01-01T00:00:00Z</CreationTime><Outputs>${members}</Outputs></member></Stacks></DescribeStacksResult><ResponseMetadata><RequestId>r2</RequestId></ResponseMetadata></DescribeStacksResponse>`,
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const standIn: CloudFormationStandIn = {
    endpoint: `http://127.0.0.1:${String(port)}`,
    requests,
    outputs: undefined,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
      }),
  };
  return standIn;
}
