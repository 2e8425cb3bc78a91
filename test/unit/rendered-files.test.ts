/**
 * Every generated table and file is what its sources make now: the functions list, the
 * configuration schema, the stages and the OpenAPI document (infra/render/rendered-files.ts).
 */
import { describe, expect, it } from 'vitest';
import { renderAll } from '#infra/render/rendered-files.ts';

const rendered = await renderAll();

describe('the rendered tables and files are current', () => {
  it.each(rendered.map((file) => [file.file, file] as const))('%s', (_name, file) => {
    expect(file.current, `${file.file} is stale: run npm run render`).toBe(file.rendered);
  });
});
