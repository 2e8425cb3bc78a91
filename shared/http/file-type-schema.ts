import * as z from 'zod';
import { FILE_TYPES } from '../domain/file-type.ts';

export const FileTypeSchema = z.enum(FILE_TYPES).meta({ id: 'FileType' });
