import assert from 'node:assert/strict';
import { it } from 'node:test';
import { SMOKE_CHAOS } from '../../scripts/chaos/presets.ts';
import { runChaos } from '../../scripts/chaos/run-chaos.ts';

it('chaos smoke: SIGKILLs, a queue purge and a misbehaving receiver lose nothing', { timeout: 90_000 }, async () => {
  const report = await runChaos(SMOKE_CHAOS);
  assert.equal(report.accepted, SMOKE_CHAOS.events, 'every event accepted (the producer retries with the same id)');
  assert.equal(report.lost, 0, `lost deliveries: ${report.lostSamples.join('; ')}`);
  assert.equal(report.delivered + report.failed + report.expired, report.deliveries);
  assert.ok(report.kills >= 2, `the runtime was killed ${report.kills} times`);
  assert.equal(report.purged, true);
  assert.equal(report.unverified, 0, 'every request carried a valid signature');
  assert.equal(report.redirectsFollowed, 0);
  assert.equal(report.deadLettersWithoutLog, 0);
});
