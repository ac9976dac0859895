// framework-auth update: a project scaffolded from a changed copy of templates/ (standing for an older CLI) is
// brought to this version's templates: untouched files replaced, edited ones merged, conflicts left beside.
import { existsSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { snapshotTree } from '../e2e/helpers/project.js';
import { cliVersion } from '../../src/generator/version.js';
import { basePathOf, sha256 } from '../../src/generator/project/manifest.js';
import { readPackageChangelog, unreleasedVersion } from '../../src/generator/plan/changelog.js';
import { cliPackageRoot } from '../../src/generator/paths.js';
import { parseJsonOutput, parseManifestJson } from './helpers/json-schema.js';
import { makeTempDir, runInProcess, removeTempDirs } from './helpers/run-cli.js';
import { copyTemplates, editTemplate } from './helpers/templates-copy.js';

afterAll(removeTempDirs);

const oldDoc = '/** The current session of `req`, or null (as the older version words it). */';
const newDoc = '/** The current session of `req`, or null. */';
const oldRedirectLine = ' * Where users go after sign-in and sign-out (older wording).';
const newRedirectLine = ' * Where users are sent after sign-in and sign-out. The `redirect` callback decides, and whatever it returns, a URL';

describe('framework-auth update', () => {
  let root: string;
  let indexPath: string;

  beforeEach(async () => {
    // The "older version": this repo's templates with two lines worded differently.
    const old = await copyTemplates();
    await editTemplate(old.dir, 'project/auth/index.ts.hbs', newDoc, oldDoc);
    await editTemplate(old.dir, 'runtime/http/redirect.ts', newRedirectLine, `${oldRedirectLine}\n${newRedirectLine}`);
    const parent = await makeTempDir();
    const created = await runInProcess('create-framework-auth', ['app', '--yes', '--no-install'], { cwd: parent, env: old.env });
    expect(created.exitCode).toBe(0);
    root = join(parent, 'app');
    indexPath = join(root, 'src/auth/index.ts');
    expect(await readFile(indexPath, 'utf8')).toContain(oldDoc);
  });

  const update = (argv: readonly string[] = []) => runInProcess('framework-auth', ['update', ...argv], { cwd: root });

  /** Makes the manifest say the project was written by another CLI version. */
  const recordVersion = async (version: string): Promise<void> => {
    const path = join(root, 'framework-auth.json');
    const manifest = JSON.parse(await readFile(path, 'utf8')) as Record<string, unknown>;
    await writeFile(path, `${JSON.stringify({ ...manifest, cliVersion: version }, null, 2)}\n`);
  };
  const changelog = readPackageChangelog();
  // Every released version of CHANGELOG.md is newer than 0.0.1 and no newer than this one.
  const released = changelog.filter((release) => release.version !== unreleasedVersion);

  it('replaces files the user did not change and records the new bases in the manifest', async () => {
    const result = await update();
    expect(result.exitCode).toBe(0);
    const redirect = await readFile(join(root, 'src/auth/core/http/redirect.ts'), 'utf8');
    expect(redirect).not.toContain(oldRedirectLine);
    expect(redirect.split('\n').slice(1).join('\n')).toBe(await readFile(join(cliPackageRoot, 'templates/runtime/http/redirect.ts'), 'utf8'));
    expect(await readFile(indexPath, 'utf8')).toContain(newDoc);
    const manifest = parseManifestJson(await readFile(join(root, 'framework-auth.json'), 'utf8')) as { files: Record<string, { sha256: string; base: string }> };
    expect(manifest.files['src/auth/core/http/redirect.ts']?.sha256).toBe(sha256(redirect));
    expect(await readFile(join(root, basePathOf('src/auth/core/http/redirect.ts')), 'utf8')).toBe(redirect);
  });

  it('merges a file the user changed elsewhere: the edit is kept and the new version\'s change is taken', async () => {
    const original = await readFile(indexPath, 'utf8');
    await writeFile(indexPath, `${original}\nexport const mine = 'kept';\n`);
    const result = await update();
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('Merged with your changes: src/auth/index.ts');
    const merged = await readFile(indexPath, 'utf8');
    expect(merged).toContain(newDoc);
    expect(merged).toContain("export const mine = 'kept';");
    expect(merged).not.toContain('<<<<<<<');
    expect(existsSync(`${indexPath}.merge`)).toBe(false);
  });

  it('leaves a conflicting file byte for byte as it was, writes the merge with markers beside it, and exits 1', async () => {
    const edited = (await readFile(indexPath, 'utf8')).replace(oldDoc, '/** My own words about getSession. */');
    await writeFile(indexPath, edited);
    const result = await update();
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain('1 file has conflicting changes, left as they were: src/auth/index.ts');
    expect(await readFile(indexPath, 'utf8')).toBe(edited);
    const merge = await readFile(`${indexPath}.merge`, 'utf8');
    expect(merge).toContain(['<<<<<<< yours', '/** My own words about getSession. */', '||||||| create-framework-auth 0.1.0 (base)', oldDoc, '=======', newDoc, '>>>>>>> create-framework-auth 0.1.0'].join('\n'));
    // The untouched files were updated all the same.
    expect(await readFile(join(root, 'src/auth/core/http/redirect.ts'), 'utf8')).not.toContain(oldRedirectLine);
  });

  it('merges cleanly once the conflict is resolved and the .merge file deleted', async () => {
    await writeFile(indexPath, (await readFile(indexPath, 'utf8')).replace(oldDoc, '/** Mine. */'));
    expect((await update()).exitCode).toBe(1);
    await rm(`${indexPath}.merge`);
    const again = await update();
    expect(again.exitCode).toBe(1);
    // Resolved the way the user chose: their line stays, and update accepts it against the new base.
    await writeFile(indexPath, (await readFile(indexPath, 'utf8')).replace('/** Mine. */', newDoc));
    await rm(`${indexPath}.merge`);
    const resolved = await update();
    expect(resolved.exitCode).toBe(0);
    const after = await snapshotTree(root);
    expect((await update()).exitCode).toBe(0);
    expect(await snapshotTree(root)).toEqual(after);
  });

  it('changes nothing when run again after an update', async () => {
    expect((await update()).exitCode).toBe(0);
    const before = await snapshotTree(root);
    const again = await update();
    expect(again.exitCode).toBe(0);
    expect(again.stdout).toContain('Already up to date.');
    expect(await snapshotTree(root)).toEqual(before);
  });

  it('--dry-run shows the plan and writes nothing', async () => {
    const before = await snapshotTree(root);
    const result = await update(['--dry-run']);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toMatch(/update +src\/auth\/core\/http\/redirect\.ts {2}\(not changed by you: replaced\)/);
    expect(result.stdout).toMatch(/update +src\/auth\/index\.ts {2}\(not changed by you: replaced\)/);
    expect(await snapshotTree(root)).toEqual(before);
  });

  it('--json prints one document with the conflicts and their merge files', async () => {
    await writeFile(indexPath, (await readFile(indexPath, 'utf8')).replace(oldDoc, '/** Mine. */'));
    const result = await update(['--json']);
    expect(result.exitCode).toBe(1);
    const document = parseJsonOutput(result.stdout);
    expect(document).toMatchObject({ command: 'update', ok: false, from: '0.1.0', to: '0.1.0' });
    const files = document.files as { updated: string[]; conflicts: unknown[] };
    expect(files.updated).toContain('src/auth/core/http/redirect.ts');
    expect(files.conflicts).toEqual([{ path: 'src/auth/index.ts', reason: expect.stringContaining('touch the same lines'), mergeFile: 'src/auth/index.ts.merge' }]);
  });

  it('prints the changelog entries between the recorded version and this one before its plan', async () => {
    await recordVersion('0.0.1');
    const result = await update(['--dry-run']);
    expect(result.exitCode).toBe(0);
    const heading = result.stdout.indexOf(`Changes from 0.0.1 to ${cliVersion} (CHANGELOG.md)`);
    expect(heading).toBeGreaterThan(-1);
    expect(heading).toBeLessThan(result.stdout.indexOf('Plan for'));
    expect(released.length).toBeGreaterThan(0);
    for (const release of released) {
      expect(result.stdout).toContain(`│  ${release.version} (${release.date})`);
      for (const entry of Object.values(release.sections).flat()) expect(result.stdout).toContain(`│  - ${entry}`);
    }
    const unreleased = changelog.find((release) => release.version === unreleasedVersion);
    for (const entry of Object.values(unreleased?.sections ?? {}).flat()) expect(result.stdout).not.toContain(entry);
  });

  it('--json carries the changelog entries between the recorded version and this one', async () => {
    await recordVersion('0.0.1');
    const result = await update(['--dry-run', '--json']);
    expect(result.exitCode).toBe(0);
    const document = parseJsonOutput(result.stdout);
    expect(document).toMatchObject({ from: '0.0.1', to: cliVersion });
    expect(document.changelog).toEqual(released.map(({ version, date, sections }) => ({ version, date, sections })));
  });

  it('prints no changelog when the project records this version', async () => {
    const result = await update(['--dry-run']);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).not.toContain('Changes from');
    expect(result.stdout).not.toContain('(CHANGELOG.md)');
  });

  it('--json carries an empty changelog when the project records this version', async () => {
    const result = await update(['--dry-run', '--json']);
    expect(result.exitCode).toBe(0);
    expect(parseJsonOutput(result.stdout).changelog).toEqual([]);
  });

  it('pins the project\'s create-framework-auth devDependency to this version', async () => {
    const path = join(root, 'package.json');
    await writeFile(path, (await readFile(path, 'utf8')).replace(/"create-framework-auth": "[^"]+"/, '"create-framework-auth": "0.0.9"'));
    expect((await update()).exitCode).toBe(0);
    const pkg = JSON.parse(await readFile(path, 'utf8')) as { devDependencies: Record<string, string> };
    expect(pkg.devDependencies['create-framework-auth']).toBe(cliVersion);
  });

  it('refuses a project without a manifest (exit 2), naming how to write one', async () => {
    await rm(join(root, 'framework-auth.json'));
    const before = await snapshotTree(root);
    const result = await update();
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('has no framework-auth.json');
    expect(await snapshotTree(root)).toEqual(before);
  });

  it('refuses a manifest it cannot read (exit 2)', async () => {
    await writeFile(join(root, 'framework-auth.json'), '{ "manifestFormat": 99 }');
    const result = await update();
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('framework-auth.json is not a manifest this CLI can read: manifestFormat is 99');
  });

  it('prints help with examples', async () => {
    const result = await update(['--help']);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('Examples:\n  $ npm install --save-dev create-framework-auth@latest && npx framework-auth update');
  });
});
