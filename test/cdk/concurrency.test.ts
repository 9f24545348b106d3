import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import {
  EVENT_SOURCES,
  FUNCTIONS,
  RESERVED_CONCURRENCY_DEFAULTS,
  type FunctionKey,
} from '../../lambdas/config/topology.ts';
import { connectQueue } from '../../lib/constructs/event-source.ts';
import { settingsFromContext } from '../../lib/context.ts';
import { InvalidPropError, ReservedConcurrencyError } from '../../lib/errors.ts';
import { findTopologyResource } from '../../lib/topology-metadata.ts';
import { WebhookDelivery, type WebhookDeliveryProps } from '../../lib/webhook-delivery.ts';
import { bareStack, defaultHookline, queuesAndFunction, synthHookline } from './helpers/synth.ts';

const FUNCTION_KEYS = Object.keys(FUNCTIONS) as FunctionKey[];
const reservationOf = (json: ReturnType<typeof defaultHookline>['json'], key: FunctionKey) =>
  findTopologyResource(json, `function/${key}`).properties.ReservedConcurrentExecutions;
const senderCap = EVENT_SOURCES.find((s) => s.queue === 'delivery')!.maxConcurrency;
const slowCap = EVENT_SOURCES.find((s) => s.queue === 'slowDelivery')!.maxConcurrency;
const ingestCap = EVENT_SOURCES.find((s) => s.function === 'ingest')!.maxConcurrency;

/** The error a WebhookDelivery with `props` throws must be a ReservedConcurrencyError naming `prop` and matching `message`. */
function refuses(props: WebhookDeliveryProps, prop: string, message: RegExp) {
  assert.throws(
    () => new WebhookDelivery(bareStack(), 'Hooks', props),
    (e: Error) =>
      e instanceof ReservedConcurrencyError &&
      e.name === 'ReservedConcurrencyError' &&
      e.message.startsWith(`${prop} `) &&
      message.test(e.message),
  );
}

describe('reserved concurrency: the default is none (RESERVED_CONCURRENCY_DEFAULTS)', () => {
  const { template, json } = defaultHookline();

  test('the topology reserves nothing, and no function in the template has a reservation', () => {
    assert.deepEqual(RESERVED_CONCURRENCY_DEFAULTS, {});
    template.allResourcesProperties('AWS::Lambda::Function', { ReservedConcurrentExecutions: Match.absent() });
    for (const key of FUNCTION_KEYS.filter((k) => k !== 'authorizer'))
      assert.equal(reservationOf(json, key), RESERVED_CONCURRENCY_DEFAULTS[key]);
  });

  test('the sender and ingest stay bounded by their event sources instead', () => {
    for (const source of EVENT_SOURCES)
      template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
        FunctionName: { Ref: findTopologyResource(json, `function/${source.function}`).logicalId },
        ScalingConfig: { MaximumConcurrency: source.maxConcurrency },
      });
  });
});

describe('reserved concurrency set per function by the reservedConcurrency prop', () => {
  const reservedConcurrency = {
    api: 50,
    authorizer: 10,
    // Both of the sender's mappings: 30 for the delivery queue, 10 for the slow lane.
    sender: 40,
    ingest: ingestCap,
    sweeper: 2,
    replay: 2,
    archiver: 1,
  } as const;
  // Behind API Gateway, where the authorizer is deployed to take its reservation.
  const synth = synthHookline({ reservedConcurrency, senderMaxConcurrency: 30, apiType: 'http' }, 'HooklineReserved');
  const { template, json } = synth;

  test('each named function gets exactly its reservation', () => {
    template.hasResourceProperties('AWS::Lambda::Function', {
      Description: FUNCTIONS.api.description,
      ReservedConcurrentExecutions: 50,
    });
    for (const [key, value] of Object.entries(reservedConcurrency))
      assert.equal(reservationOf(json, key as FunctionKey), value, key);
  });

  test('a function the prop leaves out keeps the default (none)', () => {
    template.hasResourceProperties('AWS::Lambda::Function', {
      Description: FUNCTIONS.notifier.description,
      ReservedConcurrentExecutions: Match.absent(),
    });
  });

  test('a sender reservation equal to its maxConcurrency is allowed, and the mapping keeps its cap', () => {
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: findTopologyResource(json, 'function/sender').logicalId },
      ScalingConfig: { MaximumConcurrency: 30 },
    });
  });

  for (const pack of synth.nagPacks) {
    test(`${pack.readPackName}: zero unacknowledged findings`, () => {
      const findings = pack.validateScope(synth.stack).violations.map((v) => v.ruleName);
      assert.deepEqual(findings, []);
    });
  }

  test('no errors or warnings annotated on the stack', () => {
    assert.deepEqual(Annotations.fromStack(synth.stack).findError('*', Match.anyValue()), []);
    assert.deepEqual(Annotations.fromStack(synth.stack).findWarning('*', Match.anyValue()), []);
  });
});

describe('reserved concurrency: refused at synth time with ReservedConcurrencyError', () => {
  for (const value of [0, -1, 1.5, Number.NaN, '50' as unknown as number])
    test(`not a positive whole number: ${JSON.stringify(value)}`, () => {
      refuses({ reservedConcurrency: { api: value } }, 'reservedConcurrency.api', /positive whole number/);
    });

  test('a key that names no Hookline function', () => {
    refuses(
      { reservedConcurrency: { senders: 20 } as never },
      'reservedConcurrency.senders',
      /names no Hookline function/,
    );
  });

  test('not an object at all', () => {
    assert.throws(
      () => new WebhookDelivery(bareStack(), 'Hooks', { reservedConcurrency: 20 as never }),
      (e: Error) => e instanceof InvalidPropError && /^reservedConcurrency must map/.test(e.message),
    );
  });

  test(`a sender reservation below its default maxConcurrency (${senderCap}): the mapping would be throttled`, () => {
    refuses(
      { reservedConcurrency: { sender: senderCap - 1 } },
      'reservedConcurrency.sender',
      new RegExp(`below the sender event sources' maxConcurrency \\(${senderCap} in all\\)`),
    );
  });

  test(`a sender reservation that covers the delivery queue's mapping but not the slow lane's (${slowCap})`, () => {
    refuses(
      { reservedConcurrency: { sender: senderCap } },
      'reservedConcurrency.sender',
      new RegExp(
        `\\(${senderCap}\\) is below the sender event sources' maxConcurrency \\(${senderCap + slowCap} in all\\)`,
      ),
    );
  });

  test('a sender reservation below a raised senderMaxConcurrency', () => {
    refuses(
      { reservedConcurrency: { sender: 40 }, senderMaxConcurrency: 50 },
      'reservedConcurrency.sender',
      /\(40\) is below the sender event sources' maxConcurrency \(50 in all\)/,
    );
  });

  test(`an ingest reservation below its maxConcurrency (${ingestCap})`, () => {
    refuses(
      { reservedConcurrency: { ingest: ingestCap - 1 } },
      'reservedConcurrency.ingest',
      new RegExp(`below the ingest event sources' maxConcurrency \\(${ingestCap} in all\\)`),
    );
  });

  test("an authorizer reservation with apiAuth 'iam' or the Function URL entry (no authorizer to reserve for)", () => {
    for (const props of [{ apiAuth: 'iam', apiType: 'http' }, { apiType: 'url' }, {}] as const)
      refuses(
        { ...props, reservedConcurrency: { authorizer: 10 } },
        'reservedConcurrency.authorizer',
        /only apiAuth 'bearer' behind API Gateway/,
      );
  });
});

describe('connectQueue checks the function it connects, whoever set its reservation', () => {
  const reservedFunction = (reservedConcurrentExecutions: number) =>
    queuesAndFunction({ reservedConcurrentExecutions });

  test('below the cap: refused', () => {
    const { queues, fn } = reservedFunction(10);
    assert.throws(() => connectQueue(fn, 'sender', queues.delivery), ReservedConcurrencyError);
  });

  test('at or above the cap: connected', () => {
    const { stack, queues, fn } = reservedFunction(10);
    connectQueue(fn, 'sender', queues.delivery, 10);
    const template = Template.fromStack(stack);
    template.hasResourceProperties('AWS::Lambda::Function', { ReservedConcurrentExecutions: 10 });
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', { ScalingConfig: { MaximumConcurrency: 10 } });
  });
});

describe('bin context: -c reservedConcurrency', () => {
  const from = (value: unknown) => settingsFromContext((k) => (k === 'reservedConcurrency' ? value : undefined));

  test('a JSON object from the command line, or an object from cdk.json', () => {
    assert.deepEqual(from('{"api":50,"sender":20}').delivery.reservedConcurrency, { api: 50, sender: 20 });
    assert.deepEqual(from({ api: 50 }).delivery.reservedConcurrency, { api: 50 });
    assert.equal(from(undefined).delivery.reservedConcurrency, undefined);
  });

  for (const bad of ['{api:50}', '50', '[50]'])
    test(`refuses ${bad}`, () => {
      assert.throws(
        () => from(bad),
        (e: Error) =>
          e instanceof InvalidPropError && /^context reservedConcurrency must be a JSON object/.test(e.message),
      );
    });
});
