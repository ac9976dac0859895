import { describe, expect, it } from 'vitest';
import { mergePackageJson } from '../../src/generator/edit/package-json.js';

const wants = {
  name: 'my-app',
  scripts: { dev: 'tsx watch src/server.ts', build: 'tsc' },
  dependencies: { express: '^5.1.0', jose: '^6.1.0' },
  devDependencies: { typescript: '^6.0.3' },
};

describe('mergePackageJson', () => {
  it('creates a package.json when there is none', () => {
    expect(mergePackageJson(undefined, wants).content).toMatchInlineSnapshot(`
      "{
        "name": "my-app",
        "version": "0.1.0",
        "private": true,
        "type": "module",
        "scripts": {
          "dev": "tsx watch src/server.ts",
          "build": "tsc"
        },
        "dependencies": {
          "express": "^5.1.0",
          "jose": "^6.1.0"
        },
        "devDependencies": {
          "typescript": "^6.0.3"
        }
      }
      "
    `);
  });

  it('keeps the user\'s ranges, scripts, order and tab indentation, and sorts new dependencies in', () => {
    const text = '{\n\t"name": "svc",\n\t"scripts": {\n\t\t"dev": "nodemon"\n\t},\n\t"dependencies": {\n\t\t"axios": "^1.0.0",\n\t\t"express": "^4.21.0",\n\t\t"zod": "^3.0.0"\n\t}\n}\n';
    const merge = mergePackageJson(text, wants);
    expect(merge.content).toMatchInlineSnapshot(`
      "{
      	"name": "svc",
      	"type": "module",
      	"scripts": {
      		"dev": "nodemon",
      		"build": "tsc"
      	},
      	"dependencies": {
      		"axios": "^1.0.0",
      		"express": "^4.21.0",
      		"jose": "^6.1.0",
      		"zod": "^3.0.0"
      	},
      	"devDependencies": {
      		"typescript": "^6.0.3"
      	}
      }
      "
    `);
    expect(merge.added).toEqual({ jose: '^6.1.0', typescript: '^6.0.3' });
    expect(merge.notes).toEqual(['kept your "dev" script ("nodemon")']);
  });

  it('does not add a dependency the user has under devDependencies', () => {
    const text = JSON.stringify({ name: 'x', type: 'module', devDependencies: { express: '^5.0.0' } }, null, 2);
    expect(mergePackageJson(text, wants).added).toEqual({ jose: '^6.1.0', typescript: '^6.0.3' });
  });

  it('switches "type" to module and says so', () => {
    const merge = mergePackageJson('{ "name": "x", "type": "commonjs" }', { ...wants, dependencies: {}, devDependencies: {}, scripts: {} });
    expect(merge.content).toBe('{ "name": "x", "type": "module" }');
    expect(merge.notes[0]).toContain('"type" changed from "commonjs" to "module"');
  });

  it('changes nothing when everything is there', () => {
    const first = mergePackageJson(undefined, wants).content;
    expect(mergePackageJson(first, wants).content).toBe(first);
  });

  it('refuses invalid JSON', () => {
    expect(() => mergePackageJson('{ "name": ', wants)).toThrow(SyntaxError);
  });

  describe('install scripts (a native driver such as better-sqlite3)', () => {
    const sqlite = (packageManager: 'npm' | 'pnpm' | 'bun') => ({ ...wants, installScripts: { packages: ['better-sqlite3'], packageManager } });

    it('allows the package in allowScripts, which npm 11 needs to run its install script', () => {
      const merge = mergePackageJson('{\n  "name": "x",\n  "type": "module"\n}\n', { ...sqlite('npm'), dependencies: {}, devDependencies: {}, scripts: {} });
      expect(merge.content).toMatchInlineSnapshot(`
        "{
          "name": "x",
          "type": "module",
          "allowScripts": {
            "better-sqlite3": true
          }
        }
        "
      `);
      expect(merge.allowedScripts).toEqual(['better-sqlite3']);
    });

    it('adds to an existing allowScripts and keeps a pinned entry for the package as it is', () => {
      const text = '{\n  "name": "x",\n  "allowScripts": {\n    "esbuild": true\n  }\n}\n';
      const merge = mergePackageJson(text, sqlite('npm'));
      expect(JSON.parse(merge.content).allowScripts).toEqual({ esbuild: true, 'better-sqlite3': true });
      const pinned = '{\n  "name": "x",\n  "allowScripts": {\n    "better-sqlite3@12.4.1": true\n  }\n}\n';
      expect(JSON.parse(mergePackageJson(pinned, sqlite('npm')).content).allowScripts).toEqual({ 'better-sqlite3@12.4.1': true });
    });

    it('keeps a denial and says that the driver will not load', () => {
      const merge = mergePackageJson('{ "name": "x", "allowScripts": { "better-sqlite3": false } }', sqlite('npm'));
      expect(JSON.parse(merge.content).allowScripts).toEqual({ 'better-sqlite3': false });
      expect(merge.notes).toContain('kept your allowScripts "better-sqlite3": false; better-sqlite3 needs its install script (a native build) to load');
    });

    it('appends to pnpm.onlyBuiltDependencies for pnpm, keeping the entries there', () => {
      const text = '{\n  "name": "x",\n  "pnpm": {\n    "onlyBuiltDependencies": ["esbuild"]\n  }\n}\n';
      const merge = mergePackageJson(text, sqlite('pnpm'));
      expect(JSON.parse(merge.content).pnpm).toEqual({ onlyBuiltDependencies: ['esbuild', 'better-sqlite3'] });
      expect(mergePackageJson(merge.content, sqlite('pnpm')).content).toBe(merge.content);
    });

    it('lists the package in trustedDependencies for bun', () => {
      const merge = mergePackageJson('{ "name": "x" }', sqlite('bun'));
      expect(JSON.parse(merge.content).trustedDependencies).toEqual(['better-sqlite3']);
    });

    it('changes nothing on a second merge', () => {
      const first = mergePackageJson(undefined, sqlite('npm')).content;
      const again = mergePackageJson(first, sqlite('npm'));
      expect(again.content).toBe(first);
      expect(again.allowedScripts).toEqual([]);
    });
  });
});
