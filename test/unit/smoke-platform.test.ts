import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GuardDutyClient } from '@aws-sdk/client-guardduty';
import type { FilterRuleName } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
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
    expect(judgeMalwareProtectionPlan({ id: 'a1b2', Status: 'ACTIVE' }, stack)).toBe(
      'plan a1b2: ACTIVE',
    );
    const error = {
      id: 'a1b2',
      Status: 'ERROR' as const,
      StatusReasons: [{ Code: 'AccessDenied', Message: 'The role cannot read the bucket' }],
    };
    expect(() => judgeMalwareProtectionPlan(error, stack)).toThrow(
      'plan a1b2 is ERROR (AccessDenied The role cannot read the bucket), expected ACTIVE: GuardDuty scans nothing meanwhile',
    );
    expect(() => judgeMalwareProtectionPlan({ id: 'a1b2' }, stack)).toThrow(
      'plan a1b2 is without a status, expected ACTIVE: GuardDuty scans nothing meanwhile',
    );
    expect(() => judgeMalwareProtectionPlan(undefined, stack)).toThrow(
      'stack FileService-development holds no malware protection plan, yet the stage scans',
    );
  });

  it('reads the plan’s status from GuardDuty’s REST API, and names the plan it cannot read', async () => {
    // GuardDuty's wire format (REST JSON), which the SDK parses into what the judgement reads.
    const guardDuty = createServer((request, response) => {
      request.resume();
      if (request.method === 'GET' && request.url === '/malware-protection-plan/a1b2') {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(
          '{"arn":"arn:aws:guardduty:eu-west-1:123456789012:malware-protection-plan/a1b2","status":"WARNING","statusReasons":[{"code":"AccessDenied","message":"The role cannot read the bucket"}]}',
        );
        return;
      }
      response.writeHead(404, {
        'content-type': 'application/json',
        'x-amzn-errortype': 'ResourceNotFoundException',
      });
      response.end('{"message":"The request is rejected because the resource was not found."}');
    });
    await new Promise<void>((resolve) => guardDuty.listen(0, '127.0.0.1', resolve));
    const client = new GuardDutyClient({
      region: 'eu-west-1',
      credentials: { accessKeyId: 'AKIDSMOKE', secretAccessKey: 'smoke' },
      endpoint: `http://127.0.0.1:${String((guardDuty.address() as AddressInfo).port)}`,
    });
    try {
      const plan = await getMalwareProtectionPlan(client, 'a1b2');
      expect(() => judgeMalwareProtectionPlan(plan, 'FileService-development')).toThrow(
        'plan a1b2 is WARNING (AccessDenied The role cannot read the bucket), expected ACTIVE: GuardDuty scans nothing meanwhile',
      );
      await expect(getMalwareProtectionPlan(client, 'gone')).rejects.toThrow(
        'GuardDuty GetMalwareProtectionPlan gone: ResourceNotFoundException The request is rejected because the resource was not found.',
      );
    } finally {
      client.destroy();
      await new Promise((resolve) => guardDuty.close(resolve));
    }
  });
});
