import {
  DeleteObjectCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import type { Archive } from '#ports/archive.ts';

/** The archive bucket through the S3 API (fauxqs locally, with path-style addressing). */
export class S3Archive implements Archive {
  constructor(
    private readonly s3: S3Client,
    private readonly bucket: string,
  ) {}

  async put(key: string, body: Uint8Array, sha256Hex: string): Promise<void> {
    await this.s3.send(
      new PutObjectCommand({
        Bucket: this.bucket,
        Key: key,
        Body: body,
        ContentType: 'application/gzip',
        // S3 recomputes the SHA-256 of what it received and refuses the upload if it differs.
        ChecksumSHA256: Buffer.from(sha256Hex, 'hex').toString('base64'),
        Metadata: { sha256: sha256Hex },
      }),
    );
  }

  async get(key: string): Promise<Uint8Array | undefined> {
    try {
      const out = await this.s3.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
      return await out.Body!.transformToByteArray();
    } catch (error) {
      if ((error as { name?: string }).name === 'NoSuchKey') return undefined;
      throw error;
    }
  }

  async list(prefix: string): Promise<readonly string[]> {
    const keys: string[] = [];
    let token: string | undefined;
    do {
      const out = await this.s3.send(
        new ListObjectsV2Command({ Bucket: this.bucket, Prefix: prefix, ContinuationToken: token }),
      );
      keys.push(...(out.Contents ?? []).map((o) => o.Key!));
      token = out.IsTruncated ? out.NextContinuationToken : undefined;
    } while (token);
    return keys.sort();
  }

  async delete(key: string): Promise<void> {
    await this.s3.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
  }
}
