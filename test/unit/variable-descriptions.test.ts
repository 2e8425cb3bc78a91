/**
 * One description per variable: shared/config/environment.ts says what each variable means
 * and its rule; `npm start -- --help` (infra/local/stage/local-stage-variables.ts) says it in the same
 * words (the docs' tables are rendered from both: test/unit/rendered-files.test.ts), and a
 * stage setting a function reads is its variable's name in camelCase.
 */
import { describe, expect, it } from 'vitest';
import { LOCAL_STAGE_VARIABLES } from '#infra/local/stage/local-stage-variables.ts';
import { STAGE_DEFAULTS, STAGE_NAMES } from '#infra/stages.ts';
import {
  defaultOf,
  describeVariable,
  ENVIRONMENT,
  type EnvironmentName,
  REALTIME_TOKEN_MAX_SECONDS,
} from '#shared/config/environment.ts';
import { MAX_REALTIME_TOKEN_SECONDS } from '#shared/realtime/realtime-config.ts';

const NAMES = Object.keys(ENVIRONMENT) as EnvironmentName[];

/** `realtimeTokenSeconds` → `REALTIME_TOKEN_SECONDS`. */
const variableOf = (setting: string) => setting.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase();
const isVariable = (name: string): name is EnvironmentName => name in ENVIRONMENT;

describe('shared/config/environment.ts describes every variable once', () => {
  it.each(NAMES)('%s has a description', (name) => {
    expect(ENVIRONMENT[name].description).toEqual(expect.stringMatching(/^[A-Z`].{8,}[^.]$/));
  });

  it.each(NAMES)('%s: the description names its upper bound', (name) => {
    const schema = ENVIRONMENT[name];
    const inner = 'unwrap' in schema ? schema.unwrap() : schema;
    // An integer's own bound (zod's `.int()` sets Number.MAX_SAFE_INTEGER) is no rule to name.
    if (
      !('maxValue' in inner) ||
      inner.maxValue === null ||
      !Number.isFinite(inner.maxValue) ||
      inner.maxValue >= Number.MAX_SAFE_INTEGER
    ) {
      return;
    }
    expect(describeVariable(name)).toContain(inner.maxValue.toLocaleString('en-US'));
  });

  it('writes the realtime tokens’ longest life once: the domain’s limit is the variable’s', () => {
    expect(ENVIRONMENT.REALTIME_TOKEN_SECONDS.unwrap().maxValue).toBe(REALTIME_TOKEN_MAX_SECONDS);
    // shared/realtime may not import configuration, nor configuration the domain.
    expect(MAX_REALTIME_TOKEN_SECONDS).toBe(REALTIME_TOKEN_MAX_SECONDS);
  });
});

describe('what is derived from it', () => {
  it('npm start -- --help takes a function variable’s description from the schema', () => {
    for (const variable of LOCAL_STAGE_VARIABLES) {
      if (isVariable(variable.name)) {
        expect(variable.meaning).toBe(describeVariable(variable.name));
      }
    }
  });

  it.each(STAGE_NAMES)(
    'the %s stage starts a setting a function reads from its variable’s default',
    (stage) => {
      for (const [setting, value] of Object.entries(STAGE_DEFAULTS[stage])) {
        const name = variableOf(setting);
        if (isVariable(name))
          expect({ setting, value: String(value) }).toEqual({ setting, value: defaultOf(name) });
      }
    },
  );
});
