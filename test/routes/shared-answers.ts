/**
 * The answers the document shares under `components.responses`: the HTTP layer's and API
 * Gateway's refusals of any route, and what a request that matches no route gets.
 */
import {
  DYNAMODB_INTERNAL_ERROR,
  DYNAMODB_THROTTLED,
  type FaultAnswer,
} from '#test/support/fault-proxy.ts';
import type { DeclaredSituations, SituationKit } from '#test/support/example-situations.ts';

/** A read of a file whose DynamoDB calls fail as `fault`. */
function failingRead(kit: SituationKit, fault: FaultAnswer) {
  const as = kit.newUser();
  kit.failDynamoDb((call) => (call.body.includes(`"USER#${String(as)}"`) ? fault : undefined));
  return kit.call('GET', '/api/v1/user/me/file/1', { as });
}

export default {
  together: {
    NotFound: (kit) => kit.call('GET', '/api/v1/nothing'),
    MethodNotAllowed: (kit) => kit.call('POST', '/openapi.json'),
    Unauthorized: (kit) => kit.call('GET', '/api/v1/user/me/file'),
    UnreadableJson: (kit) =>
      kit.call('POST', '/api/v1/user/me/file/notify', {
        as: kit.newUser(),
        headers: { 'content-type': 'application/json' },
        body: Buffer.from([0x7b, 0xff, 0xfe, 0x7d]),
      }),
    InternalServerError: (kit) => failingRead(kit, DYNAMODB_INTERNAL_ERROR),
    ServiceUnavailable: (kit) => failingRead(kit, DYNAMODB_THROTTLED),
  },
  elsewhere: {
    TooManyRequests:
      'API Gateway’s throttling answer, which the local stage does not emulate: "Clients may ' +
      'receive 429 Too Many Requests error responses" ' +
      '(https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-throttling.html)',
  },
} satisfies DeclaredSituations<string>;
