import middy from '@middy/core';
import { describe, expect, it } from 'vitest';
import type { ApiEvent } from '#shared/http/api-event.ts';
import { authenticate } from '#shared/http/authenticate.ts';
import { parseUserId } from '#shared/http/user-id.ts';
import { httpApi } from '#shared/http/http-api.ts';
import { jsonResponse, type ApiResult } from '#shared/http/responses.ts';
import { apiEvent, bodyOf, lambdaContext } from '#test/support/api-events.ts';

const whoAmI = (claimName = 'sub') =>
  middy<ApiEvent, ApiResult>()
    .use(httpApi())
    .use(authenticate(claimName))
    .handler<ApiEvent, ApiResult>(({ userId }) => jsonResponse(200, { userId }));

describe('the caller is the positive integer in the configured claim', () => {
  it('reads the user id from the sub claim by default', async () => {
    const result = await whoAmI()(apiEvent({ claims: { sub: '42' } }), lambdaContext());
    expect(result.statusCode).toBe(200);
    expect(bodyOf(result)).toEqual({ userId: 42 });
  });

  it('reads another claim when configured', async () => {
    const event = apiEvent({ claims: { sub: 'auth0|abc', 'custom:user_id': '7' } });
    const result = await whoAmI('custom:user_id')(event, lambdaContext());
    expect(bodyOf(result)).toEqual({ userId: 7 });
  });

  it.each([[''], ['0'], ['-1'], ['1.5'], ['01'], [' 1'], ['abc'], ['9007199254740992'], ['1e3']])(
    'refuses %j with the authorizer 401',
    async (sub) => {
      const result = await whoAmI()(apiEvent({ claims: { sub } }), lambdaContext());
      expect(result.statusCode).toBe(401);
      expect(bodyOf(result)).toEqual({ message: 'Unauthorized' });
      expect(result.headers?.['www-authenticate']).toMatch(/^Bearer .*error="invalid_token"/);
    },
  );

  it('refuses a missing claim', async () => {
    const result = await whoAmI()(apiEvent({ claims: {} }), lambdaContext());
    expect(result.statusCode).toBe(401);
  });

  it('parses numbers and strings alike, within the safe range', () => {
    expect(parseUserId(12)).toBe(12);
    expect(parseUserId('9007199254740991')).toBe(9007199254740991);
    expect(parseUserId(undefined)).toBeUndefined();
    expect(parseUserId(['1'])).toBeUndefined();
  });
});
