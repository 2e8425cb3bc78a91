/**
 * The docs' tables of variables and settings, from the configuration schema
 * (shared/config/environment.ts), the functions list and the local stage's own variables.
 */
import { SERVICE_FUNCTIONS } from '#functions/service-functions.ts';
import { LOCAL_STAGE_VARIABLES } from '#infra/local/stage/local-stage-variables.ts';
import { STAGE_DEFAULTS, STAGE_NAMES } from '#infra/stages.ts';
import {
  defaultOf,
  describeVariable,
  type EnvironmentName,
  ENVIRONMENT,
  SETTING_VARIABLES,
  settingName,
} from '#shared/config/environment.ts';
import type { FunctionDeclaration } from '#shared/functions/function-declaration.ts';
import { code, markdownTable } from './markdown.ts';

const NAMES = Object.keys(ENVIRONMENT) as EnvironmentName[];

/** A default as the tables write it: a value in code, words (`none`, a description) as they are. */
const shownDefault = (value: string) =>
  value === 'none' || value.includes(' ') ? value : code(value);

/** Who reads a variable: the functions, or how many when they are most of the list. */
function readers(name: EnvironmentName): string {
  const all: readonly FunctionDeclaration[] = SERVICE_FUNCTIONS;
  const reading = all.filter((fn) => (fn.variables as readonly string[]).includes(name));
  if (reading.length <= 5) return reading.map((fn) => fn.id).join(', ');
  const others = all.filter((fn) => !reading.includes(fn));
  return others.length <= 5
    ? `every function but ${others.map((fn) => fn.id).join(', ')}`
    : `${String(reading.length)} functions`;
}

/** docs/architecture.md, "Configuration": every variable a function reads. */
export const functionVariablesTable = (): string =>
  markdownTable(
    ['Variable', 'Meaning and rule', 'Default', 'Read by'],
    NAMES.map((name) => [
      code(name),
      describeVariable(name),
      defaultOf(name) === undefined ? 'required' : code(defaultOf(name) ?? ''),
      readers(name),
    ]),
  );

/** docs/local-stage.md, "Variables": what `npm start` reads, as its `--help` lists it. */
export const localStageVariablesTable = (): string =>
  markdownTable(
    ['Variable', 'Default', 'Meaning'],
    LOCAL_STAGE_VARIABLES.map((v) => [code(v.name), shownDefault(v.default), v.meaning]),
  );

/** docs/deploying.md, "Stage settings": the settings the functions read, by stage. */
export const variableSettingsTable = (): string =>
  markdownTable(
    ['Setting', 'Variable', 'What it sets', ...STAGE_NAMES],
    SETTING_VARIABLES.map((name) => [
      code(settingName(name)),
      code(name),
      describeVariable(name),
      ...STAGE_NAMES.map((stage) => code(String(STAGE_DEFAULTS[stage][settingName(name)]))),
    ]),
  );
