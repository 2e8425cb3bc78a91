import * as z from 'zod';

/**
 * The largest body a JSON route reads, derived from its schema's own limits, so that no body
 * costs more to decode than a valid request could. Pydantic ignores unknown fields and any
 * amount of white space, so FastAPI read bodies of any size; we refuse one larger than twice
 * the longest compact encoding of a valid request, plus 1 KiB, and never less than 16 KiB,
 * with a 413 before decoding (docs/fastapi-parity.md). Twice leaves room for pretty-printing
 * and a few extra fields.
 */

/** Python's `json.dumps` escapes every non-ASCII code point; one beyond the BMP is `\uXXXX\uXXXX`. */
const MAX_BYTES_PER_CODE_POINT = 12;
/** A Pydantic int as a client may send it: digits, a sign, a `.0`, or a padded string. */
const MAX_INT_BYTES = 24;
const MAX_NUMBER_BYTES = 32;
/** `"false"`: Pydantic's lax bool takes a word in quotes. */
const MAX_BOOL_BYTES = 7;
const MARGIN_FACTOR = 2;
const MARGIN_BYTES = 1024;
/**
 * No route takes less: a client may send back a whole resource it was given (a DealFile, with
 * its name escaped as Python escapes it, pretty-printed) where one field is read, and FastAPI
 * read it.
 */
const MIN_LIMIT_BYTES = 16 * 1024;

type JsonSchema = Readonly<Record<string, unknown>>;

class UnboundedSchema extends Error {}

function largest(schema: JsonSchema, defs: Readonly<Record<string, JsonSchema>>): number {
  const ref = schema.$ref;
  if (typeof ref === 'string') {
    const target = defs[ref.replace('#/$defs/', '')];
    if (target === undefined) throw new UnboundedSchema(`no definition for ${ref}`);
    return largest(target, defs);
  }
  if (Array.isArray(schema.anyOf)) {
    return Math.max(...(schema.anyOf as JsonSchema[]).map((branch) => largest(branch, defs)));
  }
  if (Array.isArray(schema.type)) {
    return Math.max(...schema.type.map((type: unknown) => largest({ ...schema, type }, defs)));
  }
  if (Array.isArray(schema.enum)) {
    return Math.max(...schema.enum.map((value) => JSON.stringify(value).length));
  }
  switch (schema.type) {
    case 'null':
      return 'null'.length;
    case 'boolean':
      return MAX_BOOL_BYTES;
    case 'integer':
      return MAX_INT_BYTES;
    case 'number':
      return MAX_NUMBER_BYTES;
    case 'string':
      if (typeof schema.maxLength !== 'number')
        throw new UnboundedSchema('a string without maxLength');
      return 2 + MAX_BYTES_PER_CODE_POINT * schema.maxLength;
    case 'array': {
      if (typeof schema.maxItems !== 'number') throw new UnboundedSchema('a list without maxItems');
      const item = largest((schema.items ?? {}) as JsonSchema, defs);
      return 2 + schema.maxItems * (item + 1);
    }
    case 'object': {
      const properties = Object.entries((schema.properties ?? {}) as Record<string, JsonSchema>);
      return (
        2 +
        properties.reduce(
          (sum, [name, value]) => sum + JSON.stringify(name).length + 2 + largest(value, defs),
          0,
        )
      );
    }
    default:
      throw new UnboundedSchema(`a value of no bounded type: ${JSON.stringify(schema)}`);
  }
}

/** The longest compact JSON text a valid value of the schema can have, in bytes. */
function largestJsonBytes(schema: z.ZodType): number {
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  try {
    return largest(json, (json.$defs ?? {}) as Record<string, JsonSchema>);
  } catch (error) {
    if (!(error instanceof UnboundedSchema)) throw error;
    throw new Error(`A JSON body schema must bound its size: ${error.message}`, { cause: error });
  }
}

/** The largest body a route with this schema reads; one byte more is a 413. */
export const jsonBodyLimit = (schema: z.ZodType): number =>
  Math.max(
    MIN_LIMIT_BYTES,
    Math.ceil((MARGIN_FACTOR * largestJsonBytes(schema) + MARGIN_BYTES) / 1024) * 1024,
  );

/** The 413's `detail`: the limit in bytes, as the upload route states its own. */
export const bodyTooLargeMessage = (limit: number): string =>
  `Request body too large: the limit for this route is ${String(limit)} bytes`;
