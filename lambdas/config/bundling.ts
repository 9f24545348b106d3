/**
 * AWS SDK modules a Lambda bundle leaves out. On Lambda the credentials come from environment
 * variables, the first provider of the SDK's default chain; the SSO, shared-config, process and
 * web-identity providers (and the STS/SSO clients they pull in) are reached only through
 * dynamic imports when that fails, which it does not on Lambda — and if it ever did, the
 * nodejs22.x runtime ships them. Leaving them out takes about 110 KB off every bundle.
 */
export const LAMBDA_EXTERNAL_MODULES = [
  '@aws-sdk/credential-provider-sso',
  '@aws-sdk/credential-provider-ini',
  '@aws-sdk/credential-provider-process',
  '@aws-sdk/credential-provider-web-identity',
] as const;
