import type { PydanticError } from './fastapi/pydantic-errors.ts';

/**
 * Errors a use case or middleware may raise on purpose. The error middleware turns each
 * into FastAPI's body for it; anything else is our fault and becomes a bare 500.
 */
export class HttpError extends Error {
  readonly statusCode: number;
  readonly detail: unknown;
  readonly headers: Readonly<Record<string, string>>;

  constructor(
    statusCode: number,
    detail: unknown,
    options: { headers?: Record<string, string>; cause?: unknown } = {},
  ) {
    super(typeof detail === 'string' ? detail : `HTTP ${statusCode}`, { cause: options.cause });
    this.name = new.target.name;
    this.statusCode = statusCode;
    this.detail = detail;
    this.headers = options.headers ?? {};
  }

  /** The response body; FastAPI's `{"detail": ...}` unless a subclass says otherwise. */
  body(): unknown {
    return { detail: this.detail };
  }
}

export class BadRequestError extends HttpError {
  constructor(detail = 'Bad Request') {
    super(400, detail);
  }
}

/**
 * The deployed JWT authorizer's refusal, reproduced wherever our own code refuses a caller
 * (the local stage's authorizer, a claim that is not a user id).
 */
export class UnauthorizedError extends HttpError {
  constructor(reason = 'the token is not valid') {
    super(401, 'Unauthorized', {
      headers: {
        'www-authenticate': `Bearer scope="" error="invalid_token" error_description="${reason}"`,
      },
    });
  }

  override body(): unknown {
    return { message: 'Unauthorized' };
  }
}

/** One body for every resource the caller may not see, so nothing reveals which part exists. */
export class NotFoundError extends HttpError {
  constructor(detail = 'Not Found') {
    super(404, detail);
  }
}

export class MethodNotAllowedError extends HttpError {
  constructor(allowed: readonly string[]) {
    super(405, 'Method Not Allowed', { headers: { allow: allowed.join(', ') } });
  }
}

/** The request clashes with the resource's state: a retry later may succeed. */
export class ConflictError extends HttpError {
  constructor(detail = 'Conflict') {
    super(409, detail);
  }
}

export class PayloadTooLargeError extends HttpError {
  constructor(detail = 'Request Entity Too Large') {
    super(413, detail);
  }
}

/** FastAPI's RequestValidationError: 422 with every failing field. */
export class RequestValidationError extends HttpError {
  readonly errors: readonly PydanticError[];

  constructor(errors: readonly PydanticError[]) {
    super(422, errors);
    this.errors = errors;
  }
}
