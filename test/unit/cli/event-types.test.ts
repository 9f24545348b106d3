import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { CliError, EXIT } from '#cli/errors.ts';
import { eventTypeBody } from '#cli/event-types.ts';

const dir = mkdtempSync(join(tmpdir(), 'hookline-cli-event-types-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

describe('hookline event-types put: the body', () => {
  it('splices the files in as written: spacing, numbers and key order unchanged', () => {
    const schema = '{ "type": "object", "properties": { "amount": { "minimum": 1.50 } } }\n';
    const example = '{"amount": 2.0, "a": 1}';
    assert.equal(
      eventTypeBody({
        description: 'An order',
        schemaFile: file('s.json', schema),
        exampleFile: file('e.json', example),
        deprecated: true,
      }),
      `{"description":"An order","schema":${schema.trim()},"example":${example},"deprecated":true}`,
    );
    assert.equal(eventTypeBody({ description: 'x' }), '{"description":"x"}');
  });

  it('refuses what the service would refuse, naming the flag (exit 2), before anything is sent', () => {
    const refused = (o: Parameters<typeof eventTypeBody>[0], pattern: RegExp) =>
      assert.throws(
        () => eventTypeBody(o),
        (e: unknown) => e instanceof CliError && e.exitCode === EXIT.usage && pattern.test(e.message),
      );
    refused({ description: '' }, /^--description: is required/);
    refused(
      { description: 'x', schemaFile: file('array.json', '[1]') },
      /^--schema-file: must be a JSON Schema: a JSON object/,
    );
    refused({ description: 'x', schemaFile: file('broken.json', '{"type":') }, /^--schema-file is not valid JSON/);
    refused({ description: 'x', exampleFile: file('broken-example.json', '{,}') }, /^--example-file is not valid JSON/);
    refused(
      { description: 'x', exampleFile: file('big.json', '{"n": 9007199254740993}') },
      /^--example-file n: is an integer beyond/,
    );
    refused({ description: 'x', schemaFile: join(dir, 'missing.json') }, /^--schema-file: cannot read /);
    // One JSON value per file: text that would close the value and add a field of its own is refused whole.
    refused(
      { description: 'x', exampleFile: file('smuggle.json', '1, "deprecated": "yes"') },
      /^--example-file is not valid JSON/,
    );
  });
});
