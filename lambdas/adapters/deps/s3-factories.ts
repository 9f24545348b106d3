import { S3Client } from '@aws-sdk/client-s3';
import { S3Archive } from '../s3-archive.ts';
import type { Factories } from './factory.ts';

/** The archive bucket: only the archiver's bundle carries the S3 client. */
export const S3_FACTORIES: Factories<'archive'> = {
  archive: (v, s) => new S3Archive(s.options.clients?.s3 ?? new S3Client({}), v.ARCHIVE_BUCKET),
};
