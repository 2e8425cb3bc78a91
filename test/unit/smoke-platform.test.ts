import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FilterRuleName } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { verifySigV4 } from '#infra/local/sigv4-check.ts';
import { getMalwareProtectionPlan } from '#infra/smoke/malware-protection-plan.ts';
import {
  judgeBucketNotifications,
  judgeMalwareProtectionPlan,
} from '#infra/smoke/smoke-platform.ts';

/**
 * The judgements of the smoke check's steps that only AWS answers, given AWS's answers as data
 * (the shapes the SDK parses them into); the e2e test runs the steps on the local stage, where
 * they are skipped.
 */
const FINALIZER = 'FileService-development-ap-UploadFinalizerFinalizeDi-AbC123';
/** S3 answers the rule's name capitalized (CDK's notifications handler compares it so). */
const PREFIX = 'Prefix' as string as FilterRuleName;
const finalizerNotification = (prefix = 'uploads/') => ({
  Id: 'NzQ5',
  LambdaFunctionArn: `arn:aws:lambda:eu-west-1:123456789012:function:${FINALIZER}`,
  Events: ['s3:ObjectCreated:*' as const],
  Filter: { Key: { FilterRules: [{ Name: PREFIX, Value: prefix }] } },
});
const expected = { finalizer: FINALIZER, scanning: true };

describe('bucket notifications: GuardDuty, finalizer', () => {
  it('passes with GuardDuty’s EventBridge setting and the finalizer’s notification', () => {
    const both = {
      LambdaFunctionConfigurations: [finalizerNotification()],
      EventBridgeConfiguration: {},
    };
    expect(judgeBucketNotifications(both, expected)).toBe(
      `EventBridge on; s3:ObjectCreated:* under uploads/ invokes ${FINALIZER}`,
    );
    // A stage that does not scan needs no EventBridge.
    const finalizerOnly = { LambdaFunctionConfigurations: [finalizerNotification()] };
    expect(judgeBucketNotifications(finalizerOnly, { ...expected, scanning: false })).toBe(
      `EventBridge off (the stage does not scan); s3:ObjectCreated:* under uploads/ invokes ${FINALIZER}`,
    );
  });

  it('fails naming what a deploy wrote over: GuardDuty’s setting, the finalizer’s, or both', () => {
    expect(() =>
      judgeBucketNotifications(
        { LambdaFunctionConfigurations: [finalizerNotification()] },
        expected,
      ),
    ).toThrow("no EventBridgeConfiguration: GuardDuty's plan hears no new object");
    expect(() => judgeBucketNotifications({ EventBridgeConfiguration: {} }, expected)).toThrow(
      `no notification invokes the finalizer ${FINALIZER}`,
    );
    expect(() => judgeBucketNotifications({}, expected)).toThrow(
      `no notification invokes the finalizer ${FINALIZER}; no EventBridgeConfiguration: GuardDuty's plan hears no new object`,
    );
    expect(() =>
      judgeBucketNotifications(
        {
          LambdaFunctionConfigurations: [finalizerNotification('users/')],
          EventBridgeConfiguration: {},
        },
        expected,
      ),
    ).toThrow(
      `the finalizer's notification is s3:ObjectCreated:* under "users/", not s3:ObjectCreated:* under uploads/`,
    );
  });
});

describe('malware protection plan: ACTIVE', () => {
  it('passes an ACTIVE plan and fails any other, with GuardDuty’s reasons', () => {
    const stack = 'FileService-development';
    expect(judgeMalwareProtectionPlan({ id: 'a1b2', status: 'ACTIVE' }, stack)).toBe(
      'plan a1b2: ACTIVE',
    );
    const warning = {
      id: 'a1b2',
      status: 'WARNING',
      statusReasons: [{ code: 'AccessDenied', message: 'The role cannot read the bucket' }],
    };
    expect(() => judgeMalwareProtectionPlan(warning, stack)).toThrow(
      'plan a1b2 is WARNING (AccessDenied The role cannot read the bucket), expected ACTIVE: GuardDuty scans nothing meanwhile',
    );
    expect(() => judgeMalwareProtectionPlan(undefined, stack)).toThrow(
      'stack FileService-development holds no malware protection plan, yet the stage scans',
    );
  });

  it('reads the plan from GuardDuty’s API, signed for guardduty in the region', async () => {
    const credentials = { accessKeyId: 'AKIDSMOKE', secretAccessKey: 'smoke' };
    const seen: { path?: string; signature?: unknown } = {};
    const guardDuty = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        void (async () => {
          seen.path = request.url;
          seen.signature = await verifySigV4(
            {
              method: request.method ?? '',
              url: request.url ?? '',
              headers: request.headers,
              body: Buffer.concat(chunks),
            },
            { credentials, region: 'eu-west-1', service: 'guardduty' },
          );
          const known = request.url === '/malware-protection-plan/a1b2';
          response.writeHead(known ? 200 : 404, { 'content-type': 'application/json' });
          response.end(
            known
              ? '{"arn":"arn:aws:guardduty:eu-west-1:123456789012:malware-protection-plan/a1b2","status":"ACTIVE","statusReasons":[]}'
              : '{"message":"The request is rejected because the resource was not found."}',
          );
        })();
      });
    });
    await new Promise<void>((resolve) => guardDuty.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = guardDuty.address() as AddressInfo;
      const signing = {
        region: 'eu-west-1',
        credentials,
        endpoint: `http://127.0.0.1:${String(port)}`,
      };
      expect(await getMalwareProtectionPlan('a1b2', signing)).toEqual({
        id: 'a1b2',
        status: 'ACTIVE',
        statusReasons: [],
      });
      expect(seen).toEqual({
        path: '/malware-protection-plan/a1b2',
        signature: { payloadHash: expect.stringMatching(/^[0-9a-f]{64}$/) as unknown },
      });
      await expect(getMalwareProtectionPlan('gone', signing)).rejects.toThrow(
        'GuardDuty GetMalwareProtectionPlan gone: 404 {"message":"The request is rejected because the resource was not found."}',
      );
    } finally {
      await new Promise((resolve) => guardDuty.close(resolve));
    }
  });
});
