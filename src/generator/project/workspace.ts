import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';

/** The monorepo a project is a package of: the folder that installs it. */
export interface Workspace {
  /** Absolute path of the workspace root (where the lockfile and the shared node_modules are). */
  root: string;
  /** How the root declares its packages. */
  kind: 'package.json workspaces' | 'pnpm-workspace.yaml';
}

function readJson(path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return undefined;
  }
}

/** The `workspaces` globs of a package.json (`["packages/*"]` or `{ "packages": [...] }`, as npm, yarn and bun). */
function packageJsonWorkspaces(path: string): string[] | undefined {
  const pkg = readJson(path) as { workspaces?: unknown } | undefined;
  const field = pkg?.workspaces;
  const list = Array.isArray(field) ? field : (field as { packages?: unknown } | undefined)?.packages;
  return Array.isArray(list) ? list.filter((entry): entry is string => typeof entry === 'string') : undefined;
}

/** The `packages:` globs of a pnpm-workspace.yaml: only the plain list form (`- 'packages/*'`) is read. */
function pnpmWorkspaces(path: string): string[] | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
  const globs: string[] = [];
  let inPackages = false;
  for (const line of text.split(/\r?\n/)) {
    if (/^packages\s*:/.test(line)) {
      inPackages = true;
      continue;
    }
    if (!inPackages) continue;
    const item = /^\s+-\s*(['"]?)([^'"#]+?)\1\s*(#.*)?$/.exec(line);
    if (item?.[2]) globs.push(item[2]);
    else if (/^\S/.test(line)) inPackages = false;
  }
  return globs;
}

/** Whether a workspace glob (`packages/*`, `apps/**`, `services/api`, `!excluded`) takes `path` (root-relative, "/"). */
function globMatches(glob: string, path: string): boolean {
  const pattern = glob.replace(/^\.\//, '').replace(/\/+$/, '');
  const source = pattern
    .split('/')
    .map((part) => (part === '**' ? '.*' : part.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*').replace(/\?/g, '[^/]')))
    .join('/');
  return new RegExp(`^${source}$`).test(path);
}

function takes(globs: readonly string[], path: string): boolean {
  const included = globs.filter((glob) => !glob.startsWith('!')).some((glob) => globMatches(glob, path));
  const excluded = globs.filter((glob) => glob.startsWith('!')).some((glob) => globMatches(glob.slice(1), path));
  return included && !excluded;
}

/**
 * The workspace root whose package globs take `projectRoot` (npm, yarn and bun `workspaces`, or pnpm's
 * pnpm-workspace.yaml), looking up from the project's parent; undefined for a project that stands alone.
 */
export function findWorkspace(projectRoot: string): Workspace | undefined {
  let current = dirname(projectRoot);
  for (;;) {
    const path = relative(current, projectRoot).split(sep).join('/');
    const pnpm = join(current, 'pnpm-workspace.yaml');
    if (existsSync(pnpm) && takes(pnpmWorkspaces(pnpm) ?? [], path)) return { root: current, kind: 'pnpm-workspace.yaml' };
    const manifest = join(current, 'package.json');
    const globs = existsSync(manifest) ? packageJsonWorkspaces(manifest) : undefined;
    if (globs && takes(globs, path)) return { root: current, kind: 'package.json workspaces' };
    const parent = dirname(current);
    if (parent === current) return undefined;
    current = parent;
  }
}
