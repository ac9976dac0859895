// Issue 36 item 3: a TypeScript project that tsc compiles to CommonJS is extended as it is. The auth module stays
// TypeScript and compiles with the project's own settings; package.json keeps its "type"; tsconfig.json changes only
// where tsc would refuse the import of an ES module from CommonJS. Node older than require(esm) is told what to
// install, by create before anything is written and by doctor (the version is injected, never the machine's).
import { cp, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { checkNode } from '../../src/cli/doctor.js';
import { requireEsmNodeProblem, supportsRequireEsm } from '../../src/cli/node-version.js';
import { cliPackageRoot } from '../../src/generator/paths.js';
import { snapshotTree } from '../e2e/helpers/project.js';
import { makeTempDir, removeTempDirs, runInProcess } from './helpers/run-cli.js';

afterAll(removeTempDirs);

const fixtureDir = fileURLToPath(new URL('../fixtures/ts-express5-commonjs/', import.meta.url));

/** A copy of the fixture, its compilerOptions changed by `options` (a key set to null is removed). */
async function fixture(options: Record<string, unknown> = {}): Promise<string> {
  const root = join(await makeTempDir('cfa-tscjs-'), 'orders');
  await cp(fixtureDir, root, { recursive: true });
  if (Object.keys(options).length > 0) {
    const path = join(root, 'tsconfig.json');
    const config = JSON.parse(await readFile(path, 'utf8')) as { compilerOptions: Record<string, unknown> };
    for (const [key, value] of Object.entries(options)) {
      if (value === null) delete config.compilerOptions[key];
      else config.compilerOptions[key] = value;
    }
    await writeFile(path, `${JSON.stringify(config, null, 2)}\n`);
  }
  return root;
}

const create = (root: string, nodeVersion = '20.19.0', argv: readonly string[] = []) =>
  runInProcess('create-framework-auth', ['--yes', '--no-install', ...argv], { cwd: root, nodeVersion });

/** The project's own tsc (this repo's TypeScript, linked as its node_modules) with --noEmit. */
async function typecheck(root: string): Promise<{ exitCode: number; output: string }> {
  const result = await execa(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', root, '--noEmit'], { reject: false, all: true });
  return { exitCode: result.exitCode ?? -1, output: String(result.all ?? '') };
}

describe('create-framework-auth in TypeScript compiled to CommonJS', () => {
  it('keeps package.json without "type" and tsconfig.json as it is', async () => {
    const root = await fixture();
    const tsconfig = await readFile(join(root, 'tsconfig.json'), 'utf8');
    const result = await create(root);
    expect(result.stderr).toBe('');
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('CommonJS TypeScript (tsconfig.json "module": "commonjs"): the auth module stays TypeScript and compiles to CommonJS with your settings');
    const pkg = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as Record<string, unknown>;
    expect(pkg).not.toHaveProperty('type');
    expect(pkg.dependencies).toMatchObject({ express: '^5.1.0', jose: expect.any(String), oauth4webapi: expect.any(String) });
    expect(await readFile(join(root, 'tsconfig.json'), 'utf8')).toBe(tsconfig);
  });

  it('leaves the sources alone and prints the import for the file that makes the app', async () => {
    const root = await fixture();
    const result = await create(root);
    for (const file of ['src/index.ts', 'src/app.ts', 'src/routes/orders.ts']) {
      expect(await readFile(join(root, file), 'utf8')).toBe(await readFile(join(fixtureDir, file), 'utf8'));
    }
    expect(result.stdout).toContain('Mount the auth module in src/app.ts:');
    expect(result.stdout).toContain("import { authHandler, requireAuth, sessionLocals } from './auth/index.js';");
    expect(result.stdout).toContain("app.use('/auth/*splat', authHandler);");
  });

  it('changes nothing when run again', async () => {
    const root = await fixture();
    expect((await create(root)).exitCode).toBe(0);
    const before = await snapshotTree(root);
    const again = await create(root);
    expect(again.stdout).toContain('Nothing to write: the project is up to date');
    expect(await snapshotTree(root)).toEqual(before);
  });

  it('moves "module": "Node16" to NodeNext, where tsc lets CommonJS import jose and oauth4webapi', async () => {
    const root = await fixture({ module: 'Node16', moduleResolution: 'Node16' });
    expect((await create(root)).exitCode).toBe(0);
    expect(await readFile(join(root, 'tsconfig.json'), 'utf8')).toMatchInlineSnapshot(`
      "{
        "compilerOptions": {
          "target": "ES2022",
          "module": "NodeNext",
          "rootDir": "src",
          "outDir": "dist",
          "strict": true,
          "esModuleInterop": true,
          "skipLibCheck": true,
          "types": [
            "node"
          ],
          "moduleResolution": "NodeNext"
        },
        "include": [
          "src"
        ]
      }
      "
    `);
  });

  it('keeps "module": "NodeNext" without "type": "module" as it is', async () => {
    const root = await fixture({ module: 'NodeNext', moduleResolution: 'NodeNext' });
    const tsconfig = await readFile(join(root, 'tsconfig.json'), 'utf8');
    const result = await create(root);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('CommonJS TypeScript (tsconfig.json "module": "nodenext")');
    expect(await readFile(join(root, 'tsconfig.json'), 'utf8')).toBe(tsconfig);
    expect(JSON.parse(await readFile(join(root, 'package.json'), 'utf8'))).not.toHaveProperty('type');
  });

  it('refuses "verbatimModuleSyntax" with CommonJS output (exit 2) and writes nothing', async () => {
    const root = await fixture({ verbatimModuleSyntax: true });
    const before = await snapshotTree(root);
    const result = await create(root);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('compiles TypeScript to CommonJS with "verbatimModuleSyntax": true, which forbids import/export in its .ts files');
    expect(result.stderr).toContain('Set "verbatimModuleSyntax": false in tsconfig.json');
    expect(await snapshotTree(root)).toEqual(before);
  });

  it.each([
    ['20.18.3', 'Install Node.js 20.19.0 or newer (nvm install 20)'],
    ['22.11.0', 'Install Node.js 22.12.0 or newer (nvm install 22)'],
    ['21.7.3', 'Install Node.js 22.12.0 or newer (nvm install 22)'],
  ])('refuses on Node %s (exit 2) with the version to install, and writes nothing', async (nodeVersion, install) => {
    const root = await fixture();
    const before = await snapshotTree(root);
    const result = await create(root, nodeVersion);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain(`Node.js ${nodeVersion} cannot require() an ES module, which a CommonJS project does to load jose and oauth4webapi`);
    expect(result.stderr).toContain(install);
    expect(await snapshotTree(root)).toEqual(before);
  });

  it('does not ask an ESM project for require(esm)', async () => {
    const root = await makeTempDir('cfa-tscjs-esm-');
    const result = await runInProcess('create-framework-auth', ['app', '--yes', '--no-install'], { cwd: root, nodeVersion: '20.12.0' });
    expect(result.exitCode).toBe(0);
  });
});

describe('the project commands in TypeScript compiled to CommonJS', () => {
  it('add-provider, add-two-factor, remove-provider and update keep package.json without "type" and tsconfig.json as it is', async () => {
    const root = await fixture();
    const tsconfig = await readFile(join(root, 'tsconfig.json'), 'utf8');
    expect((await create(root, '20.19.0', ['--adapter', 'sqlite', '--providers', 'oidc,password'])).exitCode).toBe(0);
    for (const argv of [['add-provider', 'github'], ['add-two-factor', '--no-install'], ['remove-provider', 'github'], ['update']]) {
      const result = await runInProcess('framework-auth', argv, { cwd: root, nodeVersion: '20.19.0' });
      expect(result.exitCode, `${argv.join(' ')}: ${result.stderr}`).toBe(0);
      const pkg = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as Record<string, unknown>;
      expect(pkg, argv.join(' ')).not.toHaveProperty('type');
      expect(await readFile(join(root, 'tsconfig.json'), 'utf8'), argv.join(' ')).toBe(tsconfig);
    }
    expect(await readFile(join(root, 'src/auth/config.ts'), 'utf8')).toContain('TwoFactor()');
  }, 120_000);
});

describe('the runtime under the CommonJS settings of a project, compiled by tsc', () => {
  // One project scaffolded once per setting; tsc reads the project's own tsconfig (TypeScript 6 here).
  it.each([
    ['module CommonJS (moduleResolution by default)', {}],
    ['module CommonJS, moduleResolution Node10', { moduleResolution: 'node10', ignoreDeprecations: '6.0' }],
    ['module CommonJS, moduleResolution Bundler', { moduleResolution: 'bundler' }],
    ['module NodeNext without "type": "module"', { module: 'NodeNext', moduleResolution: 'NodeNext' }],
    ['module Node16, moved to NodeNext by the merge', { module: 'Node16', moduleResolution: 'Node16' }],
    ['module Node20', { module: 'node20', moduleResolution: null }],
  ])('%s: zero errors', async (_name, options: Record<string, unknown>) => {
    const root = await fixture(options);
    // The fixture's imports name no extension (CommonJS style); Node16/NodeNext resolution asks for one.
    if (/^node/i.test(String(options.module ?? ''))) {
      for (const [file, from, to] of [['src/index.ts', "'./app'", "'./app.js'"], ['src/app.ts', "'./routes/orders'", "'./routes/orders.js'"]] as const) {
        await writeFile(join(root, file), (await readFile(join(root, file), 'utf8')).replace(from, to));
      }
    }
    expect((await create(root, '20.19.0', ['--providers', 'oidc,github,credentials'])).exitCode).toBe(0);
    await symlink(join(cliPackageRoot, 'node_modules'), join(root, 'node_modules'), 'dir');
    const result = await typecheck(root);
    expect(result.output).toBe('');
    expect(result.exitCode).toBe(0);
  }, 60_000);
});

describe('framework-auth doctor in TypeScript compiled to CommonJS', () => {
  async function scaffolded(options: Record<string, unknown> = {}): Promise<string> {
    const root = await fixture(options);
    expect((await create(root)).exitCode).toBe(0);
    await symlink(join(cliPackageRoot, 'node_modules'), join(root, 'node_modules'), 'dir');
    return root;
  }
  const doctor = (root: string, nodeVersion: string) => runInProcess('framework-auth', ['doctor', '--offline'], { cwd: root, nodeVersion });

  it('accepts package.json without "type" and module CommonJS on Node 20.19', async () => {
    const result = await doctor(await scaffolded(), '20.19.0');
    expect(result.stdout).toContain('✔ Node 20.19.0 (require() of ES modules, which this CommonJS project needs)');
    expect(result.stdout).toContain('✔ package.json "type" is not set: tsc compiles the auth module to CommonJS with the rest of the project.');
    expect(result.stdout).toContain('✔ tsconfig.json: module CommonJS, compiled to CommonJS.');
  });

  it('reports Node 22.11 with the version to install', async () => {
    const result = await doctor(await scaffolded(), '22.11.0');
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toContain('✖ Node.js 22.11.0 cannot require() an ES module, which a CommonJS project does to load jose and oauth4webapi');
    expect(result.stdout).toContain('fix: Install Node.js 22.12.0 or newer (nvm install 22), then run again.');
  });

  it('reports "module": "Node16", where tsc refuses the import of an ES module', async () => {
    const root = await scaffolded();
    const path = join(root, 'tsconfig.json');
    await writeFile(path, (await readFile(path, 'utf8')).replace('"module": "commonjs"', '"module": "Node16"'));
    const result = await doctor(root, '20.19.0');
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toContain("✖ tsconfig.json \"module\" is Node16: tsc refuses a CommonJS file's import of jose and oauth4webapi, ES modules (TS1479).");
  });
});

describe('which Node can require() an ES module', () => {
  it.each(['20.19.0', '20.20.2', '22.12.0', '23.0.0', 'v24.1.0'])('%s can', (version) => {
    expect(supportsRequireEsm(version)).toBe(true);
    expect(requireEsmNodeProblem(version)).toBeUndefined();
  });

  it.each(['20.12.0', '20.18.3', '21.7.3', '22.11.0', '18.20.4'])('%s cannot', (version) => {
    expect(supportsRequireEsm(version)).toBe(false);
  });

  it('is asked of Node only in a CommonJS project', () => {
    expect(checkNode('20.18.3').status).toBe('ok');
    expect(checkNode('20.18.3', true)).toMatchObject({ id: 'node-version', status: 'error', fix: 'Install Node.js 20.19.0 or newer (nvm install 20), then run again.' });
    expect(checkNode('20.11.1', true).message).toContain('older than 20.12');
  });
});
