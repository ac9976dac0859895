// Issue 47: a catalog feature may need another beside it (`needs.features`). No feature of today does (each brings
// what it uses of the runtime's features itself: security events, rate limits), so this file gives API keys a need of
// two-factor, in this file's process only, and checks what create, the prompt, add-<id> and remove-<id> do with it:
// create refuses the flag without the one it needs (exit 2, naming it) and never asks for it, add refuses it until
// the needed one is in the config, and remove refuses the needed one while it is there.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { stripVTControlCharacters } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../src/cli/main.js';
import { featureCatalog, featuresNeeding, getFeature, missingNeededFeatures } from '../../src/catalog/features.js';
import type { FeatureEntry, FeatureNeed } from '../../src/catalog/features.js';
import { checkFeaturesFit } from '../../src/generator/answers.js';
import { projectTree } from './helpers/project-tree.js';
import { makeTempDir, removeTempDirs, runInProcess } from './helpers/run-cli.js';

afterAll(removeTempDirs);

const apiKeys = getFeature('api-keys');
const twoFactor = getFeature('two-factor');
const account = getFeature('account');

beforeAll(() => {
  (apiKeys.needs as { features?: readonly FeatureNeed[] }).features = [{ id: 'two-factor', why: 'lets a key be made only after a second factor' }];
});

async function create(flags: readonly string[]): Promise<{ root: string; exitCode: number; stderr: string }> {
  const parent = await makeTempDir();
  const result = await runInProcess('create-framework-auth', ['app', '--yes', '--no-install', '--providers', 'password', '--adapter', 'sqlite', ...flags], { cwd: parent });
  return { root: join(parent, 'app'), exitCode: result.exitCode, stderr: result.stderr };
}

describe('the catalog functions of needed features', () => {
  it('name what a feature lacks of the features it needs, and who needs a feature', () => {
    expect(missingNeededFeatures(apiKeys, [])).toEqual([twoFactor]);
    expect(missingNeededFeatures(apiKeys, [twoFactor, account])).toEqual([]);
    expect(missingNeededFeatures(twoFactor, [])).toEqual([]);
    expect(featuresNeeding(twoFactor, featureCatalog)).toEqual([apiKeys]);
    expect(featuresNeeding(twoFactor, [twoFactor, account])).toEqual([]);
    expect(featuresNeeding(apiKeys, featureCatalog)).toEqual([]);
  });

  it('refuse answers with the feature but not the one it needs', () => {
    expect(() => checkFeaturesFit({ providers: ['password'], adapter: 'sqlite', apiKeys: true })).toThrow('--api-keys lets a key be made only after a second factor, and --two-factor is not given.');
    expect(() => checkFeaturesFit({ providers: ['password'], adapter: 'sqlite', apiKeys: true, twoFactor: true })).not.toThrow();
  });
});

describe('create', () => {
  it('refuses the flag without the flag of the feature it needs (exit 2), writing nothing', async () => {
    const { root, exitCode, stderr } = await create(['--api-keys']);
    expect(exitCode).toBe(2);
    expect(stderr).toContain('--api-keys lets a key be made only after a second factor, and --two-factor is not given.');
    expect(stderr).toContain('Add --two-factor.');
    await expect(projectTree(root)).rejects.toThrow();
  });

  it('writes both with both flags', async () => {
    const { root, exitCode, stderr } = await create(['--api-keys', '--two-factor']);
    expect(exitCode, stderr).toBe(0);
    expect((await projectTree(root))['src/auth/config.ts']).toContain("features: [TwoFactor(), ApiKeys({ scopes: ['read', 'write'] })]");
  });
});

describe('the prompt', () => {
  /** Types `keys` once `question` is on screen (as test/cli/interactive.test.ts does). */
  function terminal() {
    const input = new PassThrough();
    const output = new PassThrough();
    let screen = '';
    output.on('data', (chunk: Buffer) => (screen += chunk.toString()));
    return {
      input,
      output,
      screen: () => stripVTControlCharacters(screen),
      async answer(question: string, ...keys: string[]): Promise<void> {
        const deadline = Date.now() + 5_000;
        while (!stripVTControlCharacters(screen).includes(question)) {
          if (Date.now() > deadline) throw new Error(`"${question}" never appeared:\n${stripVTControlCharacters(screen)}`);
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
        for (const key of keys) {
          input.write(key);
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
      },
    };
  }

  it('asks for the feature only when the one it needs was chosen', async () => {
    const [down, left, space, enter] = ['\x1b[B', '\x1b[D', ' ', '\r'];
    for (const withTwoFactor of [false, true]) {
      const parent = await makeTempDir();
      const session = terminal();
      const done = run('create-framework-auth', ['app', '--no-install', '--mount', '/auth', '--adapter', 'sqlite'], {
        stdin: session.input,
        stdout: session.output,
        stderr: new PassThrough(),
        env: {},
        cwd: parent,
        interactive: true,
        signal: new AbortController().signal,
      });
      // oidc off, down to credentials (the tenth) and on.
      await session.answer('Which sign-in providers?', space, ...Array<string>(9).fill(down), space, enter);
      await session.answer(twoFactor.question, ...(withTwoFactor ? [left] : []), enter);
      if (withTwoFactor) await session.answer(apiKeys.question, left, enter);
      await session.answer(account.question, enter);
      await session.answer(getFeature('organizations').question, enter);
      await session.answer(getFeature('admin').question, enter);
      await session.answer('Write these files?', enter);
      expect(await done).toBe(0);
      expect(session.screen().includes(apiKeys.question)).toBe(withTwoFactor);
      const answers = (JSON.parse(await readFile(join(parent, 'app/framework-auth.json'), 'utf8')) as { answers: Record<string, unknown> }).answers;
      expect(answers).toEqual({ providers: ['credentials'], mount: '/auth', adapter: 'sqlite', ...(withTwoFactor ? { twoFactor: true, apiKeys: true } : {}) });
    }
  });
});

describe('add and remove', () => {
  it('add refuses the feature until the one it needs is in the config, and remove refuses that one while it is needed', async () => {
    const { root, exitCode } = await create([]);
    expect(exitCode).toBe(0);
    const before = await projectTree(root);
    const refused = await runInProcess('framework-auth', ['add-api-keys', '--no-install'], { cwd: root });
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain('The API-keys feature lets a key be made only after a second factor, and src/auth/config.ts does not have two-factor.');
    expect(refused.stderr).toContain('Add it first: npx framework-auth add-two-factor');
    expect(await projectTree(root)).toEqual(before);

    expect((await runInProcess('framework-auth', ['add-two-factor', '--no-install'], { cwd: root })).exitCode).toBe(0);
    expect((await runInProcess('framework-auth', ['add-api-keys', '--no-install'], { cwd: root })).exitCode).toBe(0);
    const withBoth = await projectTree(root);
    const kept = await runInProcess('framework-auth', ['remove-two-factor'], { cwd: root });
    expect(kept.exitCode).toBe(2);
    expect(kept.stderr).toContain('The API-keys feature lets a key be made only after a second factor, and stays in src/auth/config.ts.');
    expect(kept.stderr).toContain('Remove API keys first: npx framework-auth remove-api-keys');
    expect(await projectTree(root)).toEqual(withBoth);

    expect((await runInProcess('framework-auth', ['remove-api-keys'], { cwd: root })).exitCode).toBe(0);
    expect((await runInProcess('framework-auth', ['remove-two-factor'], { cwd: root })).exitCode).toBe(0);
  });
});

describe('doctor', () => {
  it('reports a config with the feature but not the one it needs', async () => {
    const { root, exitCode } = await create(['--api-keys', '--two-factor']);
    expect(exitCode).toBe(0);
    const configPath = join(root, 'src/auth/config.ts');
    await writeFile(configPath, (await readFile(configPath, 'utf8')).replace('TwoFactor(), ', ''));
    const result = await runInProcess('framework-auth', ['doctor', '--json'], { cwd: root, env: { AUTH_SECRET: 'x'.repeat(43) } });
    const findings = (JSON.parse(result.stdout) as { findings: { id: string; status: string; message: string; fix: string }[] }).findings;
    expect(findings.find((finding) => finding.id === 'api-keys')).toEqual({
      id: 'api-keys',
      status: 'error',
      message: 'src/auth/config.ts has ApiKeys() but not TwoFactor(), which it needs: it lets a key be made only after a second factor.',
      fix: 'Run npx framework-auth add-two-factor, or npx framework-auth remove-api-keys.',
    });
  });
});

describe('the catalog as it is', () => {
  it('lists needs only of features before the one that needs them (the prompt asks in catalog order)', () => {
    const catalog: readonly FeatureEntry[] = featureCatalog;
    for (const [index, entry] of catalog.entries()) {
      for (const need of entry.needs.features ?? []) {
        const needed = catalog.findIndex((other) => other.id === need.id);
        expect(needed, `${entry.id} needs ${need.id}`).toBeGreaterThanOrEqual(0);
        expect(needed, `${entry.id} needs ${need.id}`).toBeLessThan(index);
      }
    }
  });
});
