// The planners are functions of a project snapshot and the user's intent (issue 24): readProject reads the project
// once, and nothing after it reads the disk. These tests plan create, add-provider and remove-provider on snapshots
// made in memory (snapshotOf), with no project folder anywhere: the project a plan would write is the next
// snapshot. Issue 35: the config and the manifest come from the snapshot too, the templates and the secret are
// inputs, and the planners run with the file system closed.
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { getProvider } from '../../src/catalog/providers.js';
import type { ProviderId } from '../../src/catalog/providers.js';
import type { AdapterId } from '../../src/catalog/adapters.js';
import type { Plan } from '../../src/generator/plan/plan.js';
import { packageTemplateDirs } from '../../src/generator/paths.js';
import { readTemplates } from '../../src/generator/release.js';
import { planAddProvider } from '../../src/generator/plan/add-provider.js';
import { planCreate } from '../../src/generator/plan/create.js';
import { planRemoveProvider } from '../../src/generator/plan/remove-provider.js';
import { getFeature } from '../../src/catalog/features.js';
import { planFeature } from '../../src/generator/plan/feature.js';
import { readProjectShape } from '../../src/generator/project/shape.js';
import { snapshotOf } from '../../src/generator/project/snapshot.js';
import type { ProjectSnapshot } from '../../src/generator/project/snapshot.js';
import { loadTypeScript } from '../../src/generator/typescript-api.js';

const release = { version: '9.9.9', templates: readTemplates(packageTemplateDirs) };
const twoFactor = getFeature('two-factor');
const api = loadTypeScript(fileURLToPath(new URL('../..', import.meta.url)))!;
// A folder that does not exist: the layout of a new project, read without creating anything.
const root = join(tmpdir(), 'create-framework-auth-planners-never-created', 'app');
const newLayout = readProjectShape(root, { packageJson: undefined, typescript: () => api });

/** The project a plan leaves: the snapshot's files with the plan's writes and deletions applied. */
function applied(project: ProjectSnapshot, plan: Plan): ProjectSnapshot {
  const files = Object.fromEntries(project.files);
  for (const file of plan.files) {
    if (file.action === 'delete') delete files[file.path];
    else if (file.action !== 'conflict') files[file.path] = file.content;
  }
  return snapshotOf({ root, files, shape: project.shape, typescript: () => api });
}

function created(providers: ProviderId[], adapter: AdapterId, twoFactor = false): ProjectSnapshot {
  const empty = snapshotOf({ root, shape: newLayout, typescript: () => api });
  const plan = planCreate({
    project: empty,
    cwd: root,
    answers: { providers, mount: '/auth', adapter, ...(twoFactor && { twoFactor }) },
    force: false,
    release,
    packageManager: 'npm',
    packageManagerSource: 'default',
    install: false,
    convertEsm: false,
    secret: 'a-test-secret-of-forty-three-characters-xyz',
  });
  return applied(empty, plan);
}

/** What add-provider and remove-provider plan from: the snapshot (its config and manifest in it), the compiler, the release. */
function providerEdit(project: ProjectSnapshot, id: ProviderId) {
  return { project, entry: getProvider(id), api, release };
}

/** The file system functions a planner could read or probe the disk with. */
const diskReaders = ['readFileSync', 'readdirSync', 'existsSync', 'statSync', 'lstatSync', 'opendirSync', 'realpathSync', 'accessSync', 'openSync'] as const;

/** Runs `plan` with those functions throwing (their ES module bindings too), and gives them back after. */
function withDiskClosed<T>(plan: () => T): T {
  const saved = diskReaders.map((name) => [name, fs[name]] as const);
  for (const name of diskReaders) {
    (fs as unknown as Record<string, unknown>)[name] = (path: unknown) => {
      throw new Error(`a planner called fs.${name}(${String(path)})`);
    };
  }
  syncBuiltinESMExports();
  try {
    return plan();
  } finally {
    for (const [name, original] of saved) (fs as unknown as Record<string, unknown>)[name] = original;
    syncBuiltinESMExports();
  }
}

/** The runtime files of a project snapshot (below src/auth/core/), with their texts. */
function runtimeOf(project: ProjectSnapshot): Record<string, string> {
  return Object.fromEntries([...project.files].filter(([path]) => path.startsWith('src/auth/core/')).sort(([a], [b]) => a.localeCompare(b)));
}

describe('the planners on snapshots made in memory', () => {
  it('plan a new project from an empty snapshot: every file created, nothing read from disk', () => {
    const project = created(['oidc'], 'none');
    expect(project.files.get('src/auth/core/index.ts')).toMatch(/^\/\/ Copied from create-framework-auth 9\.9\.9/);
    expect([...project.files.keys()].filter((path) => path.startsWith('src/auth/core/features/'))).toEqual([]);
    expect(project.files.get('.env')).toMatch(/^AUTH_SECRET=/m);
  });

  it('add the email provider as "create with email" would: the same runtime files, config entry and env keys', () => {
    const added = applied(created(['oidc'], 'sqlite'), planAddProvider({ ...providerEdit(created(['oidc'], 'sqlite'), 'email'), install: undefined }));
    const together = created(['oidc', 'email'], 'sqlite');
    expect(runtimeOf(added)).toEqual(runtimeOf(together));
    expect(added.files.get('src/auth/config.ts')).toBe(together.files.get('src/auth/config.ts'));
    expect(added.files.get('.env.example')).toBe(together.files.get('.env.example'));
    expect(added.files.get('package.json')).toBe(together.files.get('package.json'));
  });

  it('remove the email provider again: back to the runtime files, env keys and dependencies of the project without it', () => {
    const withEmail = created(['oidc', 'email'], 'sqlite');
    const removed = applied(withEmail, planRemoveProvider({ ...providerEdit(withEmail, 'email'), purgeEnv: true }));
    const without = created(['oidc'], 'sqlite');
    expect(runtimeOf(removed)).toEqual(runtimeOf(without));
    expect(removed.files.get('.env.example')).toBe(without.files.get('.env.example'));
    expect(JSON.parse(removed.files.get('package.json')!)).toEqual(JSON.parse(without.files.get('package.json')!));
  });

  it('add two-factor as "create with two-factor" would, and remove it again: the same files both ways (issue 35)', () => {
    const without = created(['password'], 'sqlite');
    const added = applied(without, planFeature({ project: without, api, release, install: undefined, feature: twoFactor, on: true }));
    expect(Object.fromEntries(added.files)).toEqual(Object.fromEntries(created(['password'], 'sqlite', true).files));
    const removed = applied(added, planFeature({ project: added, api, release, install: undefined, feature: twoFactor, on: false }));
    expect(Object.fromEntries(removed.files)).toEqual(Object.fromEntries(without.files));
  });

  it('plans create, add-provider, remove-provider and both two-factor commands with the file system closed (issue 35)', () => {
    const project = created(['oidc', 'credentials'], 'sqlite');
    const plans = withDiskClosed(() => [
      created(['oidc'], 'memory', false),
      planAddProvider({ ...providerEdit(project, 'github'), install: undefined }),
      planRemoveProvider({ ...providerEdit(project, 'credentials'), purgeEnv: false }),
      planFeature({ project, api, release, install: undefined, feature: twoFactor, on: true }),
      planFeature({ project, api, release, install: undefined, feature: twoFactor, on: false }),
    ]);
    expect(plans).toHaveLength(5);
    // The check itself works: a module that imports readdirSync by name (as the template reader does) is caught.
    expect(() => withDiskClosed(() => readTemplates(packageTemplateDirs))).toThrow('a planner called fs.readdirSync(');
  });

  it('reads the config and the manifest from the snapshot, not from the disk (issue 35)', () => {
    const project = created(['oidc'], 'sqlite');
    const files = Object.fromEntries(project.files);
    // The user's comment, in the snapshot only: the edit keeps it.
    files['src/auth/config.ts'] = files['src/auth/config.ts']!.replace('    OIDC(),', '    OIDC(), // the company IdP');
    const edited = snapshotOf({ root, files, shape: project.shape, typescript: () => api });
    const plan = withDiskClosed(() => planAddProvider({ ...providerEdit(edited, 'github'), install: undefined }));
    const config = plan.files.find((file) => file.path === 'src/auth/config.ts')!;
    expect(config.content).toContain('    OIDC(), // the company IdP\n    GitHub(),\n');
    // The manifest it writes is the snapshot's, with the new answers.
    const manifest = JSON.parse(plan.files.find((file) => file.path === 'framework-auth.json')!.content) as { answers: unknown; files: Record<string, unknown> };
    expect(manifest.answers).toEqual({ providers: ['oidc', 'github'], mount: '/auth', adapter: 'sqlite' });
    expect(Object.keys(manifest.files)).toEqual(expect.arrayContaining(Object.keys(edited.manifest!.files)));
  });

  it('refuses to read a file the snapshot does not cover (a planner that reached for the disk would be caught)', async () => {
    const { fileIn, readProject } = await import('../../src/generator/project/snapshot.js');
    const read = readProject(root);
    expect(read.exists).toBe(false);
    expect(fileIn(read, 'package.json')).toBeUndefined();
    expect(() => fileIn(read, 'docs/notes.md')).toThrow('readProject did not read docs/notes.md');
  });
});
