import type * as z from 'zod';
import type { RequestSchemas } from '../http/validate-request.ts';
import { HttpErrorSchema } from '../http/error-bodies.ts';

/** Groups in the reference, in the order it shows them. */
export const API_TAGS = {
  'User files': 'Upload and list your own files (the contract’s user file area)',
  'Direct uploads': 'Files of up to 50 MiB sent straight to S3 (extension)',
  'Submission notifications': 'One chat message for a finished submission',
  'Deal files': 'Files attached to deals inside groups',
  'Realtime collaboration': 'Signed tokens that open deal rooms, and the keys to verify them',
  Documentation: 'This reference and the document behind it (extension)',
} as const;

type ApiTag = keyof typeof API_TAGS;

interface ResponseBody {
  readonly mediaType: string;
  readonly schema: z.ZodType;
  readonly example: unknown;
}

export interface ResponseDoc {
  /** When this answer comes. */
  readonly description: string;
  /** One entry per media type it may come in. */
  readonly content?: readonly ResponseBody[];
  /** Headers worth knowing, by lower-case name. */
  readonly headers?: z.ZodObject;
}

/**
 * One route as the OpenAPI document describes it. The handler validates with `request`, so
 * the document cannot describe a request the function does not check. Responses every route
 * shares (400 for unreadable JSON, 401, 413, 429, 500, 503) are added by the document builder; a
 * route that can fail validation declares its own 422 (`validationFailed` in examples.ts).
 */
export interface ApiOperation<S extends RequestSchemas = RequestSchemas> {
  readonly operationId: string;
  readonly summary: string;
  readonly description: string;
  readonly tag: ApiTag;
  /** `contract`: the FastAPI interface the clients were written against. `extension`: ours. */
  readonly origin: 'contract' | 'extension';
  readonly request: S;
  /** Path parameters the handler checks itself: an unknown name is a 404, never a 422. */
  readonly handlerCheckedPath?: z.ZodObject;
  /** A body the handler accepts; "Try it out" starts from it. */
  readonly requestExample?: S['body'] extends z.ZodType ? z.input<S['body']> : unknown;
  /** This route's own answers, by status. */
  readonly responses: Readonly<Record<number, ResponseDoc>>;
}

/** Keeps the exact request schemas' types, so the handler's input is typed from them. */
export const defineOperation = <const S extends RequestSchemas>(
  operation: ApiOperation<S>,
): ApiOperation<S> => operation;

/** A JSON answer whose example TypeScript checks against the schema. */
export function jsonAnswer<S extends z.ZodType>(
  description: string,
  schema: S,
  example: z.output<S>,
  headers?: z.ZodObject,
): ResponseDoc {
  return {
    description,
    content: [{ mediaType: 'application/json', schema, example }],
    ...(headers === undefined ? {} : { headers }),
  };
}

/** FastAPI's `HTTPException` answer: `{"detail": "<message>"}`. */
export const detailAnswer = (description: string, detail: string): ResponseDoc =>
  jsonAnswer(description, HttpErrorSchema, { detail });

/** An answer with no body, such as a 204 or a redirect. */
export const emptyAnswer = (description: string, headers?: z.ZodObject): ResponseDoc => ({
  description,
  ...(headers === undefined ? {} : { headers }),
});
