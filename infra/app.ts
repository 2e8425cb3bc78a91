/** The CDK app: `npm run synth`, `npm run deploy -- -c stage=development`. */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { App } from 'aws-cdk-lib';
import { addServiceStacks } from './service.ts';
import { stageConfig } from './stages.ts';

const app = new App();
addServiceStacks(app, {
  stage: stageConfig((key) => app.node.tryGetContext(key)),
  root: resolve(fileURLToPath(import.meta.url), '../..'),
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
});
