// One plan pipeline (issue 15): a planner per command under the generator returns a Plan, and the CLI's one apply
// step writes it. A new project is planned without the TypeScript compiler: create never reads back what it renders.
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';

vi.mock('../../src/generator/typescript-api.js', () => ({
  loadTypeScript: () => {
    throw new Error('the TypeScript compiler was loaded');
  },
}));

const { planCreate } = await import('../../src/generator/plan/create.js');
const { packageTemplateDirs } = await import('../../src/generator/paths.js');
const { readTemplates } = await import('../../src/generator/release.js');
const { readProject } = await import('../../src/generator/project/snapshot.js');


const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

describe('the plan pipeline', () => {
  it('plans a new project without loading TypeScript, with the answers as asked', async () => {
    // A folder that does not exist: readProject finds a new project there, and nothing is created.
    const root = join(tmpdir(), 'create-framework-auth-never-created', 'app');
    const answers = { providers: ['oidc', 'credentials'], mount: '/auth', adapter: 'none' } as const;
    const plan = planCreate({
      project: readProject(root),
      cwd: root,
      answers: { ...answers, providers: [...answers.providers] },
      force: false,
      release: { version: '0.1.0', templates: readTemplates(packageTemplateDirs) },
      packageManager: 'npm',
      packageManagerSource: 'default',
      install: false,
      convertEsm: false,
      secret: 'a-test-secret-of-forty-three-characters-xyz',
    });
    expect(plan.command).toBe('create');
    expect(plan.details['answers']).toEqual(answers);
    expect(plan.files.filter((file) => file.action !== 'create')).toEqual([]);
    const config = plan.files.find((file) => file.path === 'src/auth/config.ts');
    expect(config?.base).toBe(config?.content);
    expect(plan.install).toBeUndefined();
    expect(plan.callbackUrls).toEqual([{ provider: 'oidc', url: 'http://localhost:3000/auth/callback/oidc' }]);
    expect([...plan.env.fill].sort()).toEqual(['AUTH_OIDC_ID', 'AUTH_OIDC_ISSUER', 'AUTH_OIDC_SECRET']);
  });

  it('leaves writing to the one apply step: no writing command writes files itself', () => {
    for (const command of ['create', 'update', 'add-provider', 'remove-provider']) {
      const text = readFileSync(join(repoRoot, 'src/cli', `${command}.ts`), 'utf8');
      expect(text, command).toContain('applyPlan(plan, ui, io,');
      expect(text, command).not.toMatch(/writePlannedFiles|installDependencies|writeJson/);
    }
  });
});
