import { defineFunction } from '#shared/functions/function-declaration.ts';

/**
 * EventBridge invokes it for each of GuardDuty's scan results on the files bucket
 * (`MalwareScanVerdicts`); the events it still fails on, such as a verdict whose file is not
 * recorded yet after Lambda's two retries, go to the scan-event failures queue.
 */
export const recordScanVerdictFunction = defineFunction({
  id: 'RecordScanVerdict',
  entry: 'functions/record-scan-verdict/handler.ts',
  description: "Records GuardDuty's malware-scan verdict on the file its object backs",
  sizing: { memoryMb: 256, timeoutSeconds: 30 },
  table: [
    {
      items: ['UpdateItem'],
      in: 'users',
      why: "a user file's verdict, only newer than the one it holds",
    },
    {
      items: ['UpdateItem'],
      in: 'groups',
      why: "a deal file's verdict, only newer than the one it holds",
    },
  ],
  // With no record, a listing tells a file not recorded yet from one deleted meanwhile.
  bucket: [{ missingObjectsAsNotFound: true }],
});
