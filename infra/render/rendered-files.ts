/**
 * Every generated table and file, and how it is made: `npm run render` writes them, and
 * test/unit/rendered-files.test.ts fails while one on disk differs from its rendering. In a
 * Markdown page only the regions marked `<!-- rendered: <name> -->` … `<!-- /rendered -->` are
 * generated; the page is then formatted as Prettier formats it, so the tables come out padded.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as prettier from 'prettier';
import { API_ROUTES } from '#functions/service-functions.ts';
import { buildOpenApiDocument } from '#shared/openapi/openapi-document.ts';
import { requestSettingDefaults } from '#shared/config/environment.ts';
import { typesOf } from '../../examples/typescript/generate-types.ts';
import { REPOSITORY_ROOT } from '../local/stage/data-folder.ts';
import { endpointTable } from './endpoint-table.ts';
import { grantTable } from './grant-table.ts';
import { operatorCommandsTable } from './operator-commands.ts';
import { stageCostTable } from './stage-cost.ts';
import {
  functionVariablesTable,
  localStageVariablesTable,
  variableSettingsTable,
} from './variable-tables.ts';

/** A generated file: a page's marked regions by name, or the whole file. */
type Rendering =
  | { readonly file: string; readonly regions: Readonly<Record<string, () => string>> }
  | { readonly file: string; readonly whole: () => Promise<string> };

const RENDERINGS: readonly Rendering[] = [
  { file: 'README.md', regions: { endpoints: endpointTable } },
  { file: 'docs/architecture.md', regions: { 'function-variables': functionVariablesTable } },
  { file: 'docs/local-stage.md', regions: { 'local-stage-variables': localStageVariablesTable } },
  { file: 'docs/operator-cli.md', regions: { commands: operatorCommandsTable } },
  {
    file: 'docs/deploying.md',
    regions: {
      'variable-settings': variableSettingsTable,
      'grant-table': grantTable,
      'stage-cost': stageCostTable,
    },
  },
  {
    file: 'examples/typescript/file-service.d.ts',
    // As `npm run openapi` writes the document (at the settings' defaults), and the
    // generator reads it.
    whole: () =>
      typesOf(
        JSON.parse(
          JSON.stringify(buildOpenApiDocument(API_ROUTES, requestSettingDefaults())),
        ) as Record<string, unknown>,
      ),
  },
];

const REGION = /(<!-- rendered: ([a-z-]+) -->\n)[\s\S]*?(\n<!-- \/rendered -->)/g;

/** The page with each marked region made again; a region it marks and nothing renders fails. */
function renderRegions(
  file: string,
  text: string,
  regions: Readonly<Record<string, () => string>>,
): string {
  const seen = new Set<string>();
  const rendered = text.replace(REGION, (_match, open: string, name: string, close: string) => {
    const render = regions[name];
    if (render === undefined) throw new Error(`${file} marks a region "${name}" nothing renders`);
    seen.add(name);
    return `${open}\n${render()}\n${close}`;
  });
  const missing = Object.keys(regions).filter((name) => !seen.has(name));
  if (missing.length > 0) {
    throw new Error(`${file} has no <!-- rendered: ${missing.join(' -->, <!-- rendered: ')} -->`);
  }
  return rendered;
}

/** One file as it is on disk and as it should be. */
interface RenderedFile {
  readonly file: string;
  readonly current: string;
  readonly rendered: string;
}

/** Every generated file, rendered in memory beside what the repository holds. */
export async function renderAll(root = REPOSITORY_ROOT): Promise<RenderedFile[]> {
  return Promise.all(
    RENDERINGS.map(async (rendering) => {
      const path = join(root, rendering.file);
      const current = await readFile(path, 'utf8');
      if ('whole' in rendering)
        return { file: rendering.file, current, rendered: await rendering.whole() };
      const text = renderRegions(rendering.file, current, rendering.regions);
      const options = await prettier.resolveConfig(path);
      const rendered = await prettier.format(text, { ...options, filepath: path });
      return { file: rendering.file, current, rendered };
    }),
  );
}
