import { GetSecretValueCommand, type SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { KeySource } from '#ports/key-source.ts';

/** Reads the admin key from Secrets Manager, cached per container so a rotation lands within `ttlMs`. */
export class SecretsManagerKeySource implements KeySource {
  private cached?: { at: number; value: string };

  constructor(
    private readonly client: SecretsManagerClient,
    private readonly secretId: string,
    private readonly ttlMs = 300_000,
    private readonly now: () => number = Date.now,
  ) {}

  async adminKey(): Promise<string> {
    if (this.cached && this.now() - this.cached.at < this.ttlMs) return this.cached.value;
    const out = await this.client.send(new GetSecretValueCommand({ SecretId: this.secretId }));
    const value = out.SecretString ?? '';
    this.cached = { at: this.now(), value };
    return value;
  }
}

export class StaticKeySource implements KeySource {
  constructor(private readonly key: string) {}
  async adminKey(): Promise<string> {
    return this.key;
  }
}
