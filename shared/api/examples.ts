import type * as z from 'zod';
import type { DealFileSchema } from '../deal-files/api/deal-file.ts';
import { HttpValidationErrorSchema } from '../http/error-bodies.ts';
import type { UserFileSchema } from '../user-files/api/user-file.ts';
import { QuotaExceeded } from '../usage/usage.ts';
import { AccountErased } from '../domain/outcome.ts';
import { detailAnswer, jsonAnswer, type ResponseDoc } from './operation.ts';

/*
 * Every example here and in the functions' declarations is an answer the route really gives:
 * test/e2e/openapi-examples.test.ts produces each one's situation on the local stage (those
 * of a function's routes are made in test/routes/<function folder>.ts) and holds the
 * example against the real answer (ids, times, signatures and the bucket aside).
 */

/** The bucket, as the examples name it; a deployed stage's has the name CDK gave it. */
export const EXAMPLE_BUCKET = 'file-service-bucket';

/** The files the reference's examples show, one of each kind. */
export const USER_FILE_EXAMPLE: z.output<typeof UserFileSchema> = {
  name: 'Q3 deck.pdf',
  id: 42,
  user_id: 7,
  type: 'deck',
  created_at: '2026-06-01T09:30:00.000Z',
  updated_at: null,
  is_archived: false,
  filesize: 482133,
  location: `s3://${EXAMPLE_BUCKET}/users/7/files/42`,
};

export const DEAL_FILE_EXAMPLE: z.output<typeof DealFileSchema> = {
  name: 'Term sheet.pdf',
  id: 6,
  deal_id: 3,
  type: 'financials',
  created_at: '2026-06-01T09:30:00.000Z',
  updated_at: '2026-06-02T14:05:00.000Z',
  is_archived: false,
};

/** Where the examples' bucket is reached, as a deployed stage signs its links and forms. */
export const EXAMPLE_BUCKET_URL = `https://${EXAMPLE_BUCKET}.s3.eu-west-1.amazonaws.com`;

type ValidationErrors = NonNullable<z.output<typeof HttpValidationErrorSchema>['detail']>;

/** A route's 422, with an error list it really gives (one mistake; a request may make several). */
export const validationFailed = (...errors: ValidationErrors): ResponseDoc =>
  jsonAnswer(
    'Validation Error: every failing field, as Pydantic v2 reports it',
    HttpValidationErrorSchema,
    { detail: errors },
  );

/** The 422 of a path id that is no integer, as every route with an id in its path gives it. */
export const idNotAnInteger = (name: string, input = 'abc'): ResponseDoc =>
  validationFailed({
    type: 'int_parsing',
    loc: ['path', name],
    msg: 'Input should be a valid integer, unable to parse string as an integer',
    input,
  });

/** The 403 of a route an erased account's id may no longer use: `what` it would have got. */
export const accountErased = (what: string): ResponseDoc =>
  detailAnswer(
    `The account was erased (the operator's \`user erase\`): its id gets no ${what}`,
    new AccountErased().message,
  );

/**
 * The 403 of a route that adds to a user's storage: over their quota (the usual one), or an
 * erased account.
 */
export const storageRefused = (what: string): ResponseDoc =>
  detailAnswer(
    'Over your storage quota: the detail names the limit, what is in use (files and pending ' +
      'direct uploads) and what was asked, and nothing was stored; `GET /api/v1/user/me/usage` ' +
      `shows where you stand. Or the account was erased (the operator's \`user erase\`): its id takes no new ${what} ("${new AccountErased().message}")`,
    new QuotaExceeded('files', 10000, 10000, 1).message,
  );
