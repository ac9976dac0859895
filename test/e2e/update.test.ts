// framework-auth update through the generated project's own bin: a project written from an older template
// fixture (a changed copy of templates/), with one generated file edited, is updated; the edit is kept, the
// untouched files take the new version, and the project still compiles. A conflicting edit exits 1 and leaves the
// user's file byte-identical.
import { cp, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { stripVTControlCharacters } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { templatesDirEnv } from '../../src/generator/paths.js';
import { compileProject, makeTempDir, removeTempDirs, runBuiltCli } from './helpers/project.js';
import { linkSharedDeps, prepareSharedDeps, repoRoot } from './helpers/shared-deps.js';

afterAll(removeTempDirs);

const newDoc = '/** The current session of `req`, or null. */';
const oldDoc = '/** The current session of `req` (older wording). */';
const newRedirect = ' * Where users are sent after sign-in and sign-out.';
const oldRedirect = ' * Where users are sent after signing in or out (older wording).';

async function olderTemplates(): Promise<string> {
  const dir = join(await makeTempDir(), 'templates');
  await cp(join(repoRoot, 'templates'), dir, { recursive: true });
  for (const [path, from, to] of [['project/auth/index.ts.hbs', newDoc, oldDoc], ['runtime/http/redirect.ts', newRedirect, oldRedirect]] as const) {
    const text = await readFile(join(dir, path), 'utf8');
    if (!text.includes(from)) throw new Error(`${path} has no ${from}`);
    await writeFile(join(dir, path), text.replace(from, to));
  }
  return dir;
}

async function projectBin(projectDir: string, args: string[]) {
  const result = await execa(join(projectDir, 'node_modules/.bin/framework-auth'), args, { cwd: projectDir, reject: false, env: {} });
  return { exitCode: result.exitCode, stdout: stripVTControlCharacters(String(result.stdout)), stderr: stripVTControlCharacters(String(result.stderr)) };
}

describe('framework-auth update in a project written by an older template fixture', () => {
  let templates: string;

  beforeAll(async () => {
    await prepareSharedDeps();
    templates = await olderTemplates();
  }, 600_000);

  async function scaffoldOld(): Promise<string> {
    const root = await makeTempDir();
    const scaffold = await runBuiltCli('create', ['app', '--yes', '--no-install'], { cwd: root, env: { [templatesDirEnv]: templates } });
    if (scaffold.exitCode !== 0) throw new Error(scaffold.stderr);
    const projectDir = join(root, 'app');
    await linkSharedDeps(projectDir);
    return projectDir;
  }

  it('updates untouched files, merges the edited one keeping the edit, and the project compiles', async () => {
    const projectDir = await scaffoldOld();
    const index = join(projectDir, 'src/auth/index.ts');
    await writeFile(index, `${await readFile(index, 'utf8')}\n/** Added by the user. */\nexport const userFlag = true;\n`);
    const result = await projectBin(projectDir, ['update']);
    expect(result.stderr).toBe('');
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('Merged with your changes: src/auth/index.ts');
    const merged = await readFile(index, 'utf8');
    expect(merged).toContain(newDoc);
    expect(merged).toContain('export const userFlag = true;');
    expect(await readFile(join(projectDir, 'src/auth/core/http/redirect.ts'), 'utf8')).toContain(newRedirect);
    const compiled = await compileProject(projectDir);
    expect(compiled.output).toBe('');
    expect(compiled.exitCode).toBe(0);
  }, 120_000);

  it('exits 1 on a conflicting edit, leaving the file byte-identical and the merge beside it', async () => {
    const projectDir = await scaffoldOld();
    const index = join(projectDir, 'src/auth/index.ts');
    const edited = (await readFile(index, 'utf8')).replace(oldDoc, '/** The session, as I describe it. */');
    await writeFile(index, edited);
    const result = await projectBin(projectDir, ['update', '--json']);
    expect(result.exitCode).toBe(1);
    expect(JSON.parse(result.stdout)).toMatchObject({ command: 'update', ok: false, files: { conflicts: [{ path: 'src/auth/index.ts', mergeFile: 'src/auth/index.ts.merge' }] } });
    expect(await readFile(index, 'utf8')).toBe(edited);
    expect(await readFile(`${index}.merge`, 'utf8')).toContain(`=======\n${newDoc}\n>>>>>>>`);
  }, 120_000);
});
