import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DynamoDBClient, GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { feedTableName } from '#local/change-feed.ts';
import { SdkMeter } from '../../../scripts/bench/sdk-meter.ts';

describe('SdkMeter', () => {
  it("leaves the local change feed's calls out (on AWS, Lambda reads the stream free) and counts the others", async () => {
    const dynamodb = new DynamoDBClient({
      region: 'us-east-1',
      credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
    });
    // No network: a middleware below the meter's answers every call as DynamoDB would (a mock of send would skip the meter).
    dynamodb.middlewareStack.add(
      (_next, context) => async () =>
        ({
          response: {},
          output: {
            $metadata: {},
            ...(context.commandName === 'GetItemCommand' ? { ConsumedCapacity: { CapacityUnits: 0.5 } } : {}),
          },
        }) as never,
      { step: 'finalizeRequest', name: 'answerLocally' },
    );
    const meter = new SdkMeter('http://127.0.0.1:9');
    try {
      meter.attach(dynamodb, new SQSClient({ region: 'us-east-1' }));
      await dynamodb.send(new PutItemCommand({ TableName: feedTableName('run-a'), Item: { feed: { S: 'f' } } }));
      await dynamodb.send(new GetItemCommand({ TableName: 'hookline-subscriptions', Key: { id: { S: 'sub_a' } } }));

      assert.deepEqual(Object.keys(meter.usage.calls), ['DynamoDB GetItem hookline-subscriptions']);
      assert.equal(meter.usage.calls['DynamoDB GetItem hookline-subscriptions']!.readUnits, 0.5);
    } finally {
      meter.close();
      dynamodb.destroy();
    }
  });
});
