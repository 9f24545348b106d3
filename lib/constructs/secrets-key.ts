import { RemovalPolicy } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import { Construct } from 'constructs';
import { SECRETS_PURPOSE } from '../../lambdas/adapters/kms-secret-cipher.ts';
import type { EnvironmentValues } from './environment.ts';

export interface SigningSecretsKeyProps {
  /** @default RemovalPolicy.RETAIN: without the key, every stored signing secret is lost */
  readonly removalPolicy?: RemovalPolicy;
}

/**
 * The customer-managed KMS key (rotation on) that envelope-encrypts subscriptions' signing
 * secrets (lambdas/adapters/kms-secret-cipher.ts). The key policy is CDK's default (the
 * account administers the key through IAM); the functions' own policies split its use: the
 * sender may only decrypt (it signs); the api generates data keys (it seals at creation and
 * rotation) and decrypts (a rotation keeps the old secret beside the new one, and the owner may
 * read the current secrets), each only under Hookline's encryption context. No other function may use it.
 */
export class SigningSecretsKey extends Construct {
  readonly key: kms.Key;

  constructor(scope: Construct, id: string, props: SigningSecretsKeyProps = {}) {
    super(scope, id);
    this.key = new kms.Key(this, 'Key', {
      description: 'Hookline subscription signing secrets (envelope encryption)',
      enableKeyRotation: true,
      removalPolicy: props.removalPolicy ?? RemovalPolicy.RETAIN,
    });
  }

  /** The key for the functions that seal (api) and open (sender); the variables say which it may do. */
  environmentValues(): EnvironmentValues {
    return { HOOKLINE_SECRETS_SEAL_KEY_ID: this.key.keyArn, HOOKLINE_SECRETS_OPEN_KEY_ID: this.key.keyArn };
  }

  /** May seal new secrets: kms:GenerateDataKey, nothing that decrypts. */
  grantSeal(grantee: iam.IGrantable): void {
    this.allow(grantee, 'kms:GenerateDataKey');
  }

  /** May open secrets to sign: kms:Decrypt, nothing that creates data keys. */
  grantOpen(grantee: iam.IGrantable): void {
    this.allow(grantee, 'kms:Decrypt');
  }

  private allow(grantee: iam.IGrantable, action: string): void {
    grantee.grantPrincipal.addToPrincipalPolicy(
      new iam.PolicyStatement({
        actions: [action],
        resources: [this.key.keyArn],
        // Only for subscription secrets: the adapters always send this context, so a stolen
        // role cannot use the key as a general-purpose encrypt/decrypt service.
        conditions: { StringEquals: { 'kms:EncryptionContext:purpose': SECRETS_PURPOSE } },
      }),
    );
  }
}
