import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  DEAD_LETTER_STATES,
  DELIVERY_STATES,
  REPLAYABLE_STATES,
  TERMINAL_STATES,
  allows,
  isDeadLetter,
  isDeliveryState,
  isTerminal,
  statesAllowing,
  targetOf,
  transition,
  type DeliveryAction,
  type DeliveryState,
} from '#domain/states.ts';
import { DomainError, InvalidTransitionError } from '#domain/errors.ts';

const STATES: readonly DeliveryState[] = ['pending', 'in_flight', 'delivered', 'failed', 'expired'];
const ACTIONS: readonly DeliveryAction[] = [
  'succeed',
  'fail_permanently',
  'retry',
  'give_up',
  'expire',
  'release',
  'reschedule',
  'retry_now',
  'replay',
];

/**
 * Every edge of the docs/design.md diagram: an attempt's outcome from pending (nothing is
 * claimed), the sweeper's and the rate gate's expire and reschedule, Retry now, replay, and the release
 * of a row an earlier version left in flight.
 */
const ALLOWED: ReadonlyArray<readonly [DeliveryState, DeliveryAction, DeliveryState]> = [
  ['pending', 'succeed', 'delivered'],
  ['pending', 'fail_permanently', 'failed'],
  ['pending', 'retry', 'pending'],
  ['pending', 'give_up', 'expired'],
  ['pending', 'expire', 'expired'],
  ['in_flight', 'release', 'pending'],
  ['pending', 'reschedule', 'pending'],
  ['pending', 'retry_now', 'pending'],
  ['failed', 'replay', 'pending'],
  ['expired', 'replay', 'pending'],
  ['delivered', 'replay', 'pending'],
];

/** Every other (state, action) pair, written out so the table does not derive from the code. */
const FORBIDDEN: ReadonlyArray<readonly [DeliveryState, DeliveryAction]> = [
  ...(['succeed', 'fail_permanently', 'retry', 'give_up', 'expire', 'reschedule', 'retry_now'] as const).flatMap(
    (action) => (['in_flight', 'delivered', 'failed', 'expired'] as const).map((state) => [state, action] as const),
  ),
  ['pending', 'release'],
  ['delivered', 'release'],
  ['failed', 'release'],
  ['expired', 'release'],
  ['pending', 'replay'],
  ['in_flight', 'replay'],
];

describe('delivery states', () => {
  it('has exactly the five stored states of docs/design.md', () => {
    assert.deepEqual([...DELIVERY_STATES], ['pending', 'in_flight', 'delivered', 'failed', 'expired']);
    assert.deepEqual([...DEAD_LETTER_STATES], ['failed', 'expired']);
    assert.deepEqual([...TERMINAL_STATES], ['delivered', 'failed', 'expired']);
    assert.deepEqual([...REPLAYABLE_STATES].sort(), ['delivered', 'expired', 'failed']);
  });

  const classification: ReadonlyArray<readonly [DeliveryState, boolean, boolean]> = [
    // state, terminal, dead letter
    ['pending', false, false],
    ['in_flight', false, false],
    ['delivered', true, false],
    ['failed', true, true],
    ['expired', true, true],
  ];
  for (const [state, terminal, dead] of classification) {
    it(`${state}: terminal=${terminal}, dead letter=${dead}`, () => {
      assert.equal(isTerminal(state), terminal);
      assert.equal(isDeadLetter(state), dead);
      assert.equal(isDeliveryState(state), true);
    });
  }

  const notStates: readonly unknown[] = [
    'retrying',
    'PENDING',
    'dead',
    '',
    'in-flight',
    0,
    null,
    undefined,
    {},
    ['pending'],
  ];
  for (const value of notStates) {
    it(`isDeliveryState(${JSON.stringify(value)}) is false`, () => {
      assert.equal(isDeliveryState(value), false);
    });
  }
});

describe('transition(): allowed edges', () => {
  for (const [from, action, to] of ALLOWED) {
    it(`${from} --${action}--> ${to}`, () => {
      assert.equal(transition(from, action), to);
    });
  }
});

describe('transition(): forbidden edges', () => {
  for (const [from, action] of FORBIDDEN) {
    it(`${from} --${action}--> throws InvalidTransitionError`, () => {
      assert.throws(
        () => transition(from, action),
        (error: unknown) => {
          assert.ok(error instanceof InvalidTransitionError);
          assert.ok(error instanceof DomainError);
          assert.equal(error.from, from);
          assert.equal(error.action, action);
          assert.equal(error.message, `cannot ${action} a delivery in state '${from}'`);
          return true;
        },
      );
    });
  }

  it('the two tables cover every (state, action) pair exactly once', () => {
    const seen = new Map<string, number>();
    for (const [from, action] of [...ALLOWED, ...FORBIDDEN]) {
      const key = `${from}/${action}`;
      seen.set(key, (seen.get(key) ?? 0) + 1);
    }
    assert.equal(seen.size, STATES.length * ACTIONS.length);
    for (const state of STATES) {
      for (const action of ACTIONS) assert.equal(seen.get(`${state}/${action}`), 1, `${state}/${action}`);
    }
  });
});

describe('statesAllowing()', () => {
  const expected: ReadonlyArray<readonly [DeliveryAction, readonly DeliveryState[]]> = [
    ['succeed', ['pending']],
    ['fail_permanently', ['pending']],
    ['retry', ['pending']],
    ['give_up', ['pending']],
    ['expire', ['pending']],
    ['release', ['in_flight']],
    ['reschedule', ['pending']],
    ['retry_now', ['pending']],
    ['replay', ['delivered', 'expired', 'failed']],
  ];
  for (const [action, states] of expected) {
    it(`${action} is allowed from ${states.join(', ')}`, () => {
      assert.deepEqual([...statesAllowing(action)].sort(), [...states].sort());
    });
  }

  it('agrees with transition() for every pair', () => {
    for (const action of ACTIONS) {
      const allowed = statesAllowing(action);
      for (const state of STATES) {
        const ok = (() => {
          try {
            transition(state, action);
            return true;
          } catch (error) {
            assert.ok(error instanceof InvalidTransitionError);
            return false;
          }
        })();
        assert.equal(ok, allowed.includes(state), `${state}/${action}`);
      }
    }
  });
});

describe('targetOf() and allows()', () => {
  it('targetOf(action) is the state every allowed transition(_, action) leads to', () => {
    for (const [from, action, to] of ALLOWED) {
      assert.equal(targetOf(action), to, `${from} --${action}-->`);
      assert.equal(transition(from, action), targetOf(action));
    }
  });

  it('allows(action, state) is exactly the ALLOWED table', () => {
    for (const action of ACTIONS) {
      for (const state of STATES) {
        const expected = ALLOWED.some(([from, a]) => from === state && a === action);
        assert.equal(allows(action, state), expected, `${state}/${action}`);
      }
    }
  });
});
