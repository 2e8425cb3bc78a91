/**
 * Calls each route of the file service once through FileServiceClient, and prints a line for
 * each:
 *
 *   node demo.ts BASE_URL TOKEN [FILE ...] [--deal-file GROUP/DEAL/FILE] [--room ROOM_ID]
 *
 * BASE_URL and TOKEN may come from FILE_SERVICE_URL and FILE_SERVICE_TOKEN instead.
 */
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import {
  FileServiceClient,
  FileServiceError,
  MULTIPART_LIMIT,
  QuotaExceededError,
  sha256Of,
} from './file-service-client.ts';

const USAGE =
  'usage: node demo.ts BASE_URL TOKEN [FILE ...] [--deal-file GROUP/DEAL/FILE] [--room ROOM_ID]';

async function demo(args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { 'deal-file': { type: 'string' }, room: { type: 'string', multiple: true } },
  });
  const [baseUrl = process.env.FILE_SERVICE_URL, token = process.env.FILE_SERVICE_TOKEN, ...files] =
    positionals;
  if (baseUrl === undefined || token === undefined) throw new Error(USAGE);
  const client = new FileServiceClient(baseUrl, token);

  const sources = files.length > 0 ? files : [new TextEncoder().encode('Q3 deck, version 1\n')];
  const uploaded = [];
  for (const source of sources) {
    const bytes = typeof source === 'string' ? new Uint8Array(await readFile(source)) : source;
    const path = bytes.length <= MULTIPART_LIMIT ? 'multipart' : 'direct';
    const file = await client.upload(source, { type: 'deck' });
    uploaded.push({ file, bytes });
    console.log(
      `upload: ${file.name} is file ${String(file.id)}, ${String(file.filesize)} bytes (${path})`,
    );
  }
  console.log(`list: ${String((await client.listFiles()).length)} files`);
  const usage = await client.usage();
  const held = ({ used, reserved, allowed }: typeof usage.files) =>
    `${String(used)} used, ${String(reserved)} reserved, ${String(allowed)} allowed`;
  console.log(`usage: files ${held(usage.files)}; bytes ${held(usage.bytes)}`);
  for (const { file, bytes } of uploaded) {
    // The client checks the copy against the SHA-256 the service recorded, and throws if not.
    const copy = await client.download(file.id);
    const same = Buffer.from(copy).equals(bytes) ? 'the same bytes' : 'OTHER BYTES';
    console.log(`download: file ${String(file.id)}, ${same}, SHA-256 ${sha256Of(copy)}`);
  }
  const accepted = await client.notify(
    uploaded.map(({ file }) => file.id),
    { fund_name: 'Example Fund' },
  );
  console.log(`notify: ${accepted.status}, ${String(accepted.file_count)} files`);
  const dealFile = values['deal-file'];
  if (dealFile !== undefined) {
    const [group_id, deal_id, file_id] = dealFile.split('/').map(Number);
    if (group_id === undefined || deal_id === undefined || file_id === undefined) {
      throw new Error(`--deal-file GROUP/DEAL/FILE, not ${dealFile}`);
    }
    const updated = await client.updateDealFile({ group_id, deal_id, file_id }, 'financials');
    console.log(
      `update deal file: file ${String(updated.id)} of deal ${String(updated.deal_id)} is ${String(updated.type)}`,
    );
  }
  const rooms = values.room ?? [];
  const realtime = await client.realtimeToken(rooms);
  console.log(
    `realtime token: ${String(rooms.length)} rooms, ${String(realtime.length)} characters`,
  );
}

try {
  await demo(process.argv.slice(2));
} catch (error) {
  if (error instanceof QuotaExceededError) console.error(`over quota: ${error.detail}`);
  else if (error instanceof FileServiceError) console.error(`refused: ${error.message}`);
  else console.error(String(error));
  process.exitCode = 1;
}
