// Issue 48's CLI: `create-framework-auth --organizations`, `framework-auth add-organizations` and
// `remove-organizations`. The config gets `Organizations()`, src/auth/index.ts `requirePermission()`,
// `hasPermission()`, the types and the OrganizationPermissions declaration an app extends (a typo in a permission is a
// compile error), the starter server a link to <mount>/organizations and `GET /orgs/:slug`. Without an adapter it is
// refused before anything is written; doctor names memberships holding a role the config no longer defines.
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { addDryRun, addThenRemove, configWithFeature, createDryRun, createInFixture, createJson, doctorFinding, doctorOnFeatureByHand, expectAddAndRemoveAgainChangeNothing, expectAddRefused, expectCompiles, expectCreateRefused, expectRemovesWithOptions, featurePaths, homeLinks, manifestAnswers, removeDryRun, runWithAuthIndex, tsc, withInstalls } from './helpers/feature-cli.js';
import { parseJsonOutput } from './helpers/json-schema.js';
import { createApp, frameworkAuthIn, removeTempDirs } from './helpers/run-cli.js';

afterAll(removeTempDirs);

const frameworkAuth = frameworkAuthIn;
const create = createApp;

/** The feature's runtime files, as its folder in templates/runtime holds them. */
const organizationsPaths = (): string[] => featurePaths('organizations');

describe('organizations in the CLI: create --organizations', () => {
  it('writes Organizations() in the features, its runtime folder, and records it in the manifest', async () => {
    const root = await create(['--providers', 'password', '--adapter', 'sqlite', '--organizations']);
    await configWithFeature(root, 'organizations', 'Organizations');
    for (const path of organizationsPaths()) expect(existsSync(join(root, path)), path).toBe(true);
    // The security events it records come with it.
    expect(existsSync(join(root, 'src/auth/core/features/security-events/index.ts'))).toBe(true);
    expect(await manifestAnswers(root)).toEqual({ providers: ['password'], mount: '/auth', adapter: 'sqlite', organizations: true });
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
    await expectCompiles(root);

    // The app's own permission, declared as the comment in src/auth/index.ts shows, and a route guarded by it.
    const indexPath = join(root, 'src/auth/index.ts');
    await writeFile(indexPath, (await readFile(indexPath, 'utf8')).replace("    // 'project:create': true;", "    'project:create': true;"));
    const routes = join(root, 'src/projects.ts');
    const guard = (permission: string): string => `import { requirePermission } from './auth/index.js';\n\nexport const createProject = requirePermission('${permission}', { organization: (req) => req.params.slug });\n`;
    await writeFile(routes, guard('project:create'));
    await expectCompiles(root);

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
    await expectCreateRefused(['--providers', 'oidc', '--adapter', 'none', '--organizations'], [
      '--organizations needs a database adapter, but --adapter is "none": organizations, members and invitations are stored through the adapter.',
      '--adapter memory, sqlite, postgres',
    ]);
  });

  it('reports organizations in the answers of its --json document', async () => {
    const document = await createJson<{ answers: unknown; files: { created: string[] } }>(['--providers', 'password', '--adapter', 'memory', '--organizations']);
    expect(document).toMatchObject({ command: 'create', ok: true, dryRun: false, answers: { providers: ['password'], mount: '/auth', adapter: 'memory', organizations: true } });
    expect(document.files.created).toEqual(expect.arrayContaining([...organizationsPaths(), 'src/auth/config.ts', 'src/auth/index.ts', 'src/server.ts']));
  });

  it('prints its plan with --dry-run and writes nothing', async () => {
    const { document, text } = await createDryRun(['--providers', 'password', '--adapter', 'sqlite', '--organizations']);
    expect(document.answers['organizations']).toBe(true);
    expect(document.files.created).toEqual(expect.arrayContaining(organizationsPaths()));
    expect(text).toMatch(/create\s+src\/auth\/core\/features\/organizations\/access\.ts/);
  });
});

describe('organizations in the CLI: add-organizations and remove-organizations', () => {
  it('gives the same project created with --organizations as created and then given add-organizations; remove-organizations undoes it', async () => {
    const { added, removed, document } = await addThenRemove('organizations', ['--providers', 'oidc,password', '--adapter', 'postgres']);
    expect(added.stdout).toContain('Signed-in users create organizations, invite members and give them roles at /auth/organizations.');
    expect(added.stdout).toContain("requirePermission('organization:read', { organization: (req) => req.params.slug })");
    expect(added.stdout).toContain('npx framework-auth migrate');
    expect(document).toMatchObject({
      files: { updated: ['src/auth/config.ts', 'src/auth/index.ts', 'src/server.ts', 'framework-auth.json'], deleted: expect.arrayContaining(organizationsPaths()) },
    });
    expect(removed.stderr).toContain('The organizations, organization_members, organization_invitations and organization_events tables and sessions.active_organization_id keep their rows; nothing reads them any more.');
  });

  it('changes nothing when run again, and says so', async () => {
    await expectAddAndRemoveAgainChangeNothing('organizations', ['--providers', 'oidc', '--adapter', 'memory']);
  });

  it('prints its plan with --dry-run --json and writes nothing', async () => {
    const document = await addDryRun('organizations', await create(['--providers', 'oidc', '--adapter', 'sqlite']));
    expect(document.files.created).toEqual(expect.arrayContaining(organizationsPaths()));
    expect(document.files.updated).toEqual(expect.arrayContaining(['src/auth/config.ts', 'src/auth/index.ts', 'src/server.ts', 'framework-auth.json']));

    const text = await removeDryRun('organizations', await create(['--providers', 'oidc', '--adapter', 'sqlite', '--organizations']));
    expect(text).toMatch(/delete\s+src\/auth\/core\/features\/organizations\/access\.ts/);
  });

  it('add-organizations refuses a project without an adapter (exit 2), changing nothing', async () => {
    await expectAddRefused('organizations', await create(['--providers', 'oidc', '--adapter', 'none']), [
      'The organizations feature needs a database adapter, and src/auth/config.ts sets none: organizations, members and invitations are stored through the adapter.',
    ]);
  });

  it('removes Organizations(…) with the options the user gave it, and its import', async () => {
    await expectRemovesWithOptions('organizations', 'Organizations', "{\n    roles: { billing: ['organization:read'] },\n    maxMembers: 20,\n  }", ['--providers', 'oidc', '--adapter', 'memory']);
  });
});

describe('organizations in JavaScript projects', () => {
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
    const { root, index } = await createInFixture(fixture, ['--providers', 'password', '--adapter', 'memory', '--organizations'], importLine);
    // The declaration is the TypeScript's alone: in the declarations, not the JavaScript.
    expect(index).not.toContain('declare module');
    expect(await readFile(join(root, 'auth/index.d.ts'), 'utf8')).toContain("declare module './core/features/organizations/index.js' {");

    const result = await runWithAuthIndex<{ guard: string; hasPermission: string; refused: string }>(root, guards);
    expect(result.stderr).toBe('');
    const answer = result.answer();
    expect(answer).toMatchObject({ guard: 'function', hasPermission: 'function' });
    expect(answer.refused).toContain('requirePermission: no role grants the permission "projet:create"');
  }, 60_000);
});

describe('organizations in doctor', () => {
  it('says what is wrong with Organizations() in a config without an adapter, and how to fix it', async () => {
    const stdout = await doctorOnFeatureByHand('organizations', 'Organizations', ['--providers', 'oidc', '--adapter', 'none']);
    expect(stdout).toContain('✖ src/auth/config.ts has Organizations() but no adapter: the app refuses to start (its organizations, members and invitations live in the database).');
    expect(stdout).toContain('Set `adapter:` (npx create-framework-auth . --adapter sqlite), or run npx framework-auth remove-organizations.');
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
    const finding = (): ReturnType<typeof doctorFinding> => doctorFinding(root, 'organizations:database', ['doctor', '--json']);

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
