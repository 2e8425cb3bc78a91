import { describe, expect, it } from 'vitest';
import { httpEvent } from '#infra/local/gateway/api-gateway-event.ts';
import { s3PutEvent, sqsEvent } from '#infra/local/cli/sample-events.ts';
import { decodeEventKey } from '#shared/storage/aws/s3-event-key.ts';

describe('httpEvent: the payload 2.0 event, as the local gateway builds it', () => {
  it('takes the route, its path parameters, the query and the claims from the table', () => {
    const event = httpEvent({
      method: 'put',
      target: '/api/v1/group/3/deal/4/file/5?x=1&x=2',
      host: 'localhost:8000',
      claims: { sub: '5' },
      headers: [
        ['Content-Type', 'application/json'],
        ['X-Tag', 'a'],
        ['X-Tag', 'b'],
      ],
      body: Buffer.from('{"type":"deck"}'),
    });
    expect(event).toMatchObject({
      version: '2.0',
      routeKey: 'PUT /api/v1/group/{group_id}/deal/{deal_id}/file/{file_id}',
      rawPath: '/api/v1/group/3/deal/4/file/5',
      rawQueryString: 'x=1&x=2',
      queryStringParameters: { x: '1,2' },
      pathParameters: { group_id: '3', deal_id: '4', file_id: '5' },
      headers: {
        host: 'localhost:8000',
        'content-type': 'application/json',
        'x-tag': 'a,b',
        'content-length': '15',
        'x-forwarded-port': '8000',
        'x-forwarded-proto': 'http',
      },
      body: '{"type":"deck"}',
      isBase64Encoded: false,
      requestContext: {
        http: { method: 'PUT', path: '/api/v1/group/3/deal/4/file/5', protocol: 'HTTP/1.1' },
        authorizer: { jwt: { claims: { sub: '5' }, scopes: [] } },
        stage: '$default',
      },
    });
  });

  it('sends a body that is not text in base64, as API Gateway does', () => {
    const bytes = Buffer.from([0xff, 0x00, 0x10]);
    const event = httpEvent({
      method: 'POST',
      target: '/api/v1/user/me/file',
      host: 'localhost:8000',
      headers: [['content-type', 'multipart/form-data; boundary=x']],
      body: bytes,
    });
    expect(event).toMatchObject({ body: bytes.toString('base64'), isBase64Encoded: true });
  });

  it('goes to the fallback ($default) when no route matches, or not for this method', () => {
    for (const [method, target] of [
      ['GET', '/nowhere'],
      ['DELETE', '/api/v1/user/me/file'],
    ] as const) {
      const event = httpEvent({ method, target, host: 'localhost:8000' });
      expect(event.routeKey).toBe('$default');
      expect(event.pathParameters).toBeUndefined();
      expect(event).toMatchObject({ isBase64Encoded: false });
      expect('body' in event).toBe(false);
    }
  });
});

describe('s3PutEvent and sqsEvent', () => {
  it('names the object by its URL-encoded key, as S3 does', () => {
    const event = s3PutEvent({ bucket: 'b', key: 'uploads/a b+c.bin', size: 12 });
    const record = event.Records[0];
    expect(record).toMatchObject({
      eventSource: 'aws:s3',
      eventName: 'ObjectCreated:Put',
      s3: { bucket: { name: 'b', arn: 'arn:aws:s3:::b' }, object: { size: 12 } },
    });
    expect(record?.s3.object.key).toBe('uploads/a+b%2Bc.bin');
    expect(decodeEventKey(record?.s3.object.key ?? '')).toBe('uploads/a b+c.bin');
  });

  it('makes one record per body, each first received now', () => {
    const event = sqsEvent({ queueName: 'notifications', bodies: ['{"a":1}', '{"b":2}'] });
    expect(event.Records.map((r) => r.body)).toEqual(['{"a":1}', '{"b":2}']);
    expect(event.Records[0]).toMatchObject({
      eventSource: 'aws:sqs',
      eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:notifications',
      attributes: { ApproximateReceiveCount: '1' },
      md5OfBody: 'bb6cb5c68df4652941caf652a366f2d8',
    });
    expect(new Set(event.Records.map((r) => r.messageId)).size).toBe(2);
  });
});
