import { defineFunction } from '#shared/functions/function-declaration.ts';

/** A CloudFormation custom resource's handler (`RealtimeKeys`): it runs at deploy time only. */
export const initRealtimeKeysFunction = defineFunction({
  id: 'InitRealtimeKeys',
  entry: 'functions/init-realtime-keys/handler.ts',
  description: 'Fills the realtime signing-key secret with a first key at deploy time',
  sizing: { memoryMb: 256, timeoutSeconds: 60 },
  alarms: false,
  realtimeKeys: 'read-write',
});
