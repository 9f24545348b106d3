import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { buildDeps } from '#adapters/function-deps.ts';
import { InvalidEnvironmentError } from '#config/errors.ts';
import { ENV_DEFAULTS, FUNCTIONS, type EnvName } from '#config/topology.ts';
import { DEFAULT_ALLOWED_PORTS, DEFAULT_PORT_RANGES, parseAllowedPorts } from '#domain/target-ports.ts';
import { noMetrics } from '#ports/metrics.ts';
import { ALL_FACTORIES } from '#adapters/deps/all-factories.ts';

const ENV = Object.fromEntries(
  Object.keys(ENV_DEFAULTS).map((name) => [name, ENV_DEFAULTS[name as EnvName] ?? `value-of-${name}`]),
);

describe('HOOKLINE_ALLOWED_PORTS', () => {
  it('is declared by the functions that check targets (api at creation, sender at every send), defaulting to the domain default', () => {
    assert.ok((FUNCTIONS.api.environment as readonly string[]).includes('HOOKLINE_ALLOWED_PORTS'));
    assert.ok((FUNCTIONS.sender.environment as readonly string[]).includes('HOOKLINE_ALLOWED_PORTS'));
    assert.equal(ENV_DEFAULTS.HOOKLINE_ALLOWED_PORTS, DEFAULT_ALLOWED_PORTS);
    assert.deepEqual(buildDeps('api', ENV, { metrics: noMetrics }, ALL_FACTORIES).allowedPorts, DEFAULT_PORT_RANGES);
  });

  it('a set value reaches the api dependency', () => {
    assert.deepEqual(
      buildDeps('api', { ...ENV, HOOKLINE_ALLOWED_PORTS: '443,8443' }, { metrics: noMetrics }, ALL_FACTORIES)
        .allowedPorts,
      parseAllowedPorts('443,8443'),
    );
  });

  it('a value that is not a port list fails at cold start, naming the variable and quoting the value', () => {
    for (const fn of ['api', 'sender'] as const) {
      assert.throws(
        () => buildDeps(fn, { ...ENV, HOOKLINE_ALLOWED_PORTS: '443,ssh' }, { metrics: noMetrics }, ALL_FACTORIES),
        (e: unknown) =>
          e instanceof InvalidEnvironmentError &&
          e.variable === 'HOOKLINE_ALLOWED_PORTS' &&
          e.message ===
            "environment variable HOOKLINE_ALLOWED_PORTS must be a comma-separated list of ports and ranges from 1 to 65535, e.g. 80,443,1024-65535, not '443,ssh'",
      );
    }
  });
});
