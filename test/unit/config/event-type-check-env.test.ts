import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { SETTING_FACTORIES } from '#adapters/deps/setting-factories.ts';
import type { Shared, Vars } from '#adapters/deps/factory.ts';
import { InvalidEnvironmentError } from '#config/errors.ts';
import { ENV_DEFAULTS } from '#config/topology.ts';

const read = (value: string) =>
  SETTING_FACTORIES.eventTypeCheck({ HOOKLINE_EVENT_TYPE_CHECK: value } as unknown as Vars, {} as Shared);

describe('HOOKLINE_EVENT_TYPE_CHECK', () => {
  it('defaults to allow, and reads each of its values', () => {
    assert.equal(read(ENV_DEFAULTS.HOOKLINE_EVENT_TYPE_CHECK), 'allow');
    for (const value of ['allow', 'warn', 'refuse'] as const) assert.equal(read(value), value);
  });

  it('stops the function at cold start on anything else, naming the variable and the values', () => {
    assert.throws(
      () => read('reject'),
      (e: unknown) =>
        e instanceof InvalidEnvironmentError &&
        /HOOKLINE_EVENT_TYPE_CHECK/.test(e.message) &&
        /allow, warn, refuse/.test(e.message),
    );
  });
});
