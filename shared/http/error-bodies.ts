import * as z from 'zod';

/**
 * The error bodies clients parse (see the contract's errors section). Only the document uses
 * these schemas; the error middleware writes the bodies, and the contract check holds every
 * body it writes against them.
 */

/** One entry of FastAPI's 422 `detail` (Pydantic v2's `errors(include_url=False)`). */
const ValidationErrorSchema = z
  .object({
    loc: z
      .array(z.union([z.string(), z.int()]))
      .describe('Where: `body`, `path`, `query` or `header`, then field names and list indexes'),
    msg: z.string().describe('What is wrong, in words'),
    type: z.string().describe('Pydantic’s error type, such as `missing` or `int_parsing`'),
    input: z.unknown().optional().describe('The value that failed'),
    ctx: z
      .record(z.string(), z.unknown())
      .optional()
      .describe('Context of the error type, such as `{"max_length": 100}`'),
  })
  .meta({ id: 'ValidationError', title: 'ValidationError' });

/** FastAPI's 422 body: every failing field at once. */
export const HttpValidationErrorSchema = z
  .object({ detail: z.array(ValidationErrorSchema).optional() })
  .meta({ id: 'HTTPValidationError', title: 'HTTPValidationError' });

/** Every other error our functions answer: FastAPI's `HTTPException` body. */
export const HttpErrorSchema = z
  .object({ detail: z.string() })
  .meta({ id: 'HTTPError', title: 'HTTPError' });

/** API Gateway's own refusals (authorizer, throttling, payload limit, a crashed function). */
export const GatewayMessageSchema = z
  .object({ message: z.string() })
  .meta({ id: 'GatewayMessage', title: 'GatewayMessage' });

/** 413, 500 and 503 may come from our function or from API Gateway in front of it. */
export const ErrorFromEitherSchema = z.union([HttpErrorSchema, GatewayMessageSchema]);
