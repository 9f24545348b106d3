import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  LOCAL_SECRETS_KEY_FILE,
  LocalKeySecretCipher,
  loadLocalSecretsKey,
} from '#adapters/local-key-secret-cipher.ts';

const dirs: string[] = [];
const freshDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'hookline-key-'));
  dirs.push(dir);
  return dir;
};
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

describe('the local secrets key file', () => {
  it('is created once: 32 random bytes, mode 0600', () => {
    const dir = freshDir();
    const key = loadLocalSecretsKey(dir);
    const file = join(dir, LOCAL_SECRETS_KEY_FILE);
    assert.equal(key.length, 32);
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.deepEqual(readFileSync(file), key);
  });

  it('is reused on the next start, so what was sealed still opens', async () => {
    const dir = freshDir();
    const sealed = await new LocalKeySecretCipher(loadLocalSecretsKey(dir)).seal('sub_a', [
      'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    ]);
    const again = loadLocalSecretsKey(dir);
    assert.deepEqual(await new LocalKeySecretCipher(again).open('sub_a', sealed), [
      'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    ]);
  });

  it('two data folders get two different keys', () => {
    assert.notDeepEqual(loadLocalSecretsKey(freshDir()), loadLocalSecretsKey(freshDir()));
  });

  it('narrows a key file left wider than 0600', () => {
    const dir = freshDir();
    loadLocalSecretsKey(dir);
    chmodSync(join(dir, LOCAL_SECRETS_KEY_FILE), 0o644);
    loadLocalSecretsKey(dir);
    assert.equal(statSync(join(dir, LOCAL_SECRETS_KEY_FILE)).mode & 0o777, 0o600);
  });

  it('refuses a key file that is not 32 bytes instead of sealing with a short key', () => {
    const dir = freshDir();
    writeFileSync(join(dir, LOCAL_SECRETS_KEY_FILE), 'short', { mode: 0o600 });
    assert.throws(() => loadLocalSecretsKey(dir), /not a 32-byte key/);
  });
});

describe('LocalKeySecretCipher', () => {
  const cipher = new LocalKeySecretCipher(new Uint8Array(32).fill(5));

  it('seals as local-v1 without a data key and opens for the same subscription only', async () => {
    const sealed = await cipher.seal('sub_a', ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw']);
    assert.equal(sealed.scheme, 'local-v1');
    assert.equal(sealed.key, undefined);
    assert.deepEqual(await cipher.open('sub_a', sealed), ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw']);
    await assert.rejects(cipher.open('sub_b', sealed), /do not open/);
  });

  it('refuses a KMS-sealed blob (a row from an AWS table)', async () => {
    await assert.rejects(
      cipher.open('sub_a', { scheme: 'kms-v1', key: 'AA==', iv: 'AA==', tag: 'AA==', data: 'AA==' }),
      /sealed with kms-v1/,
    );
  });
});
