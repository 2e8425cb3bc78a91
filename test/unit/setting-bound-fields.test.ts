import { describe, expect, expectTypeOf, it } from 'vitest';
import * as z from 'zod';
import { API_ROUTES, SERVICE_FUNCTIONS } from '#functions/service-functions.ts';
import { requestSettingDefaults } from '#shared/config/environment.ts';
import {
  requestSchemasFor,
  settingBoundField,
  settingsJudging,
  type SettingsJudging,
} from '#shared/http/setting-bound-fields.ts';
import { startDirectUploadRequest } from '#shared/direct-uploads/api/direct-upload.ts';
import { listUserFilesRequest } from '#shared/user-files/api/user-file.ts';
import { updateUserFileRequest } from '#shared/user-files/api/user-file-update.ts';
import { uploadUserFileRequest } from '#shared/user-files/api/user-file-upload.ts';
import type { RequestSchemas } from '#shared/http/validate-request.ts';
import { settingVariables, stageConfig } from '#infra/stages.ts';

// A field built again for each stage (by no setting here: the builder's work is what is seen).
const Bounded = settingBoundField([], () => z.string().max(3).describe('Three at most'));
const Thing = z.object({ name: Bounded, note: z.string() }).meta({ id: 'Thing' });
const Plain = z.object({ id: z.string() });
const request = {
  path: Plain,
  body: z.object({ thing: Thing, alias: Bounded.optional(), count: z.int() }),
};

describe('request fields a stage setting bounds', () => {
  it('builds each bounded field again for a stage, and what holds it, and nothing else', () => {
    const judged = requestSchemasFor({})(request);
    expect(judged.path).toBe(Plain);
    expect(judged.body).not.toBe(request.body);
    const body = judged.body.shape;
    expect(body.count).toBe(request.body.shape.count);
    expect(body.thing).not.toBe(Thing);
    expect(body.thing.shape.name).not.toBe(Bounded);
    expect(body.thing.shape.note).toBe(Thing.shape.note);
    expect(body.alias).toBeInstanceOf(z.ZodOptional);
    expect(body.alias.safeParse(undefined).success).toBe(true);
    expect(body.alias.safeParse('four').success).toBe(false);
  });

  it('keeps what the document says of what it builds again: its component and description', () => {
    const body = requestSchemasFor({})(request).body.shape;
    expect(z.globalRegistry.get(body.thing)).toEqual({ id: 'Thing' });
    expect(z.globalRegistry.get(body.thing.shape.name)).toEqual({
      description: 'Three at most',
    });
  });

  it('builds a schema two requests share once per stage, so the document names one component', () => {
    const judged = requestSchemasFor({});
    const other = { body: z.object({ again: Thing }) };
    expect(judged(other).body.shape.again).toBe(judged(request).body.shape.thing);
  });

  it('refuses a bounded field copied outside its builder: the copy would keep the default', () => {
    const copied = { body: z.object({ name: Bounded.describe('Another description') }) };
    expect(() => settingsJudging(copied)).toThrow('was copied: describe it in its builder');
    expect(() => requestSchemasFor({})(copied)).toThrow('was copied');
  });

  it('names no setting for a request that holds no bounded field', () => {
    expect(settingsJudging({ path: Plain, body: z.object({ note: z.string() }) })).toEqual([]);
  });
});

describe('MAX_FILE_NAME_BYTES, the file name a request carries', () => {
  const names: readonly RequestSchemas[] = [
    uploadUserFileRequest,
    startDirectUploadRequest,
    updateUserFileRequest,
  ];

  it('judges the three requests that carry a name, and their functions read it', () => {
    for (const request of names) expect(settingsJudging(request)).toEqual(['MAX_FILE_NAME_BYTES']);
    expectTypeOf<
      SettingsJudging<typeof updateUserFileRequest>
    >().toEqualTypeOf<'MAX_FILE_NAME_BYTES'>();
    expectTypeOf<SettingsJudging<typeof listUserFilesRequest>>().toBeNever();
    const judged = API_ROUTES.filter(
      (route) => settingsJudging(route.operation.request).length > 0,
    );
    expect(judged.map((route) => route.functionId)).toEqual([
      'UploadUserFile',
      'StartDirectUpload',
      'UpdateUserFile',
    ]);
    // The document states it, so the function that serves the document reads it too.
    const reading = SERVICE_FUNCTIONS.filter((fn) =>
      (fn.variables as readonly string[]).includes('MAX_FILE_NAME_BYTES'),
    );
    expect(reading.map((fn) => fn.id)).toEqual([
      'UploadUserFile',
      'StartDirectUpload',
      'UpdateUserFile',
      'OpenApiDocument',
    ]);
  });

  it('is a stage setting, maxFileNameBytes, that the stack hands those functions', () => {
    const stage = (values: Record<string, unknown>) =>
      stageConfig((key) => ({ stage: 'local', ...values })[key]);
    expect(settingVariables(stage({})).MAX_FILE_NAME_BYTES).toBe('1020');
    expect(settingVariables(stage({ maxFileNameBytes: '600' })).MAX_FILE_NAME_BYTES).toBe('600');
    expect(() => stage({ maxFileNameBytes: '0' })).toThrow(/maxFileNameBytes .* \(got "0"\)/);
    expect(() => stage({ maxFileNameBytes: '1021' })).toThrow(/maxFileNameBytes .* \(got "1021"\)/);
  });

  it('bounds every name the same within a stage, and each stage by its own value', () => {
    const at = (limit: number) =>
      requestSchemasFor({ ...requestSettingDefaults(), MAX_FILE_NAME_BYTES: limit });
    const fourBytes = '\u{1F4C4}'.repeat(10);
    for (const request of names) {
      const name = (limit: number) => {
        const judged = at(limit)(request);
        const fields = (judged.body ?? judged.form) as z.ZodObject;
        return fields.shape.name as z.ZodType;
      };
      expect(name(40).safeParse(fourBytes).success).toBe(true);
      expect(name(39).safeParse(fourBytes).success).toBe(false);
      expect(name(1020).safeParse('\u{1F4C4}'.repeat(255)).success).toBe(true);
    }
  });
});
