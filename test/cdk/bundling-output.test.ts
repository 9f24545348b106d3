import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, test } from 'node:test';
import { holdBundlingLines } from '../../lib/bundling-output.ts';

describe('cdk synth --quiet stays quiet', () => {
  test('holds back the "Bundling asset" lines and lets every other line through', () => {
    const stream = new PassThrough() as unknown as NodeJS.WriteStream;
    let written = '';
    (stream as unknown as PassThrough).on('data', (c: Buffer) => (written += c.toString()));
    const held = holdBundlingLines(stream);

    stream.write('Bundling asset Hookline/Hookline/Sender/Sender/Function/Code/Stage...\n');
    stream.write('▲ [WARNING] something esbuild wants you to see\n');
    stream.write('Bundling asset Hookline/Hookline/Api/Api/Function/Code/Stage...\n');
    held.restore();
    stream.write('after restore\n');

    assert.equal(written, '▲ [WARNING] something esbuild wants you to see\nafter restore\n');
    assert.deepEqual(held.lines, [
      'Bundling asset Hookline/Hookline/Sender/Sender/Function/Code/Stage...\n',
      'Bundling asset Hookline/Hookline/Api/Api/Function/Code/Stage...\n',
    ]);
  });
});
