import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { REPOSITORY_ROOT } from '#infra/local/stage/data-folder.ts';
import { samLocalTemplate } from '#infra/local/sam/sam-local-template.ts';
import { addServiceStacks } from '#infra/service.ts';
import { stageConfigOf } from '#infra/stages.ts';

/** cdk.json's context: the feature flags and any per-stage settings the CLI would read. */
const CDK_CONTEXT = (
  JSON.parse(readFileSync(resolve(REPOSITORY_ROOT, 'cdk.json'), 'utf8')) as {
    context: Record<string, unknown>;
  }
).context;

export interface SynthesizedStage {
  readonly data: Template;
  readonly api: Template;
}

/**
 * Stages already synthesized in this worker, by their context: the infra files share one
 * module graph, and a synth of every function takes seconds of CPU. Templates are read only.
 */
const synthesized = new Map<string, SynthesizedStage>();

/**
 * One stage as `cdk synth -c stage=… -c key=value` builds it, cdk-nag included (a finding
 * nobody acknowledged throws). Functions are not bundled: `npm run synth` does that.
 */
export function synthStage(context: Record<string, unknown>): SynthesizedStage {
  const key = JSON.stringify(context);
  const found = synthesized.get(key);
  if (found !== undefined) return found;
  const made = synthStageAfresh(context);
  synthesized.set(key, made);
  return made;
}

function synthStageAfresh(context: Record<string, unknown>): SynthesizedStage {
  // An App without an outdir leaves a cdk.out* folder in the temp dir on every synth.
  const outdir = mkdtempSync(join(tmpdir(), 'cdk-test-'));
  try {
    const app = new App({
      outdir,
      context: { ...CDK_CONTEXT, 'aws:cdk:bundling-stacks': [], ...context },
    });
    const stage = stageConfigOf(app);
    const stacks = addServiceStacks(app, { stage, root: REPOSITORY_ROOT });
    if (stage.name === 'local') samLocalTemplate(stacks.api, stage);
    app.synth();
    return { data: Template.fromStack(stacks.data), api: Template.fromStack(stacks.api) };
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}
