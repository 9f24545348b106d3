import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import type { AttributeValue as StreamAttributeValue, DynamoDBRecord } from 'aws-lambda';
import type { FeedEntry } from './change-feed.ts';

type Image = Record<string, AttributeValue>;

/**
 * An item as a stream record carries it: the event Lambda receives is JSON, so a binary
 * attribute (an event's compressed body, `bodyZ`) arrives as base64 text, not bytes.
 */
export function streamImage(item: Image): Record<string, StreamAttributeValue> {
  return Object.fromEntries(Object.entries(item).map(([k, v]) => [k, streamValue(v)]));
}

function streamValue(v: AttributeValue): StreamAttributeValue {
  if (v.B !== undefined) return { B: Buffer.from(v.B).toString('base64') };
  if (v.BS !== undefined) return { BS: v.BS.map((b) => Buffer.from(b).toString('base64')) };
  if (v.L !== undefined) return { L: v.L.map(streamValue) };
  if (v.M !== undefined) return { M: streamImage(v.M) };
  return v as StreamAttributeValue;
}

/** The INSERT record a NEW_IMAGE stream gives for an entry whose insert took place, `item` as read after it. */
export function insertRecord(entry: FeedEntry, item: Image, streamArn: string): DynamoDBRecord {
  return {
    eventID: entry.seq,
    eventName: 'INSERT',
    eventVersion: '1.1',
    eventSource: 'aws:dynamodb',
    awsRegion: 'us-east-1',
    eventSourceARN: streamArn,
    dynamodb: {
      // Seconds, as DynamoDB gives it: when the entry was written, just before the insert.
      ApproximateCreationDateTime: Math.floor(entry.at / 1000),
      Keys: streamImage(entry.key),
      NewImage: streamImage(item),
      SequenceNumber: entry.seq,
      StreamViewType: 'NEW_IMAGE',
    },
  };
}
