import { detailAnswer } from './operation.ts';

/** What a deal-file change refuses, for PUT and DELETE alike (see `deal-file-access.ts`). */
export const DEAL_FILE_CHANGE_REFUSALS = {
  403: detailAnswer(
    'You are a viewer of the group',
    'Only editors of this group may change its deal files',
  ),
  404: detailAnswer('You are not in the group, or the deal or file is not in it', 'Not Found'),
  409: detailAnswer(
    'The file kept changing under concurrent edits',
    'The file kept changing while this request ran; try again',
  ),
};
