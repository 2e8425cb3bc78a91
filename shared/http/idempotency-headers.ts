import * as z from 'zod';
import { pyStr } from '../http/fastapi/pydantic-fields.ts';

/** The optional `Idempotency-Key` header of the endpoints that create something. */
export const IdempotencyHeaders = z.object({
  'idempotency-key': pyStr({ minLength: 1, maxLength: 255 })
    .optional()
    .describe('A retry with the same key within 24 hours gets the first response again'),
});
