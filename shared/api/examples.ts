import type * as z from 'zod';
import type { DealFileSchema } from '../schemas/deal-file.ts';
import type { UserFileSchema } from '../schemas/user-file.ts';

/** The files the reference's examples show, one of each kind. */
export const USER_FILE_EXAMPLE: z.output<typeof UserFileSchema> = {
  name: 'Q3 deck.pdf',
  id: 42,
  user_id: 7,
  type: 'deck',
  created_at: '2026-06-01T09:30:00.000Z',
  updated_at: null,
  is_archived: false,
  filesize: 482133,
  location: 'users/7/files/42',
};

export const DEAL_FILE_EXAMPLE: z.output<typeof DealFileSchema> = {
  name: 'Term sheet.pdf',
  id: 6,
  deal_id: 3,
  type: 'financials',
  created_at: '2026-06-01T09:30:00.000Z',
  updated_at: '2026-06-02T14:05:00.000Z',
  is_archived: false,
};
