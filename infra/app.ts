/** The CDK app: `npm run synth`, `npm run deploy -- -c stage=development`. */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { App } from 'aws-cdk-lib';
import { samLocalTemplate } from './local/sam/sam-local-template.ts';
import { addServiceStacks } from './service.ts';
import { stageConfigOf } from './stages.ts';

const app = new App();
const stage = stageConfigOf(app);
const { api } = addServiceStacks(app, {
  stage,
  root: resolve(fileURLToPath(import.meta.url), '../..'),
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
});
// The local stage's template is for SAM CLI: what SAM needs is added to it, and to it only.
if (stage.name === 'local') samLocalTemplate(api, stage);
