// Issue 48's CLI: `create-framework-auth --organizations`, `framework-auth add-organizations` and
// `remove-organizations`. The config gets `Organizations()`, src/auth/index.ts `requirePermission()`,
// `hasPermission()`, the types and the OrganizationPermissions declaration an app extends (a typo in a permission is a
// compile error), the starter server a link to <mount>/organizations and `GET /orgs/:slug`. Without an adapter it is
// refused before anything is written; doctor names memberships holding a role the config no longer defines.
import { existsSync, readdirSync } from 'node:fs';
import { cp, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { cliPackageRoot, runtimeTemplateDir } from '../../src/generator/paths.js';
import { parseJsonOutput, parseManifestJson } from './helpers/json-schema.js';
import { projectTree } from './helpers/project-tree.js';
import { createApp, frameworkAuthIn, makeTempDir, removeTempDirs, runInProcess } from './helpers/run-cli.js';

afterAll(removeTempDirs);

const tree = projectTree;
const frameworkAuth = frameworkAuthIn;
const create = createApp;
const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

/** The feature's runtime files, as its folder in templates/runtime holds them. */
const organizationsPaths = (): string[] =>
  readdirSync(join(runtimeTemplateDir, 'features/organizations'))
    .filter((file) => file.endsWith('.ts'))
    .map((file) => `src/auth/core/features/organizations/${file}`);
const homeLinks = (server: string): string => /const links = user\n\s+\? `([^`]*)`/.exec(server)?.[1] ?? '';

/** This repo's installs stand in for npm install. */
async function withInstalls(root: string): Promise<string> {
  await symlink(join(cliPackageRoot, 'node_modules'), join(root, 'node_modules'), 'dir');
  return root;
}

async function tsc(root: string): Promise<{ exitCode: number | undefined; all: string }> {
  const result = await execa(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', root, '--noEmit'], { reject: false, all: true });
  return { exitCode: result.exitCode, all: String(result.all) };
}

describe('organizations in the CLI: create --organizations', () => {
  it('writes Organizations() in the features, its runtime folder, and records it in the manifest', async () => {
    const root = await create(['--providers', 'password', '--adapter', 'sqlite', '--organizations']);
    const config = await readFile(join(root, 'src/auth/config.ts'), 'utf8');
    expect(config).toContain("import { Organizations } from './core/features/organizations/index.js';");
    expect(config).toContain('  features: [Organizations()],\n');
    for (const path of organizationsPaths()) expect(existsSync(join(root, path)), path).toBe(true);
    // The security events it records come with it.
    expect(existsSync(join(root, 'src/auth/core/features/security-events/index.ts'))).toBe(true);
    expect(parseManifestJson(await readFile(join(root, 'framework-auth.json'), 'utf8')).answers).toEqual({ providers: ['password'], mount: '/auth', adapter: 'sqlite', organizations: true });
  });

  it('writes it after the other features, in catalog order', async () => {
    const root = await create(['--providers', 'password', '--adapter', 'sqlite', '--organizations', '--api-keys', '--account']);
    expect(await readFile(join(root, 'src/auth/config.ts'), 'utf8')).toContain("  features: [ApiKeys({ scopes: ['read', 'write'] }), Account(), Organizations()],\n");
  });

  it('exports requirePermission(), hasPermission(), the types and the declaration an app extends from src/auth/index.ts', async () => {
    const root = await create(['--providers', 'oidc', '--adapter', 'memory', '--organizations']);
    const index = await readFile(join(root, 'src/auth/index.ts'), 'utf8');
    expect(index).toContain("import { createRequirePermission, hasPermissionFor } from './core/features/organizations/index.js';");
    expect(index).toContain("export type { OrganizationPermissions, Permission, RequirePermissionOptions, SessionOrganization } from './core/features/organizations/index.js';");
    expect(index).toContain(
      [
        "declare module './core/features/organizations/index.js' {",
        '  interface OrganizationPermissions {',
        "    // 'project:create': true;",
        '  }',
        '}',
      ].join('\n'),
    );
    expect(index).toContain(
      [
        'export function requirePermission(permissions: Permission | readonly Permission[], options?: RequirePermissionOptions): RequestHandler {',
        '  return createRequirePermission(authConfig, permissions, options);',
        '}',
      ].join('\n'),
    );
    expect(index).toContain(
      [
        'export function hasPermission(req: Request, permission: Permission, organization?: string): Promise<boolean> {',
        '  return hasPermissionFor(req, authConfig, permission, organization);',
        '}',
      ].join('\n'),
    );
    expect(index).toContain("roles are managed at '/auth/organizations'.");
  });

  it('gives the starter server GET /orgs/:slug, guarded by requirePermission(\'organization:read\'), and a link to <mount>/organizations', async () => {
    const root = await create(['--providers', 'password', '--adapter', 'sqlite', '--mount', '/api/auth', '--organizations']);
    const server = await readFile(join(root, 'src/server.ts'), 'utf8');
    expect(server).toContain("import { authHandler, requireAuth, requirePermission, sessionLocals } from './auth/index.js';");
    expect(server).toContain(
      [
        "app.get('/orgs/:slug', requirePermission('organization:read', { organization: (req) => req.params.slug }), (_req, res) => {",
        '  const { id, slug, name, role } = res.locals.organization;',
        '  res.json({ organization: { id, slug, name }, role });',
        '});',
      ].join('\n'),
    );
    expect(homeLinks(server)).toBe(
      "<a href=\"/me\">/me</a> · <a href='/api/auth/sessions'>Your sessions</a> · <a href='/api/auth/organizations'>Organizations</a> · <a href='/api/auth/signout'>Sign out</a>",
    );
  });

  it('writes nothing of it in a project without it', async () => {
    const root = await create(['--providers', 'password', '--adapter', 'sqlite']);
    expect(existsSync(join(root, 'src/auth/core/features/organizations'))).toBe(false);
    expect(await readFile(join(root, 'src/auth/config.ts'), 'utf8')).not.toContain('Organizations');
    expect(await readFile(join(root, 'src/auth/index.ts'), 'utf8')).not.toMatch(/organizations|Permission/);
    const server = await readFile(join(root, 'src/server.ts'), 'utf8');
    expect(server).toContain("import { authHandler, requireAuth, sessionLocals } from './auth/index.js';");
    expect(server).not.toMatch(/orgs|requirePermission|Organizations/);
  });

  it('compiles with tsc, and a permission no declaration names does not', async () => {
    const root = await withInstalls(await create(['--providers', 'password', '--adapter', 'sqlite', '--organizations']));
    const compiled = await tsc(root);
    expect(compiled.all).toBe('');
    expect(compiled.exitCode).toBe(0);

    // The app's own permission, declared as the comment in src/auth/index.ts shows, and a route guarded by it.
    const indexPath = join(root, 'src/auth/index.ts');
    await writeFile(indexPath, (await readFile(indexPath, 'utf8')).replace("    // 'project:create': true;", "    'project:create': true;"));
    const routes = join(root, 'src/projects.ts');
    const guard = (permission: string): string => `import { requirePermission } from './auth/index.js';\n\nexport const createProject = requirePermission('${permission}', { organization: (req) => req.params.slug });\n`;
    await writeFile(routes, guard('project:create'));
    const declared = await tsc(root);
    expect(declared.all).toBe('');
    expect(declared.exitCode).toBe(0);

    await writeFile(routes, guard('projet:create'));
    const typo = await tsc(root);
    expect(typo.exitCode).toBe(2);
    expect(typo.all).toContain("src/projects.ts(3,48): error TS2345: Argument of type '\"projet:create\"' is not assignable to parameter of type 'Permission | readonly Permission[]'.");

    // Without the declaration, the app's permission is a typo too.
    await writeFile(indexPath, (await readFile(indexPath, 'utf8')).replace("    'project:create': true;", "    // 'project:create': true;"));
    await writeFile(routes, guard('project:create'));
    expect((await tsc(root)).all).toContain("Argument of type '\"project:create\"' is not assignable");
  }, 300_000);

  it('refuses --organizations with --adapter none before writing anything (exit 2), saying why', async () => {
    const parent = await makeTempDir();
    const result = await runInProcess('create-framework-auth', ['app', '--yes', '--no-install', '--providers', 'oidc', '--adapter', 'none', '--organizations'], { cwd: parent });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('--organizations needs a database adapter, but --adapter is "none": organizations, members and invitations are stored through the adapter.');
    expect(result.stderr).toContain('--adapter memory, sqlite, postgres');
    expect(await readdir(parent)).toEqual([]);
  });

  it('reports organizations in the answers of its --json document', async () => {
    const parent = await makeTempDir();
    const result = await runInProcess('create-framework-auth', ['app', '--yes', '--no-install', '--providers', 'password', '--adapter', 'memory', '--organizations', '--json'], { cwd: parent });
    expect(result.exitCode, result.stderr).toBe(0);
    const document = parseJsonOutput(result.stdout) as { answers: unknown; files: { created: string[] } };
    expect(document).toMatchObject({ command: 'create', ok: true, dryRun: false, answers: { providers: ['password'], mount: '/auth', adapter: 'memory', organizations: true } });
    expect(document.files.created).toEqual(expect.arrayContaining([...organizationsPaths(), 'src/auth/config.ts', 'src/auth/index.ts', 'src/server.ts']));
  });

  it('prints its plan with --dry-run and writes nothing', async () => {
    const parent = await makeTempDir();
    const flags = ['app', '--yes', '--no-install', '--providers', 'password', '--adapter', 'sqlite', '--organizations', '--dry-run'];
    const result = await runInProcess('create-framework-auth', [...flags, '--json'], { cwd: parent });
    expect(result.exitCode, result.stderr).toBe(0);
    const document = parseJsonOutput(result.stdout) as { dryRun: boolean; answers: { organizations?: boolean }; files: { created: string[] } };
    expect(document.dryRun).toBe(true);
    expect(document.answers.organizations).toBe(true);
    expect(document.files.created).toEqual(expect.arrayContaining(organizationsPaths()));
    expect(await readdir(parent)).toEqual([]);

    const text = await runInProcess('create-framework-auth', flags, { cwd: parent });
    expect(text.exitCode, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/create\s+src\/auth\/core\/features\/organizations\/access\.ts/);
    expect(text.stdout).toContain('Dry run: nothing was written.');
    expect(await readdir(parent)).toEqual([]);
  });
});

describe('organizations in the CLI: add-organizations and remove-organizations', () => {
  it('gives the same project created with --organizations as created and then given add-organizations; remove-organizations undoes it', async () => {
    const together = await create(['--providers', 'oidc,password', '--adapter', 'postgres', '--organizations']);
    const added = await create(['--providers', 'oidc,password', '--adapter', 'postgres']);
    const without = await tree(added);
    const result = await frameworkAuth(['add-organizations', '--no-install'], added);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).toContain('Signed-in users create organizations, invite members and give them roles at /auth/organizations.');
    expect(result.stdout).toContain("requirePermission('organization:read', { organization: (req) => req.params.slug })");
    expect(result.stdout).toContain('npx framework-auth migrate');
    expect(await tree(added)).toEqual(await tree(together));

    const removed = await frameworkAuth(['remove-organizations', '--json'], added);
    expect(removed.exitCode, removed.stderr).toBe(0);
    expect(parseJsonOutput(removed.stdout)).toMatchObject({
      command: 'remove-organizations',
      organizations: false,
      files: { updated: ['src/auth/config.ts', 'src/auth/index.ts', 'src/server.ts', 'framework-auth.json'], deleted: expect.arrayContaining(organizationsPaths()) },
    });
    expect(removed.stderr).toContain('The organizations, organization_members, organization_invitations and organization_events tables and sessions.active_organization_id keep their rows; nothing reads them any more.');
    expect(await tree(added)).toEqual(without);
  });

  it('changes nothing when run again, and says so', async () => {
    const root = await create(['--providers', 'oidc', '--adapter', 'memory', '--organizations']);
    const before = await tree(root);
    const again = await frameworkAuth(['add-organizations', '--no-install', '--json'], root);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(parseJsonOutput(again.stdout)).toMatchObject({ command: 'add-organizations', organizations: true, files: { created: [], updated: [], deleted: [] } });
    expect(again.stderr).toContain('The organizations feature is already in src/auth/config.ts; nothing changed.');
    expect(await tree(root)).toEqual(before);

    expect((await frameworkAuth(['remove-organizations'], root)).exitCode).toBe(0);
    const removed = await tree(root);
    const twice = await frameworkAuth(['remove-organizations'], root);
    expect(twice.exitCode, twice.stderr).toBe(0);
    expect(twice.stdout).toContain('The organizations feature is not in src/auth/config.ts; nothing to remove.');
    expect(await tree(root)).toEqual(removed);
  });

  it('prints its plan with --dry-run --json and writes nothing', async () => {
    const root = await create(['--providers', 'oidc', '--adapter', 'sqlite']);
    const before = await tree(root);
    const result = await frameworkAuth(['add-organizations', '--dry-run', '--json'], root);
    expect(result.exitCode, result.stderr).toBe(0);
    const document = parseJsonOutput(result.stdout) as { files: { created: string[]; updated: string[] }; env: { added: string[] } };
    expect(document).toMatchObject({ command: 'add-organizations', dryRun: true, organizations: true });
    expect(document.files.created).toEqual(expect.arrayContaining(organizationsPaths()));
    expect(document.files.updated).toEqual(expect.arrayContaining(['src/auth/config.ts', 'src/auth/index.ts', 'src/server.ts', 'framework-auth.json']));
    expect(await tree(root)).toEqual(before);

    const text = await frameworkAuth(['remove-organizations', '--dry-run'], await create(['--providers', 'oidc', '--adapter', 'sqlite', '--organizations']));
    expect(text.exitCode, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/delete\s+src\/auth\/core\/features\/organizations\/access\.ts/);
    expect(text.stdout).toContain('Dry run: nothing was written.');
  });

  it('add-organizations refuses a project without an adapter (exit 2), changing nothing', async () => {
    const root = await create(['--providers', 'oidc', '--adapter', 'none']);
    const before = await tree(root);
    const result = await frameworkAuth(['add-organizations'], root);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('The organizations feature needs a database adapter, and src/auth/config.ts sets none: organizations, members and invitations are stored through the adapter.');
    expect(await tree(root)).toEqual(before);
  });

  it('removes Organizations(…) with the options the user gave it, and its import', async () => {
    const root = await create(['--providers', 'oidc', '--adapter', 'memory']);
    const configPath = join(root, 'src/auth/config.ts');
    const before = await readFile(configPath, 'utf8');
    expect((await frameworkAuth(['add-organizations', '--no-install'], root)).exitCode).toBe(0);
    await writeFile(configPath, (await readFile(configPath, 'utf8')).replace('Organizations()', "Organizations({\n    roles: { billing: ['organization:read'] },\n    maxMembers: 20,\n  })"));
    const removed = await frameworkAuth(['remove-organizations'], root);
    expect(removed.exitCode, removed.stderr).toBe(0);
    expect(await readFile(configPath, 'utf8')).toBe(before);
  });
});

describe('organizations in JavaScript projects', () => {
  async function copyFixture(name: string): Promise<string> {
    const target = join(await makeTempDir('cfa-js-'), name);
    await cp(join(repoRoot, 'test/fixtures', name), target, { recursive: true });
    return target;
  }

  /** Imports the auth module in the project and makes two guards: one the config grants, one with a typo. */
  const guards = `
    const auth = await import(process.env.AUTH_INDEX);
    const guard = auth.requirePermission('organization:read', { organization: (req) => req.params.slug });
    let refused = '';
    try { auth.requirePermission('projet:create'); } catch (error) { refused = error.message; }
    console.log(JSON.stringify({ guard: typeof guard, hasPermission: typeof auth.hasPermission, refused }));
  `;

  it.each([
    ['js-express5-esm', "import { createRequirePermission, hasPermissionFor } from './core/features/organizations/index.js';"],
    ['js-express4-cjs', "const { createRequirePermission, hasPermissionFor } = require('./core/features/organizations/index.js');"],
  ])('%s: create --organizations writes requirePermission() and hasPermission() in its module system, which refuse a typo when the guard is made', async (fixture, importLine) => {
    const root = await copyFixture(fixture);
    const made = await runInProcess('create-framework-auth', ['.', '--yes', '--no-install', '--providers', 'password', '--adapter', 'memory', '--organizations'], { cwd: root });
    expect(made.exitCode, made.stderr).toBe(0);
    const index = await readFile(join(root, 'auth/index.js'), 'utf8');
    expect(index).toContain(importLine);
    // The declaration is the TypeScript's alone: in the declarations, not the JavaScript.
    expect(index).not.toContain('declare module');
    expect(await readFile(join(root, 'auth/index.d.ts'), 'utf8')).toContain("declare module './core/features/organizations/index.js' {");

    await withInstalls(root);
    const result = await execa(process.execPath, ['--input-type=module', '--eval', guards], {
      cwd: root,
      env: { AUTH_INDEX: join(root, 'auth/index.js'), AUTH_SECRET: 'a'.repeat(43), AUTH_URL: 'http://localhost:3000' },
      reject: false,
    });
    expect(result.stderr).toBe('');
    const answer = JSON.parse(String(result.stdout).trim().split('\n').at(-1)!) as { guard: string; hasPermission: string; refused: string };
    expect(answer).toMatchObject({ guard: 'function', hasPermission: 'function' });
    expect(answer.refused).toContain('requirePermission: no role grants the permission "projet:create"');
  }, 60_000);
});

describe('organizations in doctor', () => {
  it('says what is wrong with Organizations() in a config without an adapter, and how to fix it', async () => {
    const root = await create(['--providers', 'oidc', '--adapter', 'none']);
    const configPath = join(root, 'src/auth/config.ts');
    const config = await readFile(configPath, 'utf8');
    await writeFile(configPath, config.replace("import './env.js';", "import './env.js';\nimport { Organizations } from './core/features/organizations/index.js';").replace(/\n};\s*$/, '\n  features: [Organizations()],\n};\n'));
    const result = await frameworkAuth(['doctor', '--offline'], root);
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toContain('✖ src/auth/config.ts has Organizations() but no adapter: the app refuses to start (its organizations, members and invitations live in the database).');
    expect(result.stdout).toContain('Set `adapter:` (npx create-framework-auth . --adapter sqlite), or run npx framework-auth remove-organizations.');
  });

  it('is what update and doctor --offline find: nothing to update, the feature configured, the database not asked', async () => {
    const root = await create(['--providers', 'password', '--adapter', 'sqlite', '--organizations']);
    const doctor = await frameworkAuth(['doctor', '--offline'], root);
    expect(doctor.stdout).toContain('✔ Organizations are configured; users manage them at /auth/organizations.');
    expect(doctor.stdout).toContain('✔ The organizations feature: the database was not asked (--offline).');
    const update = await frameworkAuth(['update', '--json'], root);
    expect(update.exitCode, update.stderr).toBe(0);
    expect(parseJsonOutput(update.stdout)).toMatchObject({ command: 'update', ok: true, files: { created: [], updated: [], deleted: [] } });
  });

  it('names the memberships whose role the config no longer defines, read from the SQLite database with the project\'s code', async () => {
    const root = await withInstalls(await create(['--providers', 'password', '--adapter', 'sqlite', '--organizations']));
    const finding = async (): Promise<{ status: string; message: string; fix?: string } | undefined> => {
      const result = await frameworkAuth(['doctor', '--json'], root);
      const found = (parseJsonOutput(result.stdout) as { findings: { id: string; status: string; message: string; fix?: string }[] }).findings.find((each) => each.id === 'organizations:database');
      if (!found) return undefined;
      const { id: _id, ...rest } = found;
      return rest;
    };

    // No database yet: doctor asks nothing of it (its first use would create the tables), and creates nothing.
    expect(await finding()).toEqual({
      status: 'warn',
      message: expect.stringMatching(/^The organizations feature: the database lacks \d+ migration steps, so its rows were not read\.$/),
      fix: 'Run npx framework-auth migrate (or start the app once), then doctor again.',
    });
    expect(existsSync(join(root, 'data/auth.db'))).toBe(false);

    expect((await frameworkAuth(['migrate'], root)).exitCode).toBe(0);
    expect(await finding()).toEqual({ status: 'ok', message: 'Organizations: every membership holds a role the config defines.' });

    // Members whose role a config of the past defined.
    const database = new Database(join(root, 'data/auth.db'));
    const now = Date.now();
    for (const id of ['u1', 'u2', 'u3']) database.prepare('INSERT INTO users (id, email) VALUES (?, ?)').run(id, `${id}@example.com`);
    database.prepare('INSERT INTO organizations (id, slug, name, created_at) VALUES (?, ?, ?, ?)').run('o1', 'acme', 'Acme', now);
    const member = database.prepare('INSERT INTO organization_members (organization_id, user_id, role, created_at) VALUES (?, ?, ?, ?)');
    member.run('o1', 'u1', 'owner', now);
    member.run('o1', 'u2', 'billing', now);
    member.run('o1', 'u3', 'billing', now);
    database.close();
    expect(await finding()).toEqual({
      status: 'warn',
      message: 'Organizations: memberships hold roles that Organizations({ roles }) in src/auth/config.ts does not define, which grant nothing: "billing" (2 members).',
      fix: 'Define them again in Organizations({ roles }), or give those members another role at /auth/organizations/<slug>.',
    });
    const text = await frameworkAuth(['doctor'], root);
    expect(text.stdout).toContain('▲ Organizations: memberships hold roles that Organizations({ roles }) in src/auth/config.ts does not define, which grant nothing: "billing" (2 members).');

    // Defined again in the config: nothing to say.
    const configPath = join(root, 'src/auth/config.ts');
    await writeFile(configPath, (await readFile(configPath, 'utf8')).replace('Organizations()', "Organizations({ roles: { billing: ['organization:read'] } })"));
    expect((await finding())?.status).toBe('ok');
  }, 120_000);
});
