import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cliPackageName } from '../version.js';
import { cliPackageRoot } from '../paths.js';

interface OwnPackageJson {
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

const own = JSON.parse(readFileSync(join(cliPackageRoot, 'package.json'), 'utf8')) as OwnPackageJson;

// The ranges this repo tests the runtime with are the ones generated projects get; fallbacks only guard a
// package.json stripped of devDependencies.
function testedRange(name: string, fallback: string): string {
  return own.devDependencies?.[name] ?? own.dependencies?.[name] ?? fallback;
}

/**
 * The same dependencies with the ranges this repo tests with (its package.json), keeping the given range for a
 * package it does not list. Used for the catalog's provider and adapter dependencies (a driver such as `pg`).
 */
export function testedRanges(dependencies: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(dependencies).map(([name, fallback]) => [name, testedRange(name, fallback)]));
}

/** Runtime dependencies of every generated project. */
export function runtimeDependencies(): Record<string, string> {
  return {
    express: testedRange('express', '^5.1.0'),
    jose: testedRange('jose', '^6.1.0'),
    oauth4webapi: testedRange('oauth4webapi', '^3.8.0'),
  };
}

/**
 * Dev dependencies of every generated project. The CLI itself is pinned to the exact version that wrote the code,
 * so that `npx framework-auth ...` inside the project runs this local bin, never a same-named registry package.
 */
export function toolDevDependencies(cliVersion: string): Record<string, string> {
  return {
    '@types/express': testedRange('@types/express', '^5.0.3'),
    '@types/node': testedRange('@types/node', '^20.19.0'),
    [cliPackageName]: cliVersion,
    tsx: testedRange('tsx', '^4.20.0'),
    typescript: testedRange('typescript', '^5.9.0'),
  };
}

/**
 * Ranges for a project on Express 4: Express itself (the `express4` alias this repo tests the runtime with) and its
 * types (checked by the compatibility matrix, test/e2e/matrix/).
 */
export function express4Ranges(): { express: string; types: string } {
  const alias = testedRange('express4', 'npm:express@^4.21.2');
  return { express: alias.replace(/^npm:express@/, ''), types: '^4.17.25' };
}
