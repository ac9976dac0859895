// The planners are functions of a project snapshot and the user's intent (issue 24): readProject reads the project
// once, and nothing after it reads the disk. These tests plan create, add-provider and remove-provider on snapshots
// made in memory (snapshotOf), with no project folder anywhere: the project a plan would write is the next
// snapshot.
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { getProvider } from '../../src/catalog/providers.js';
import type { ProviderId } from '../../src/catalog/providers.js';
import type { AdapterId } from '../../src/catalog/adapters.js';
import type { Plan } from '../../src/generator/plan/plan.js';
import { packageTemplateDirs } from '../../src/generator/paths.js';
import { planAddProvider } from '../../src/generator/plan/add-provider.js';
import { planCreate } from '../../src/generator/plan/create.js';
import { planRemoveProvider } from '../../src/generator/plan/remove-provider.js';
import { planTwoFactor } from '../../src/generator/plan/two-factor.js';
import { parseManifest } from '../../src/generator/project/manifest.js';
import { readProjectShape } from '../../src/generator/project/shape.js';
import { snapshotOf } from '../../src/generator/project/snapshot.js';
import type { ProjectSnapshot } from '../../src/generator/project/snapshot.js';
import { loadTypeScript } from '../../src/generator/typescript-api.js';

const release = { version: '9.9.9', templates: packageTemplateDirs };
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
    previousManifest: undefined,
    secret: 'a-test-secret-of-forty-three-characters-xyz',
  });
  return applied(empty, plan);
}

function providerEdit(project: ProjectSnapshot, id: ProviderId) {
  const configText = project.files.get('src/auth/config.ts')!;
  const manifest = parseManifest(project.files.get('framework-auth.json')!);
  return { project, entry: getProvider(id), authDir: 'src/auth', configText, manifest, api, release };
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
    const { entry: _provider, ...edit } = providerEdit(without, 'password');
    const added = applied(without, planTwoFactor({ ...edit, install: undefined, on: true }));
    expect(Object.fromEntries(added.files)).toEqual(Object.fromEntries(created(['password'], 'sqlite', true).files));
    const { entry: _again, ...removal } = providerEdit(added, 'password');
    const removed = applied(added, planTwoFactor({ ...removal, install: undefined, on: false }));
    expect(Object.fromEntries(removed.files)).toEqual(Object.fromEntries(without.files));
  });

  it('refuses to read a file the snapshot does not cover (a planner that reached for the disk would be caught)', async () => {
    const { fileIn, readProject } = await import('../../src/generator/project/snapshot.js');
    const read = readProject(root);
    expect(read.exists).toBe(false);
    expect(fileIn(read, 'package.json')).toBeUndefined();
    expect(() => fileIn(read, 'docs/notes.md')).toThrow('readProject did not read docs/notes.md');
  });
});
