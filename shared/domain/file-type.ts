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

export type FileType = (typeof FILE_TYPES)[number];
