import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { sha256Hex, type SealedEntry } from '../trail-digest.ts';
import type { FoundEntry } from '../trail-hashes.ts';
import {
  accessEntryPut,
  fromAccessEntryItem,
  TRAIL_EXPIRY_ATTRIBUTE,
  TRAIL_INDEXES,
  TRAIL_KEY,
} from './access-entry-item.ts';

/**
 * An entry's item as a digest seals it: its keys, and the SHA-256 of its canonical JSON. The
 * item is read as DynamoDB's API writes it, each value typed (`{"S": "…"}`, `{"N": "12"}`),
 * so a number is its digits as stored and a string never passes for one. The canonical form
 * is RFC 8785's (JCS) for these values: object keys sorted by UTF-16 code units, no spaces,
 * strings escaped as JSON.stringify does; a set's members sorted, bytes in base64. The expiry
 * (`expiration`, the TTL) is left out.
 */

type Item = Readonly<Record<string, AttributeValue>>;
type Json = string | boolean | readonly Json[] | { readonly [name: string]: Json };

const base64 = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64');

/** A typed value as plain JSON: DynamoDB's own JSON for it, sets in one order. */
function jsonOf(value: AttributeValue): Json {
  if (value.B !== undefined) return { B: base64(value.B) };
  if (value.BS !== undefined) return { BS: value.BS.map(base64).sort() };
  if (value.SS !== undefined) return { SS: [...value.SS].sort() };
  if (value.NS !== undefined) return { NS: [...value.NS].sort() };
  if (value.M !== undefined) return { M: mapOf(value.M) };
  if (value.L !== undefined) return { L: value.L.map(jsonOf) };
  if (value.S !== undefined) return { S: value.S };
  if (value.N !== undefined) return { N: value.N };
  if (value.BOOL !== undefined) return { BOOL: value.BOOL };
  return { NULL: true };
}

const mapOf = (item: Item): Record<string, Json> =>
  Object.fromEntries(Object.entries(item).map(([name, value]) => [name, jsonOf(value)]));

/** JSON with every object's keys sorted: one text for one value, whatever order it came in. */
export function canonicalJson(value: Json): string {
  if (typeof value === 'string' || typeof value === 'boolean') return JSON.stringify(value);
  if (isList(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const names = Object.keys(value).sort();
  return `{${names.map((name) => `${JSON.stringify(name)}:${canonicalJson(value[name] ?? '')}`).join(',')}}`;
}
const isList = (value: Json): value is readonly Json[] => Array.isArray(value);

/** The entry an item holds, as a digest seals it. */
export function sealedEntryOf(item: Item): SealedEntry {
  const { [TRAIL_EXPIRY_ATTRIBUTE]: _expiry, ...hashed } = item;
  return {
    scope: item[TRAIL_KEY.partition]?.S ?? '',
    entry: item[TRAIL_KEY.sort]?.S ?? '',
    sha256: sha256Hex(canonicalJson(mapOf(hashed))),
  };
}

/**
 * The entry an item holds, and whether the trail's writers made it: its fields are an entry's
 * and its keys (its scope, its entry key, its `ByTime` shard, its `ByFile` file) the ones the
 * item module makes of them. An item that is not cannot have been written by them: something
 * else put it there, perhaps where no index finds it.
 */
export function foundEntryOf(item: Item): FoundEntry {
  return { ...sealedEntryOf(item), asWritten: keysAsWritten(item) };
}

const KEY_ATTRIBUTES = [
  TRAIL_KEY.partition,
  TRAIL_KEY.sort,
  TRAIL_INDEXES.ByTime.partition,
  TRAIL_INDEXES.ByFile.partition,
] as const;

function keysAsWritten(item: Item): boolean {
  let stored: Record<string, unknown>;
  try {
    stored = unmarshall({ ...item });
    const written: Record<string, unknown> = accessEntryPut(
      { tableName: '', retentionDays: 0 },
      fromAccessEntryItem(stored),
    ).Put.Item;
    return KEY_ATTRIBUTES.every((name) => written[name] === stored[name]);
  } catch {
    return false;
  }
}
