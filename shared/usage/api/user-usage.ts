import * as z from 'zod';
import type { UsageReport } from '../user-usage.ts';

const amount = (unit: string) =>
  z
    .object({
      used: z.int().describe(`${unit} your files hold`),
      reserved: z
        .int()
        .describe(`${unit} your pending direct uploads hold (each at its declared size)`),
      allowed: z.int().describe(`Your limit: used and reserved together stay within it`),
    })
    .meta({ id: `Usage${unit}` });

/** 200 from GET /api/v1/user/me/usage (extension). */
export const UserUsageSchema = z
  .object({
    files: amount('Files'),
    bytes: amount('Bytes'),
  })
  .meta({ id: 'UserUsage' });

export type UserUsageBody = z.output<typeof UserUsageSchema>;

export const toUserUsageBody = ({ usage, limits }: UsageReport): UserUsageBody => ({
  files: { used: usage.used.files, reserved: usage.reserved.files, allowed: limits.files },
  bytes: { used: usage.used.bytes, reserved: usage.reserved.bytes, allowed: limits.bytes },
});
