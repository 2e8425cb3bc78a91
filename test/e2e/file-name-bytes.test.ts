/**
 * MAX_FILE_NAME_BYTES, a setting that judges requests: a file name's bytes in UTF-8, wherever
 * a name enters (the multipart upload, the direct upload's start, the rename). A name over it
 * is refused in the request's own 422, beside the request's other errors, as a FastAPI app
 * with a validator refuses it, and the OpenAPI document states the stage's value. At its
 * default it refuses nothing the recorded FastAPI answers accept.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { API_ROUTES } from '#functions/service-functions.ts';
import { requestSettingDefaults } from '#shared/config/environment.ts';
import { buildOpenApiDocument } from '#shared/openapi/openapi-document.ts';
import { expectRefused } from '#test/support/expect-refused.ts';
import {
  type DirectUploadTicket,
  fileTypeError,
  type UserFileBody,
  validationBody,
} from '#test/support/fastapi-bodies.ts';
import { uploadForm } from '#test/support/multipart.ts';
import { type TestStage, useTestStage } from '#test/support/test-stage.ts';

const LIST = '/api/v1/user/me/file';
const START = `${LIST}/upload`;
const JSON_HEADERS = { 'content-type': 'application/json' };

/** The longest name the recorded answers accept: 255 characters of 4 bytes (1,020 bytes). */
const LONGEST_RECORDED = '\u{1F4C4}'.repeat(255);
/** The limit a stage is started with below, and names of that many bytes and of one more. */
const LIMIT = 40;
const AT_LIMIT = 'é'.repeat(LIMIT / 2);
const OVER_LIMIT = `${AT_LIMIT}.`;

/** What FastAPI answers for a name its byte validator refuses (checked on 0.142.2). */
const nameTooLong = (limit: number, input: string) => ({
  type: 'value_error',
  loc: ['body', 'name'],
  msg: `Value error, String should have at most ${limit} bytes in UTF-8`,
  input,
  ctx: { error: {} },
});

const start = (stage: TestStage, as: number, body: unknown) =>
  stage.request(START, { method: 'POST', as, headers: JSON_HEADERS, body: JSON.stringify(body) });
const rename = (stage: TestStage, as: number, id: number | string, body: unknown) =>
  stage.request(`${LIST}/${String(id)}`, {
    method: 'PATCH',
    as,
    headers: JSON_HEADERS,
    body: JSON.stringify(body),
  });

async function uploaded(stage: TestStage, as: number, name: string): Promise<UserFileBody> {
  const response = await stage.upload(as, uploadForm('some bytes', { name }));
  expect(response.status).toBe(201);
  return (await response.json()) as UserFileBody;
}

/** Every name schema the document holds: the upload form's, the direct upload's, PATCH's. */
function nameSchemas(document: unknown): unknown[] {
  const { paths, components } = document as {
    paths: Record<string, Record<string, { requestBody?: { content: Record<string, unknown> } }>>;
    components: { schemas: Record<string, { properties: { name: unknown } }> };
  };
  const form = paths[LIST]?.post?.requestBody?.content['multipart/form-data'] as {
    schema: { properties: { name: unknown } };
  };
  return [
    form.schema.properties.name,
    components.schemas.DirectUploadRequest?.properties.name,
    components.schemas.UserFileUpdate?.properties.name,
  ];
}

const nameSchemaAt = (limit: number) => ({
  type: 'string',
  minLength: 1,
  maxLength: 255,
  'x-max-bytes': limit,
  description: `Name of the file, including its extension; kept exactly as given; at most ${limit} bytes in UTF-8`,
});

describe('a stage at the default, 1,020 bytes', () => {
  const stage = useTestStage();

  it('takes the longest name the recorded FastAPI answers take, wherever a name enters', async () => {
    const file = await uploaded(stage(), 5101, LONGEST_RECORDED);
    expect(file.name).toBe(LONGEST_RECORDED);
    const started = await start(stage(), 5101, {
      name: LONGEST_RECORDED,
      type: 'deck',
      filesize: 10,
    });
    expect(started.status).toBe(201);
    const other = await uploaded(stage(), 5101, 'deck.pdf');
    const renamed = await rename(stage(), 5101, other.id, { name: LONGEST_RECORDED });
    expect(renamed.status).toBe(200);
    expect(((await renamed.json()) as UserFileBody).name).toBe(LONGEST_RECORDED);
  });

  it('states 1,020 bytes in the document it serves', async () => {
    const document: unknown = await (await stage().request('/openapi.json')).json();
    expect(nameSchemas(document)).toEqual([1, 2, 3].map(() => nameSchemaAt(1020)));
  });
});

describe(`a stage started with MAX_FILE_NAME_BYTES=${LIMIT} in its environment`, () => {
  // The stage reads its environment as it starts, as `npm start` does; no other stage sees it.
  beforeAll(() => {
    vi.stubEnv('MAX_FILE_NAME_BYTES', String(LIMIT));
  });
  const stage = useTestStage();
  beforeAll(() => {
    vi.unstubAllEnvs();
  });
  afterAll(() => {
    vi.unstubAllEnvs();
  });

  it("refuses a longer name in the upload's 422, with its other errors, storing nothing", async () => {
    const form = uploadForm('some bytes', { name: OVER_LIMIT, type: 'slides' });
    await expectRefused(
      stage(),
      () => stage().upload(5201, form),
      422,
      validationBody(nameTooLong(LIMIT, OVER_LIMIT), fileTypeError(['body', 'type'], 'slides')),
    );
  });

  it("refuses it in the direct upload's 422, with its other errors, storing nothing", async () => {
    await expectRefused(
      stage(),
      () => start(stage(), 5202, { name: OVER_LIMIT, type: 'deck', filesize: 0 }),
      422,
      validationBody(nameTooLong(LIMIT, OVER_LIMIT), {
        type: 'greater_than',
        loc: ['body', 'filesize'],
        msg: 'Input should be greater than 0',
        input: 0,
        ctx: { gt: 0 },
      }),
    );
  });

  it("refuses it in the rename's 422, with its other errors, changing nothing", async () => {
    const file = await uploaded(stage(), 5203, 'deck.pdf');
    await expectRefused(
      stage(),
      () => rename(stage(), 5203, file.id, { is_archived: 'maybe', name: OVER_LIMIT }),
      422,
      validationBody(
        {
          type: 'bool_parsing',
          loc: ['body', 'is_archived'],
          msg: 'Input should be a valid boolean, unable to interpret input',
          input: 'maybe',
        },
        nameTooLong(LIMIT, OVER_LIMIT),
      ),
    );
  });

  it('takes a name of exactly that many bytes, wherever a name enters', async () => {
    const file = await uploaded(stage(), 5204, AT_LIMIT);
    expect(file.name).toBe(AT_LIMIT);
    const started = await start(stage(), 5204, { name: AT_LIMIT, type: 'deck', filesize: 10 });
    expect(started.status).toBe(201);
    expect(((await started.json()) as DirectUploadTicket).id).toEqual(expect.any(Number));
    const other = await uploaded(stage(), 5204, 'deck.pdf');
    const renamed = await rename(stage(), 5204, other.id, { name: AT_LIMIT });
    expect(renamed.status).toBe(200);
    expect(((await renamed.json()) as UserFileBody).name).toBe(AT_LIMIT);
  });

  it('still refuses over 255 characters as Pydantic does, before it counts bytes', async () => {
    const name = 'n'.repeat(256);
    await expectRefused(
      stage(),
      () => start(stage(), 5205, { name, type: 'deck', filesize: 1 }),
      422,
      validationBody({
        type: 'string_too_long',
        loc: ['body', 'name'],
        msg: 'String should have at most 255 characters',
        input: name,
        ctx: { max_length: 255 },
      }),
    );
  });

  it(`states ${LIMIT} bytes in the document it serves, as npm run openapi does with it`, async () => {
    const served: unknown = await (await stage().request('/openapi.json')).json();
    expect(nameSchemas(served)).toEqual([1, 2, 3].map(() => nameSchemaAt(LIMIT)));
    const settings = { ...requestSettingDefaults(), MAX_FILE_NAME_BYTES: LIMIT };
    expect(served).toEqual(JSON.parse(JSON.stringify(buildOpenApiDocument(API_ROUTES, settings))));
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['infra/render/openapi-cli.ts'],
      { env: { ...process.env, MAX_FILE_NAME_BYTES: String(LIMIT) } },
    );
    expect(JSON.parse(stdout)).toEqual(served);
  });
});
