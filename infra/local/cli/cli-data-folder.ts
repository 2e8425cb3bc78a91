import { AmbiguousDataFolder, chooseDataFolder, stageHome } from '../stage/data-folder.ts';

/**
 * The data folder a CLI works on: LOCAL_DATA_DIR's, else the running `npm start`'s, else
 * .data/'s, said on stderr under the CLI's name. More than one running stage is the CLI's
 * usage error (`fail`).
 */
export async function cliDataFolder(
  program: string,
  fail: (message: string) => never,
): Promise<string> {
  const choice = await chooseDataFolder(process.env, stageHome(process.env)).catch(
    (error: unknown) => {
      if (error instanceof AmbiguousDataFolder) fail(error.message);
      throw error;
    },
  );
  if (choice.notice !== undefined) process.stderr.write(`${program}: ${choice.notice}\n`);
  return choice.dataDir;
}
