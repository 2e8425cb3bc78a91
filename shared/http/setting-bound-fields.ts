import * as z from 'zod';
import {
  type Environment,
  type RequestSetting,
  requestSettingDefaults,
  type RequestSettings,
} from '../config/environment.ts';
import type { RequestSchemas } from './validate-request.ts';

/**
 * Request fields bounded by a stage setting (a name's length, a list's count). The field is
 * declared once, as a builder of its schema from the settings; each request that holds it is
 * built from the stage's values once per container, by the handler that validates it and by
 * the OpenAPI document that states it. So a refusal is one more entry of the request's 422,
 * reported with every other as Pydantic reports it, and the document shows the stage's bound,
 * not the default's. The settings are marked `judgesRequests` in shared/config/environment.ts;
 * a function reads those its routes' requests are judged by (function-declaration.ts).
 */

declare const JUDGED_BY: unique symbol;

/** A field's schema as its settings build it, typed with the settings' names. */
type SettingBoundField<S extends z.ZodType, K extends RequestSetting> = S & {
  readonly [JUDGED_BY]: K;
};

/** The settings a schema's fields are bounded by: through objects, optionals and nullables. */
type JudgedBy<T> = T extends { readonly [JUDGED_BY]: infer K extends RequestSetting }
  ? K
  : T extends z.ZodObject<infer Shape, z.core.$ZodObjectConfig>
    ? { [F in keyof Shape]-?: JudgedBy<Shape[F]> }[keyof Shape]
    : T extends z.ZodOptional<infer Inner> | z.ZodNullable<infer Inner>
      ? JudgedBy<Inner>
      : never;

/** The settings that judge a request (`{ path, body, … }`, see `RequestSchemas`). */
export type SettingsJudging<R> = { [P in keyof R]-?: JudgedBy<R[P]> }[keyof R];

interface FieldBuilder {
  readonly names: readonly RequestSetting[];
  readonly build: (settings: RequestSettings) => z.ZodType;
}

/** Each bounded field as declared (built with the defaults), and how to build it again. */
const FIELD_BUILDERS = new WeakMap<z.ZodType, FieldBuilder>();

/**
 * A request field whose rule takes these settings. `build` makes the whole field, with its
 * description and its bound as the document says it (`maxLength`, …): what wraps it may only
 * be `.optional()` or `.nullable()`, and it sits in an object. What it returns is the field at
 * the settings' defaults, so a schema no stage built is the default stage's.
 */
export function settingBoundField<const K extends RequestSetting, S extends z.ZodType>(
  names: readonly K[],
  build: (settings: { readonly [N in K]: RequestSettings[N] }) => S,
): SettingBoundField<S, K> {
  const field = build(requestSettingDefaults());
  FIELD_BUILDERS.set(field, { names, build });
  return field as SettingBoundField<S, K>;
}

/**
 * The builder of a bounded field; none for any other schema. A copy of a bounded field
 * (`.describe()`, `.meta()`) would keep the default's bound whatever the stage says, so it is
 * refused.
 */
function builderOf(schema: z.ZodType): FieldBuilder | undefined {
  const builder = FIELD_BUILDERS.get(schema);
  if (builder !== undefined) return builder;
  for (let parent = schema._zod.parent; parent !== undefined; parent = parent._zod.parent) {
    const copied = FIELD_BUILDERS.get(parent as z.ZodType);
    if (copied !== undefined) {
      throw new Error(
        `A field bounded by ${copied.names.join(', ')} was copied: describe it in its builder`,
      );
    }
  }
  return undefined;
}

/** The parts of a request, in the order FastAPI validates them. */
const REQUEST_PARTS = [
  'path',
  'query',
  'header',
  'body',
  'form',
] as const satisfies readonly (keyof RequestSchemas)[];

/** The schemas a schema holds where a bounded field may sit. */
function childrenOf(schema: z.ZodType): readonly z.ZodType[] {
  if (schema instanceof z.ZodObject) return Object.values<z.ZodType>(schema.shape);
  if (schema instanceof z.ZodOptional || schema instanceof z.ZodNullable) {
    return [schema.unwrap() as z.ZodType];
  }
  return [];
}

function namesIn(schema: z.ZodType, found: Set<RequestSetting>): void {
  const builder = builderOf(schema);
  if (builder !== undefined) for (const name of builder.names) found.add(name);
  else for (const child of childrenOf(schema)) namesIn(child, found);
}

/** The settings that judge a request: what its function reads for it. */
export function settingsJudging(request: RequestSchemas): RequestSetting[] {
  const found = new Set<RequestSetting>();
  for (const part of REQUEST_PARTS) {
    const schema = request[part];
    if (schema !== undefined) namesIn(schema, found);
  }
  return [...found];
}

/** The copy keeps the original's metadata (its component id, its description). */
function withMetaOf<S extends z.ZodType>(original: z.ZodType, copy: S): S {
  const meta = z.globalRegistry.get(original);
  if (meta !== undefined) z.globalRegistry.add(copy, meta);
  return copy;
}

/** Settings a handler or a stage was given: those that judge requests among them, maybe. */
type GivenSettings = { readonly [K in RequestSetting]?: Environment[K] };

/** Whether the given settings hold each of `names`: every one a field's builder reads. */
const holdsEvery = (
  settings: GivenSettings,
  names: readonly RequestSetting[],
): settings is RequestSettings => names.every((name) => name in settings);

/**
 * Requests as a stage's settings bound them: each bounded field built from the stage's values,
 * and each object or wrapper that holds one built again around it; a schema that holds none
 * is kept as it is. A schema met twice (an object two routes share) is built once, so the
 * document names one component for it. `settings` may hold more than these settings.
 */
export function requestSchemasFor(settings: GivenSettings) {
  const built = new Map<z.ZodType, z.ZodType>();
  const build = (builder: FieldBuilder): z.ZodType => {
    if (!holdsEvery(settings, builder.names)) {
      const missing = builder.names.filter((name) => !(name in settings));
      throw new Error(`A request is judged by ${missing.join(', ')}, which it was not given`);
    }
    return builder.build(settings);
  };
  const judged = (schema: z.ZodType): z.ZodType => {
    const known = built.get(schema);
    if (known !== undefined) return known;
    const made = rebuilt(schema);
    built.set(schema, made);
    return made;
  };
  const rebuilt = (schema: z.ZodType): z.ZodType => {
    const builder = builderOf(schema);
    if (builder !== undefined) return build(builder);
    if (schema instanceof z.ZodObject) {
      const fields = Object.entries<z.ZodType>(schema.shape);
      const changed = fields.filter(([, field]) => judged(field) !== field);
      if (changed.length === 0) return schema;
      const shape = Object.fromEntries(changed.map(([name, field]) => [name, judged(field)]));
      return withMetaOf(schema, schema.safeExtend(shape));
    }
    if (schema instanceof z.ZodOptional || schema instanceof z.ZodNullable) {
      const inner = schema.unwrap() as z.ZodType;
      const made = judged(inner);
      if (made === inner) return schema;
      return withMetaOf(
        schema,
        schema instanceof z.ZodOptional ? made.optional() : made.nullable(),
      );
    }
    return schema;
  };
  return <R extends RequestSchemas>(request: R): R => {
    const judgedRequest: RequestSchemas = {};
    for (const part of REQUEST_PARTS) {
      const schema = request[part];
      if (schema !== undefined) Object.assign(judgedRequest, { [part]: judged(schema) });
    }
    return judgedRequest as R;
  };
}
