import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { bodyByteLength, bodyBytes } from '#shared/http/api-event.ts';

describe('bodyByteLength: the body size a limit is held against, without decoding it', () => {
  it.each(Array.from({ length: 12 }, (_, n) => n))(
    '%i bytes, base64 as API Gateway sends them',
    (n) => {
      const event = { body: randomBytes(n).toString('base64'), isBase64Encoded: true };
      expect(bodyByteLength(event)).toBe(bodyBytes(event).length);
    },
  );

  it('counts text in UTF-8 bytes, and no body as none', () => {
    expect(bodyByteLength({ body: 'é€😀', isBase64Encoded: false })).toBe(9);
    expect(bodyByteLength({ isBase64Encoded: false })).toBe(0);
  });
});
