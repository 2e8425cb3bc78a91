import { SecretsProvider } from '@aws-lambda-powertools/parameters/secrets';
import { PutSecretValueCommand, type SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { parseKeySet, type RealtimeKeySet, withNewKey } from '../realtime-key-set.ts';
import type { RealtimeKeyStore } from '../realtime-key-store.ts';
import type { AdapterSources } from '../../storage/adapter-sources.ts';

/**
 * A deployed stage's keys: one Secrets Manager secret, which the stack fills at deploy time.
 * Read once per container and again after `maxAgeSeconds`, so a rotation reaches running
 * containers within that time; rotations activate new keys later than that (see the CLI).
 */
export class SecretsManagerKeyStore implements RealtimeKeyStore {
  private readonly secretId: string;
  private readonly maxAgeSeconds: number;
  private readonly client: SecretsManagerClient;
  private readonly provider: SecretsProvider;

  constructor(
    secretId: string,
    options: { readonly client: SecretsManagerClient; readonly maxAgeSeconds?: number },
  ) {
    this.secretId = secretId;
    this.maxAgeSeconds = options.maxAgeSeconds ?? 300;
    this.client = options.client;
    this.provider = new SecretsProvider({ awsSdkV3Client: this.client });
  }

  async load(): Promise<RealtimeKeySet> {
    const text = await this.provider.get(this.secretId, { maxAge: this.maxAgeSeconds });
    const set = typeof text === 'string' ? parseKeySet(text) : undefined;
    if (set === undefined) throw new Error(`Secret ${this.secretId} holds no realtime key set`);
    return set;
  }

  /**
   * The key set, made with one key if the secret still holds the random placeholder
   * CloudFormation created it with: what the stack's deploy-time custom resource calls. Any
   * JSON that is not a key set fails the deploy rather than be replaced: it may be keys.
   */
  async ensure(): Promise<RealtimeKeySet> {
    const text = await this.provider.get(this.secretId, { forceFetch: true });
    const found = typeof text === 'string' ? parseKeySet(text) : undefined;
    if (found !== undefined) return found;
    if (typeof text === 'string' && isJson(text)) {
      throw new Error(`Secret ${this.secretId} holds JSON that is not a realtime key set`);
    }
    const set = await withNewKey({ keys: [] }, new Date(), {
      activateInSeconds: 0,
      tokenSeconds: 0,
    });
    await this.save(set);
    return set;
  }

  async save(set: RealtimeKeySet): Promise<void> {
    await this.client.send(
      new PutSecretValueCommand({ SecretId: this.secretId, SecretString: JSON.stringify(set) }),
    );
    this.provider.clearCache();
  }
}

const isJson = (text: string): boolean => {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
};

/** The realtime signing keys, in their secret. */
export const realtimeKeys = ({
  secretsManager,
  REALTIME_KEYS_SECRET_ARN,
}: Pick<AdapterSources, 'secretsManager' | 'REALTIME_KEYS_SECRET_ARN'>) =>
  new SecretsManagerKeyStore(REALTIME_KEYS_SECRET_ARN, { client: secretsManager() });
