// Validates --json documents and manifests against the schemas checked into docs/schemas/.
import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import type { ValidateFunction } from 'ajv';

const ajv = new Ajv({ allErrors: true, strict: true });
ajv.addFormat('uri', (value: string) => URL.canParse(value));

function load(name: string): ValidateFunction {
  const schema = JSON.parse(readFileSync(new URL(`../../../docs/schemas/${name}`, import.meta.url), 'utf8')) as object;
  return ajv.compile(schema);
}

const validators = { output: load('cli-output.schema.json'), manifest: load('manifest.schema.json') };

/** Parses stdout as one JSON document and checks it against docs/schemas/cli-output.schema.json. */
export function parseJsonOutput(stdout: string): Record<string, unknown> {
  const document = JSON.parse(stdout) as Record<string, unknown>;
  if (!validators.output(document)) throw new Error(`--json output does not match the schema: ${ajv.errorsText(validators.output.errors)}\n${stdout}`);
  return document;
}

/** Checks a manifest's text against docs/schemas/manifest.schema.json. */
export function parseManifestJson(text: string): Record<string, unknown> {
  const manifest = JSON.parse(text) as Record<string, unknown>;
  if (!validators.manifest(manifest)) throw new Error(`framework-auth.json does not match the schema: ${ajv.errorsText(validators.manifest.errors)}`);
  return manifest;
}
