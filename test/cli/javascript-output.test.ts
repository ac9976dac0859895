// Issue 36: how the auth module's TypeScript becomes the JavaScript a JavaScript project gets: types cut out with the
// layout and comments kept (stripTypes), then CommonJS statement for statement (toCommonJs).
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { toCommonJs } from '../../src/generator/javascript/commonjs.js';
import { stripTypes, UnsupportedSyntax } from '../../src/generator/javascript/strip-types.js';

const source = `/**
 * A file's own comment stays, above a type-only import.
 */
import type { Request } from 'express';
import { type Session, readSession } from './session.js';
import * as oauth from 'oauth4webapi';
import Database from 'better-sqlite3';
import GitHub from './providers/github.js';

/** A type, with its comment: both go. */
export interface Options {
  name?: string;
}

type Pair<T> = [T, T];

/** A class with modifiers. */
export class Box {
  private static count: number = 0;
  readonly value: string;
  constructor(value: string) {
    this.value = value;
  }
  override toString(): string {
    return this.value!;
  }
}

// Reads the session of a request.
export async function current<T extends object>(req: Request, options?: Options): Promise<Session | null> {
  const pair = [1, 2] as Pair<number>;
  const map = new Map<string, number>();
  return readSession(req, options satisfies Options | undefined) ?? null;
}

export default function provider() {
  return GitHub({ name: 'x' }) && oauth && Database && map;
}

export { readSession };
export { jwtVerify as verify } from 'jose';
export type { Session } from './session.js';
`;

describe('stripTypes', () => {
  it('cuts the types out and keeps comments, blank lines and layout', () => {
    expect(stripTypes(ts, 'example.ts', source)).toMatchInlineSnapshot(`
      "/**
       * A file's own comment stays, above a type-only import.
       */
      import { readSession } from './session.js';
      import * as oauth from 'oauth4webapi';
      import Database from 'better-sqlite3';
      import GitHub from './providers/github.js';

      /** A class with modifiers. */
      export class Box {
        static count = 0;
        value;
        constructor(value) {
          this.value = value;
        }
        toString() {
          return this.value;
        }
      }

      // Reads the session of a request.
      export async function current(req, options) {
        const pair = [1, 2];
        const map = new Map();
        return readSession(req, options) ?? null;
      }

      export default function provider() {
        return GitHub({ name: 'x' }) && oauth && Database && map;
      }

      export { readSession };
      export { jwtVerify as verify } from 'jose';
      "
    `);
  });

  it('refuses an enum, which has JavaScript of its own', () => {
    expect(() => stripTypes(ts, 'enum.ts', 'export enum Color { Red }\n')).toThrow(UnsupportedSyntax);
    expect(() => stripTypes(ts, 'enum.ts', 'export enum Color { Red }\n')).toThrow('enum.ts:1: an enum has no JavaScript of its own');
  });

  it('refuses a parameter property, which assigns a field of its own (erasableSyntaxOnly keeps it out of the runtime)', () => {
    const box = 'export class Box {\n  constructor(readonly value: string) {}\n}\n';
    expect(() => stripTypes(ts, 'box.ts', box)).toThrow(UnsupportedSyntax);
    expect(() => stripTypes(ts, 'box.ts', box)).toThrow('box.ts:2: a parameter property has no JavaScript of its own');
  });
});

describe('toCommonJs', () => {
  it('turns imports into require() and exports into one module.exports, statement for statement', () => {
    expect(toCommonJs(ts, 'example.js', stripTypes(ts, 'example.ts', source))).toMatchInlineSnapshot(`
      "'use strict';
      /**
       * A file's own comment stays, above a type-only import.
       */
      const { readSession } = require('./session.js');
      const oauth = require('oauth4webapi');
      const Database = require('better-sqlite3');
      const GitHub = require('./providers/github.js').default;

      /** A class with modifiers. */
      class Box {
        static count = 0;
        value;
        constructor(value) {
          this.value = value;
        }
        toString() {
          return this.value;
        }
      }

      // Reads the session of a request.
      async function current(req, options) {
        const pair = [1, 2];
        const map = new Map();
        return readSession(req, options) ?? null;
      }

      function provider() {
        return GitHub({ name: 'x' }) && oauth && Database && map;
      }

      const { jwtVerify: verify } = require('jose');

      module.exports = { Box, current, default: provider, readSession, verify };
      "
    `);
  });

  it('refuses an exported let, whose later assignments module.exports would not follow', () => {
    expect(() => toCommonJs(ts, 'counter.js', 'export let count = 0;\nexport function add() {\n  count += 1;\n}\n')).toThrow('counter.js:1: an exported `let` or `var` has no CommonJS form here');
    expect(() => toCommonJs(ts, 'counter.js', 'let count = 0;\nexport { count };\n')).toThrow('counter.js:2: exporting `count`, a `let` or `var`, has no CommonJS form here');
  });
});
