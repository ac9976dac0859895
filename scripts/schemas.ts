/**
 * The parts of docs/schemas/*.schema.json generated from the feature catalog (src/catalog/features.ts): each
 * feature's answer (`"twoFactor": true`) in the manifest's and the `--json` documents' answers, and the `--json`
 * document of its `add-<id>` and `remove-<id>` commands. `npm run docs` (scripts/docs.ts) writes them;
 * test/cli/feature-catalog.test.ts fails when the committed schemas differ from what this gives. Each generated part
 * carries a `$comment` saying so, which is how the next run finds it again: the rest of the schemas is hand-written.
 */
import { featureCatalog, featureCommandName } from '../src/catalog/features.js';
import type { FeatureEntry } from '../src/catalog/features.js';

/** The `$comment` of every part generated from the catalog. */
export const generatedComment = 'Generated from src/catalog/features.ts by npm run docs: edit the catalog, not this.';

type Schema = Record<string, unknown>;

const isGenerated = (value: unknown): boolean => typeof value === 'object' && value !== null && (value as Schema)['$comment'] === generatedComment;

/** A feature's answer: `true` when on, absent when off. */
function featureAnswer(entry: FeatureEntry, sentence: boolean): Schema {
  const description = `${entry.summary} (${entry.flag.name}); absent when off`;
  return { $comment: generatedComment, type: 'boolean', description: sentence ? `${description.charAt(0).toUpperCase()}${description.slice(1)}.` : description };
}

/** The `--json` document of a feature's `add-<id>` and `remove-<id>`. */
function featureCommand(entry: FeatureEntry): Schema {
  const paths = (description: string): Schema => ({ $ref: '#/definitions/paths', description });
  return {
    $comment: generatedComment,
    type: 'object',
    required: ['command', 'ok', 'version', 'root', 'dryRun', 'files', 'dependencies', 'env', 'notes', entry.answersKey],
    additionalProperties: false,
    properties: {
      command: { enum: [featureCommandName(entry, true), featureCommandName(entry, false)] },
      ok: { const: true },
      version: { $ref: '#/definitions/version' },
      root: { type: 'string' },
      dryRun: { type: 'boolean' },
      files: { $ref: '#/definitions/files' },
      dependencies: {
        type: 'object',
        required: ['added', 'removed'],
        additionalProperties: false,
        properties: {
          added: { $ref: '#/definitions/ranges', description: 'added to package.json, name → range' },
          removed: paths('removed from package.json'),
        },
      },
      env: {
        type: 'object',
        additionalProperties: false,
        properties: {
          added: paths('keys added to .env'),
          removed: paths('keys removed from .env.example or .env'),
          fill: paths('keys the user fills in'),
          kept: paths("keys left in .env with the user's values"),
        },
      },
      notes: { $ref: '#/definitions/paths' },
      callbackUrls: { $ref: '#/definitions/callbackUrls' },
      installed: { type: 'boolean' },
      packageManager: { enum: ['npm', 'pnpm', 'yarn', 'bun'] },
      [entry.answersKey]: { type: 'boolean', description: `whether the project has ${entry.noun} after the command` },
    },
  };
}

/** `properties` without the generated ones, then the catalog's answers. */
function withFeatureAnswers(properties: Schema, sentence: boolean): Schema {
  const kept = Object.entries(properties).filter(([, value]) => !isGenerated(value));
  return Object.fromEntries([...kept, ...featureCatalog.map((entry: FeatureEntry) => [entry.answersKey, featureAnswer(entry, sentence)] as const)]);
}

function objectAt(schema: Schema, ...path: string[]): Schema {
  let value: unknown = schema;
  for (const key of path) {
    value = (value as Schema | undefined)?.[key];
    if (typeof value !== 'object' || value === null) throw new Error(`the schema has no object at ${path.join('.')}`);
  }
  return value as Schema;
}

/**
 * docs/schemas/cli-output.schema.json with its feature parts generated again: the answers, a `oneOf` reference to each
 * feature's command document after `removeProvider`'s, and the documents at the end of `definitions`.
 */
export function outputSchemaFromCatalog(schema: Schema): Schema {
  const definitions = objectAt(schema, 'definitions');
  const answers = objectAt(definitions, 'answers');
  answers['properties'] = withFeatureAnswers(objectAt(answers, 'properties'), false);
  const kept = Object.entries(definitions).filter(([, value]) => !isGenerated(value));
  const keptNames = new Set(kept.map(([name]) => name));
  const references = (schema['oneOf'] as { $ref: string }[]).filter((reference) => keptNames.has(reference.$ref.replace('#/definitions/', '')));
  const anchor = references.findIndex((reference) => reference.$ref === '#/definitions/removeProvider');
  if (anchor === -1) throw new Error('the output schema has no removeProvider document to put the features after');
  const features = featureCatalog.map((entry: FeatureEntry) => ({ $ref: `#/definitions/${entry.answersKey}` }));
  return {
    ...schema,
    oneOf: [...references.slice(0, anchor + 1), ...features, ...references.slice(anchor + 1)],
    definitions: Object.fromEntries([...kept, ...featureCatalog.map((entry: FeatureEntry) => [entry.answersKey, featureCommand(entry)] as const)]),
  };
}

/** docs/schemas/manifest.schema.json with the features' answers generated again. */
export function manifestSchemaFromCatalog(schema: Schema): Schema {
  const answers = objectAt(schema, 'properties', 'answers');
  answers['properties'] = withFeatureAnswers(objectAt(answers, 'properties'), true);
  return schema;
}

/** A schema as the files hold it: two-space JSON, non-ASCII characters escaped, a final newline. */
export function schemaText(schema: Schema): string {
  return `${JSON.stringify(schema, null, 2).replace(/[\u0080-\uffff]/g, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`)}\n`;
}

/** A committed schema's text as generated again from the catalog. */
export function regeneratedSchema(name: 'cli-output' | 'manifest', text: string): string {
  const schema = JSON.parse(text) as Schema;
  return schemaText(name === 'cli-output' ? outputSchemaFromCatalog(schema) : manifestSchemaFromCatalog(schema));
}
