import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import {
  requestSchemasFor,
  settingBoundField,
  settingsJudging,
} from '#shared/http/setting-bound-fields.ts';

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
