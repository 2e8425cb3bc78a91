import middy from '@middy/core';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import type { ApiEvent } from '#shared/http/api-event.ts';
import { httpApi } from '#shared/http/http-api.ts';
import { jsonResponse, type ApiResult } from '#shared/http/responses.ts';
import { validateRequest } from '#shared/http/validate-request.ts';
import { FileTypeSchema } from '#shared/http/file-type-schema.ts';
import { pyBoundedInt, pyInt } from '#shared/http/fastapi/pydantic-fields.ts';
import { apiEvent, bodyOf, lambdaContext } from '#test/support/api-events.ts';

const ROOM_ID = /^[a-z][a-z0-9-]{0,31}:v1:group:[1-9][0-9]*:deal:[1-9][0-9]*$/;

// Shapes of the contract's own requests, so every row is exercised as a client meets it.
const schemas = {
  path: z.object({ group_id: pyInt(), deal_id: pyBoundedInt({ gt: 0, le: 2 ** 40 }) }),
  body: z.object({
    file_ids: z.array(pyInt()).min(1).max(6),
    fund_name: z.string().max(200).nullable().optional(),
    type: FileTypeSchema.nullable().optional(),
    room_ids: z
      .array(z.string().regex(ROOM_ID).meta({ maxLength: 80 }))
      .max(2)
      .optional(),
  }),
};

const handler = middy<ApiEvent, ApiResult>()
  .use(httpApi())
  .use(validateRequest(schemas, {}))
  .handler<ApiEvent, ApiResult>(({ input }) => jsonResponse(200, input));

async function call(options: Parameters<typeof apiEvent>[0]) {
  const result = await handler(
    apiEvent({ pathParameters: { group_id: '1', deal_id: '2' }, ...options }),
    lambdaContext(),
  );
  return { status: result.statusCode, body: bodyOf(result) };
}

const json = (body: unknown) => ({ body: JSON.stringify(body), contentType: 'application/json' });
/** FastAPI's 422 entry for a body that is no object, spelled out. */
const notAnObject = (input: unknown) => ({
  type: 'model_attributes_type',
  loc: ['body'],
  msg: 'Input should be a valid dictionary or object to extract fields from',
  input,
});
const ENUM_EXPECTED =
  "'deck', 'financials', 'raw_data', 'snapshot', 'full', 'mini', 'nano' or 'other'";

describe('422 bodies, one per row of the FastAPI error table', () => {
  it('missing: a required field absent; input is the enclosing object', async () => {
    expect(await call(json({ fund_name: 'Fund VII' }))).toEqual({
      status: 422,
      body: {
        detail: [
          {
            type: 'missing',
            loc: ['body', 'file_ids'],
            msg: 'Field required',
            input: { fund_name: 'Fund VII' },
          },
        ],
      },
    });
  });

  it('missing: the whole body absent; input is null', async () => {
    expect(await call({ contentType: 'application/json' })).toEqual({
      status: 422,
      body: { detail: [{ type: 'missing', loc: ['body'], msg: 'Field required', input: null }] },
    });
  });

  it('json_invalid: loc carries the character offset, ctx the decoder message', async () => {
    expect(await call({ body: '{"file_ids": }', contentType: 'application/json' })).toEqual({
      status: 422,
      body: {
        detail: [
          {
            type: 'json_invalid',
            loc: ['body', 13],
            msg: 'JSON decode error',
            input: {},
            ctx: { error: 'Expecting value' },
          },
        ],
      },
    });
  });

  it('json_invalid is decided before path errors, as FastAPI reads the body first', async () => {
    const { body } = await call({
      body: '[1,',
      contentType: 'application/json',
      pathParameters: { group_id: 'x', deal_id: '2' },
    });
    expect(body).toEqual({
      detail: [
        {
          type: 'json_invalid',
          loc: ['body', 3],
          msg: 'JSON decode error',
          input: {},
          ctx: { error: 'Expecting value' },
        },
      ],
    });
  });

  it('missing: a JSON null body, which FastAPI validates as no body at all', async () => {
    expect(await call(json(null))).toEqual({
      status: 422,
      body: { detail: [{ type: 'missing', loc: ['body'], msg: 'Field required', input: null }] },
    });
  });

  it.each([[[1, 2]], ['text'], [42]])(
    'model_attributes_type: a JSON body that is not an object (%j)',
    async (value) => {
      expect(await call(json(value))).toEqual({
        status: 422,
        body: {
          detail: [notAnObject(value)],
        },
      });
    },
  );

  it('int_parsing: a path parameter that is not an integer', async () => {
    expect(
      await call({ ...json({ file_ids: [1] }), pathParameters: { group_id: 'abc', deal_id: '2' } }),
    ).toEqual({
      status: 422,
      body: {
        detail: [
          {
            type: 'int_parsing',
            loc: ['path', 'group_id'],
            msg: 'Input should be a valid integer, unable to parse string as an integer',
            input: 'abc',
          },
        ],
      },
    });
  });

  it('int_parsing: a non-numeric string inside a JSON list', async () => {
    const { body } = await call(json({ file_ids: ['seven'] }));
    expect(body).toEqual({
      detail: [
        {
          type: 'int_parsing',
          loc: ['body', 'file_ids', 0],
          msg: 'Input should be a valid integer, unable to parse string as an integer',
          input: 'seven',
        },
      ],
    });
  });

  it.each([[null], [[1]], [{ id: 1 }]])('int_type: another JSON type (%j)', async (value) => {
    expect(await call(json({ file_ids: [value] }))).toEqual({
      status: 422,
      body: {
        detail: [
          {
            type: 'int_type',
            loc: ['body', 'file_ids', 0],
            msg: 'Input should be a valid integer',
            input: value,
          },
        ],
      },
    });
  });

  it('int_from_float: a number with a fractional part', async () => {
    const { body } = await call(json({ file_ids: [1.5] }));
    expect(body).toEqual({
      detail: [
        {
          type: 'int_from_float',
          loc: ['body', 'file_ids', 0],
          msg: 'Input should be a valid integer, got a number with a fractional part',
          input: 1.5,
        },
      ],
    });
  });

  it.each([['1,2'], [{ a: 1 }], [7]])('list_type: a list expected (%j)', async (value) => {
    expect(await call(json({ file_ids: value }))).toEqual({
      status: 422,
      body: {
        detail: [
          {
            type: 'list_type',
            loc: ['body', 'file_ids'],
            msg: 'Input should be a valid list',
            input: value,
          },
        ],
      },
    });
  });

  it.each([[5], [true], [['a']]])('string_type: a string expected (%j)', async (value) => {
    expect(await call(json({ file_ids: [1], fund_name: value }))).toEqual({
      status: 422,
      body: {
        detail: [
          {
            type: 'string_type',
            loc: ['body', 'fund_name'],
            msg: 'Input should be a valid string',
            input: value,
          },
        ],
      },
    });
  });

  it.each([['pdf'], ['Deck'], [3]])('enum: a value outside the file types (%j)', async (value) => {
    expect(await call(json({ file_ids: [1], type: value }))).toEqual({
      status: 422,
      body: {
        detail: [
          {
            type: 'enum',
            loc: ['body', 'type'],
            msg: `Input should be ${ENUM_EXPECTED}`,
            input: value,
            ctx: { expected: ENUM_EXPECTED },
          },
        ],
      },
    });
  });

  it('string_pattern_mismatch: every bad entry of a list, each at its index', async () => {
    const pattern = ROOM_ID.source;
    const { status, body } = await call(
      json({ file_ids: [1], room_ids: ['bad', 'prod:v1:group:1:deal:2'] }),
    );
    expect(status).toBe(422);
    expect(body).toEqual({
      detail: [
        {
          type: 'string_pattern_mismatch',
          loc: ['body', 'room_ids', 0],
          msg: `String should match pattern '${pattern}'`,
          input: 'bad',
          ctx: { pattern },
        },
      ],
    });
  });

  it('too_long: a list over its maximum', async () => {
    expect(await call(json({ file_ids: [1, 2, 3, 4, 5, 6, 7] }))).toEqual({
      status: 422,
      body: {
        detail: [
          {
            type: 'too_long',
            loc: ['body', 'file_ids'],
            msg: 'List should have at most 6 items after validation, not 7',
            input: [1, 2, 3, 4, 5, 6, 7],
            ctx: { field_type: 'List', max_length: 6, actual_length: 7 },
          },
        ],
      },
    });
  });

  it('too_short: a list under its minimum, with Pydantic singular "item"', async () => {
    expect(await call(json({ file_ids: [] }))).toEqual({
      status: 422,
      body: {
        detail: [
          {
            type: 'too_short',
            loc: ['body', 'file_ids'],
            msg: 'List should have at least 1 item after validation, not 0',
            input: [],
            ctx: { field_type: 'List', min_length: 1, actual_length: 0 },
          },
        ],
      },
    });
  });
});

describe('FastAPI request reading around the table', () => {
  it('reports every failing field, path before body, in field order, with the input as sent', async () => {
    expect(
      await call({
        ...json({ file_ids: 'x', fund_name: 1, type: 'pdf' }),
        pathParameters: { group_id: 'g', deal_id: '0' },
      }),
    ).toEqual({
      status: 422,
      body: {
        detail: [
          {
            type: 'int_parsing',
            loc: ['path', 'group_id'],
            msg: 'Input should be a valid integer, unable to parse string as an integer',
            input: 'g',
          },
          {
            type: 'greater_than',
            loc: ['path', 'deal_id'],
            msg: 'Input should be greater than 0',
            input: '0',
            ctx: { gt: 0 },
          },
          {
            type: 'list_type',
            loc: ['body', 'file_ids'],
            msg: 'Input should be a valid list',
            input: 'x',
          },
          {
            type: 'string_type',
            loc: ['body', 'fund_name'],
            msg: 'Input should be a valid string',
            input: 1,
          },
          {
            type: 'enum',
            loc: ['body', 'type'],
            msg: `Input should be ${ENUM_EXPECTED}`,
            input: 'pdf',
            ctx: { expected: ENUM_EXPECTED },
          },
        ],
      },
    });
  });

  it('reports the bad items of a list too short, not its length, as Pydantic does', async () => {
    expect(await call(json({ file_ids: [], room_ids: ['bad'] }))).toMatchObject({ status: 422 });
    const { body } = await call(json({ file_ids: ['x'] }));
    expect(body).toEqual({
      detail: [
        {
          type: 'int_parsing',
          loc: ['body', 'file_ids', 0],
          msg: 'Input should be a valid integer, unable to parse string as an integer',
          input: 'x',
        },
      ],
    });
  });

  it('reports only the length of a list too long, not its bad items, as Pydantic does', async () => {
    const ids = ['a', 2, 3, 4, 5, 6, 'g'];
    expect((await call(json({ file_ids: ids }))).body).toEqual({
      detail: [
        {
          type: 'too_long',
          loc: ['body', 'file_ids'],
          msg: 'List should have at most 6 items after validation, not 7',
          input: ids,
          ctx: { field_type: 'List', max_length: 6, actual_length: 7 },
        },
      ],
    });
  });

  it('measures an over-long integer string after trimming, as Pydantic does', async () => {
    const padded = `${' '.repeat(4300)}x`;
    const { body } = await call(json({ file_ids: [padded] }));
    expect(body).toEqual({
      detail: [
        {
          type: 'int_parsing',
          loc: ['body', 'file_ids', 0],
          msg: 'Input should be a valid integer, unable to parse string as an integer',
          input: padded,
        },
      ],
    });
    const long = '1'.repeat(4301);
    expect((await call(json({ file_ids: [long] }))).body).toEqual({
      detail: [
        {
          type: 'int_parsing_size',
          loc: ['body', 'file_ids', 0],
          msg: 'Unable to parse input string as an integer, exceeded maximum size',
          input: long,
        },
      ],
    });
  });

  it('accepts what Pydantic accepts in lax mode: numeric strings, whole floats, bools', async () => {
    const { status, body } = await call({
      ...json({ file_ids: [' 42 ', '+7', '1_000', '3.0', 5.0, true], extra: 'ignored' }),
      pathParameters: { group_id: '-3', deal_id: '08' },
    });
    expect(status).toBe(200);
    expect(body).toEqual({
      path: { group_id: -3, deal_id: 8 },
      body: { file_ids: [42, 7, 1000, 3, 5, 1] },
    });
  });

  it('ignores unknown fields, __proto__ among them, and never passes them on', async () => {
    const { body } = await call({
      body: '{"file_ids": [1], "is_admin": true, "__proto__": {"polluted": 1}}',
      contentType: 'application/json',
    });
    expect(body).toEqual({ path: { group_id: 1, deal_id: 2 }, body: { file_ids: [1] } });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('reads a body sent without a content type, or an empty one, as text (strict, FastAPI 0.132+)', async () => {
    for (const contentType of [undefined, '']) {
      expect(
        await call({
          body: '{"file_ids": [1]}',
          ...(contentType === undefined ? {} : { contentType }),
        }),
      ).toEqual({
        status: 422,
        body: {
          detail: [notAnObject('{"file_ids": [1]}')],
        },
      });
    }
  });

  it('reads a content type that is not one type/subtype as text/plain, as Python does', async () => {
    const result = await call({ body: '{"file_ids":[1]}', contentType: 'application/json/x' });
    expect(result.body).toMatchObject({
      detail: [{ type: 'model_attributes_type', input: '{"file_ids":[1]}' }],
    });
  });

  it('reads UTF-16 and UTF-32 bodies, with or without a byte order mark, as json.loads does', async () => {
    const text = '{"file_ids": [5]}';
    const utf16le = Buffer.from(text, 'utf16le');
    const utf16be = Buffer.from(utf16le).swap16();
    const utf32le = Buffer.alloc(text.length * 4);
    for (let i = 0; i < text.length; i++) utf32le.writeUInt32LE(text.charCodeAt(i), i * 4);
    for (const bytes of [
      utf16le,
      utf16be,
      Buffer.concat([Buffer.from([0xff, 0xfe]), utf16le]),
      utf32le,
      Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]),
    ]) {
      expect(await call({ body: bytes, contentType: 'application/json' })).toEqual({
        status: 200,
        body: { path: { group_id: 1, deal_id: 2 }, body: { file_ids: [5] } },
      });
    }
  });

  it('parses application/*+json and a charset parameter as JSON', async () => {
    expect(
      (await call({ body: '{"file_ids":[1]}', contentType: 'application/vnd.api+json' })).status,
    ).toBe(200);
    expect(
      (await call({ body: '{"file_ids":[1]}', contentType: 'Application/JSON; charset=utf-8' }))
        .status,
    ).toBe(200);
  });

  it('passes another content type on as text, which then is not an object', async () => {
    expect(await call({ body: '{"file_ids":[1]}', contentType: 'text/plain' })).toEqual({
      status: 422,
      body: {
        detail: [
          {
            type: 'model_attributes_type',
            loc: ['body'],
            msg: 'Input should be a valid dictionary or object to extract fields from',
            input: '{"file_ids":[1]}',
          },
        ],
      },
    });
  });

  it('answers 400 for a JSON body that is not UTF-8, as FastAPI does', async () => {
    expect(
      await call({ body: Buffer.from([0x7b, 0xff, 0xfe, 0x7d]), contentType: 'application/json' }),
    ).toEqual({
      status: 400,
      body: { detail: 'There was an error parsing the body' },
    });
  });

  it('reads a base64-encoded JSON body the same as a text one', async () => {
    const result = await call({
      body: Buffer.from('{"file_ids":[9]}'),
      contentType: 'application/json',
    });
    expect(result).toEqual({
      status: 200,
      body: { path: { group_id: 1, deal_id: 2 }, body: { file_ids: [9] } },
    });
  });

  /** The 422's text, as sent: JSON.parse would round what is being checked. */
  const errorText = async (body: string) =>
    (
      await handler(
        apiEvent({
          pathParameters: { group_id: '1', deal_id: '2' },
          body,
          contentType: 'application/json',
        }),
        lambdaContext(),
      )
    ).body;

  it.each([
    ['9223372036854775808', '9223372036854775808'],
    ['123456789012345678901234567890', '123456789012345678901234567890'],
    ['"99999999999999999999"', '"99999999999999999999"'],
    ['1.0', '1.0'],
    ['1e3', '1000.0'],
    ['-0', '0'],
    ['1e18', '1e+18'],
  ])(
    'takes %s as an integer, as Pydantic does, and echoes it as Python prints it',
    async (id, echoed) => {
      expect(await errorText(`{"file_ids": [${id}, "x"]}`)).toBe(
        `{"detail":[{"type":"int_parsing","loc":["body","file_ids",1],"msg":"Input should be a valid integer, unable to parse string as an integer","input":"x"}]}`,
      );
      expect(await errorText(`{"file_ids": ${id}}`)).toBe(
        `{"detail":[{"type":"list_type","loc":["body","file_ids"],"msg":"Input should be a valid list","input":${echoed}}]}`,
      );
    },
  );

  it.each([
    [
      '1e20',
      'int_parsing_size',
      'Unable to parse input string as an integer, exceeded maximum size',
      '1e+20',
    ],
    [
      '1e308',
      'int_parsing_size',
      'Unable to parse input string as an integer, exceeded maximum size',
      '1e+308',
    ],
    [
      '1.5',
      'int_from_float',
      'Input should be a valid integer, got a number with a fractional part',
      '1.5',
    ],
    [
      '1.5e-7',
      'int_from_float',
      'Input should be a valid integer, got a number with a fractional part',
      '1.5e-07',
    ],
  ])('refuses %s as an int the way Pydantic does', async (id, type, msg, echoed) => {
    expect(await errorText(`{"file_ids": [${id}]}`)).toBe(
      `{"detail":[{"type":"${type}","loc":["body","file_ids",0],"msg":"${msg}","input":${echoed}}]}`,
    );
  });

  it('refuses a bounded int beyond the safe range by its bound, echoing the digits', async () => {
    const { body, statusCode } = await handler(
      apiEvent({
        pathParameters: { group_id: '1', deal_id: '99999999999999999999' },
        ...json({ file_ids: [1] }),
      }),
      lambdaContext(),
    );
    expect(statusCode).toBe(422);
    expect(body).toBe(
      '{"detail":[{"type":"less_than_equal","loc":["path","deal_id"],"msg":"Input should be less than or equal to 1099511627776","input":"99999999999999999999","ctx":{"le":1099511627776}}]}',
    );
  });
});
