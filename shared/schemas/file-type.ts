import { z } from 'zod';

/** The contract's file categories, in the order its 422 messages list them. */
export const FILE_TYPES = [
  'deck',
  'financials',
  'raw_data',
  'snapshot',
  'full',
  'mini',
  'nano',
  'other',
] as const;

export const FileTypeSchema = z.enum(FILE_TYPES).meta({ id: 'FileType' });
export type FileType = z.infer<typeof FileTypeSchema>;

export const isFileType = (value: unknown): value is FileType =>
  FILE_TYPES.includes(value as FileType);
