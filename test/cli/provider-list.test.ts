import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { getFeature } from '../../src/catalog/features.js';
import { getProvider } from '../../src/catalog/providers.js';
import { Refusal } from '../../src/generator/errors.js';
import { addFeatureToConfig, addProviderToConfig, readAuthConfig, removeFeatureFromConfig, removeProviderOption, setAdapterInConfig, setProviderOption } from '../../src/generator/edit/provider-list.js';

const microblog = getProvider('microblog');
const credentials = getProvider('credentials');

const generated = `import './env.js';
import type { FrameworkAuthConfig } from './core/index.js';
import OIDC from './core/providers/oidc.js';

export const authConfig: FrameworkAuthConfig = {
  basePath: '/auth',
  providers: [
    OIDC(), // the company IdP
  ],
};
`;

describe('addProviderToConfig', () => {
  it('adds the import and the list element, keeping comments and formatting', () => {
    const edit = addProviderToConfig(ts, generated, microblog);
    expect(edit.changed).toBe(true);
    expect(edit.content).toMatchInlineSnapshot(`
      "import './env.js';
      import type { FrameworkAuthConfig } from './core/index.js';
      import OIDC from './core/providers/oidc.js';
      import Microblog from './core/providers/microblog.js';

      export const authConfig: FrameworkAuthConfig = {
        basePath: '/auth',
        providers: [
          OIDC(), // the company IdP
          Microblog(),
        ],
      };
      "
    `);
  });

  it('is a no-op when the provider is already in the list', () => {
    const once = addProviderToConfig(ts, generated, microblog).content;
    expect(addProviderToConfig(ts, once, microblog)).toEqual({ content: once, changed: false });
  });

  it('indents a multi-line snippet and keeps a list without trailing comma that way', () => {
    const source = `import OIDC from "./core/providers/oidc.js"
export const authConfig = {
  providers: [
    OIDC({ issuer: process.env.ISSUER })
  ]
} satisfies Record<string, unknown>
`;
    expect(addProviderToConfig(ts, source, credentials).content).toMatchInlineSnapshot(`
      "import OIDC from "./core/providers/oidc.js"
      import Credentials from "./core/providers/credentials.js"
      export const authConfig = {
        providers: [
          OIDC({ issuer: process.env.ISSUER }),
          Credentials({
            credentials: {
              username: { label: 'Username' },
              password: { label: 'Password', type: 'password' },
            },
            // Look the user up and check the password here; return null to refuse (the sign-in page shows an error).
            authorize: async () => null,
          })
        ]
      } satisfies Record<string, unknown>
      "
    `);
  });

  it('fills an empty list', () => {
    const source = `import type { FrameworkAuthConfig } from './core/index.js';\nexport const authConfig: FrameworkAuthConfig = { providers: [] };\n`;
    expect(addProviderToConfig(ts, source, microblog).content).toMatchInlineSnapshot(`
      "import type { FrameworkAuthConfig } from './core/index.js';
      import Microblog from './core/providers/microblog.js';
      export const authConfig: FrameworkAuthConfig = { providers: [
        Microblog(),
      ] };
      "
    `);
  });

  it('adds to a one-line list on the same line', () => {
    const source = `import OIDC from './core/providers/oidc.js';\nexport const authConfig = { basePath: '/auth', providers: [OIDC()] };\n`;
    expect(addProviderToConfig(ts, source, microblog).content).toMatchInlineSnapshot(`
      "import OIDC from './core/providers/oidc.js';
      import Microblog from './core/providers/microblog.js';
      export const authConfig = { basePath: '/auth', providers: [OIDC(), Microblog()] };
      "
    `);
  });

  it('picks another local name when the factory name is taken', () => {
    const source = `import Microblog from './my-own-microblog.js';\nexport const authConfig = { providers: [Microblog()] };\n`;
    const content = addProviderToConfig(ts, source, microblog).content;
    expect(content).toContain("import MicroblogProvider from './core/providers/microblog.js';");
    expect(content).toContain('providers: [Microblog(), MicroblogProvider()]');
  });

  it('reuses an import that is there but not in the list', () => {
    const source = `import Microblog from './core/providers/microblog';\nexport const authConfig = {\n  providers: [\n  ],\n};\n`;
    const content = addProviderToConfig(ts, source, microblog).content;
    expect(content.match(/import Microblog/g)).toHaveLength(1);
    expect(content).toContain('providers: [\n    Microblog(),\n  ]');
  });

  it('refuses a config whose providers are not an array literal, with a hint', () => {
    const source = `const list = [];\nexport const authConfig = { providers: list };\n`;
    let error: unknown;
    try {
      addProviderToConfig(ts, source, microblog);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(Refusal);
    expect((error as Refusal).type).toBe('unsupported-edit');
    expect((error as Refusal).message).toContain('`providers` is not an array literal');
  });

  it('refuses a file without authConfig', () => {
    expect(() => addProviderToConfig(ts, 'export const config = {};\n', microblog)).toThrow(/no `export const authConfig/);
  });
});

describe('readAuthConfig', () => {
  it('reads the base path, the provider modules and the adapter flag', () => {
    expect(readAuthConfig(ts, generated)).toEqual({ basePath: '/auth', providerModules: ['core/providers/oidc'], hasAdapter: false, featureModules: [] });
  });
});

describe('addFeatureToConfig / removeFeatureFromConfig (two-factor)', () => {
  const twoFactor = { importName: 'TwoFactor', importPath: './core/features/two-factor/index.js', snippet: 'TwoFactor()' };

  it('adds a features property after the last one and the named import, and removing gives the file back byte for byte', () => {
    const added = addFeatureToConfig(ts, generated, twoFactor);
    expect(added.changed).toBe(true);
    expect(added.content).toContain("import { TwoFactor } from './core/features/two-factor/index.js';");
    expect(added.content).toContain('  ],\n  features: [TwoFactor()],\n};');
    expect(readAuthConfig(ts, added.content).featureModules).toEqual(['core/features/two-factor/index']);
    expect(addFeatureToConfig(ts, added.content, twoFactor)).toEqual({ content: added.content, changed: false });
    expect(removeFeatureFromConfig(ts, added.content, twoFactor.importPath)).toEqual({ content: generated, changed: true });
    expect(removeFeatureFromConfig(ts, generated, twoFactor.importPath)).toEqual({ content: generated, changed: false });
  });

  it('appends to a features list of the user\'s and removes only its own element, keeping their import and comments', () => {
    const source = generated
      .replace("import OIDC from './core/providers/oidc.js';", "import OIDC from './core/providers/oidc.js';\nimport { database } from './core/features/database/index.js';")
      .replace('  ],\n};', '  ],\n  features: [database], // for the Auth.js adapter\n};');
    const added = addFeatureToConfig(ts, source, twoFactor);
    expect(added.content).toContain('  features: [database, TwoFactor()], // for the Auth.js adapter\n');
    const removed = removeFeatureFromConfig(ts, added.content, twoFactor.importPath);
    expect(removed.content).toBe(source);
  });
});

// Issue 37: API keys' element is a call with options, `ApiKeys({ scopes: ['read', 'write'] })`; it is removed by the
// module its factory comes from, whatever options the user gave it and however they laid them out, in TypeScript and
// in CommonJS.
describe('addFeatureToConfig / removeFeatureFromConfig (API keys)', () => {
  const apiKeys = getFeature('api-keys');

  it('adds ApiKeys({ scopes }) after two-factor, and removing gives the file back byte for byte', () => {
    const withTwoFactor = addFeatureToConfig(ts, generated, getFeature('two-factor')).content;
    const added = addFeatureToConfig(ts, withTwoFactor, apiKeys);
    expect(added.content).toContain("import { ApiKeys } from './core/features/api-keys/index.js';");
    expect(added.content).toContain("  features: [TwoFactor(), ApiKeys({ scopes: ['read', 'write'] })],\n");
    expect(readAuthConfig(ts, added.content).featureModules).toEqual(['core/features/two-factor/index', 'core/features/api-keys/index']);
    expect(removeFeatureFromConfig(ts, added.content, apiKeys.importPath)).toEqual({ content: withTwoFactor, changed: true });
  });

  it('adds two-factor before API keys, where create writes it, when told API keys come after it', () => {
    const twoFactor = getFeature('two-factor');
    const both = addFeatureToConfig(ts, addFeatureToConfig(ts, generated, twoFactor).content, apiKeys).content;
    const apiKeysOnly = addFeatureToConfig(ts, generated, apiKeys).content;
    expect(addFeatureToConfig(ts, apiKeysOnly, twoFactor, undefined, [apiKeys.importPath]).content).toBe(both);
    // Without being told, it goes last.
    expect(addFeatureToConfig(ts, apiKeysOnly, twoFactor).content).toContain("  features: [ApiKeys({ scopes: ['read', 'write'] }), TwoFactor()],\n");
    // A features list of one element a line gets it on a line of its own.
    const multiLine = apiKeysOnly.replace("  features: [ApiKeys({ scopes: ['read', 'write'] })],", "  features: [\n    ApiKeys({ scopes: ['read', 'write'] }),\n  ],");
    expect(addFeatureToConfig(ts, multiLine, twoFactor, undefined, [apiKeys.importPath]).content).toContain("  features: [\n    TwoFactor(),\n    ApiKeys({ scopes: ['read', 'write'] }),\n  ],");
  });

  it('removes the call with the options the user changed, over several lines, and its import', () => {
    const added = addFeatureToConfig(ts, generated, apiKeys).content;
    const edited = added.replace("ApiKeys({ scopes: ['read', 'write'] })", "ApiKeys({\n    scopes: ['orders:read'], // what our API checks\n    expiresInDays: 30,\n  })");
    expect(removeFeatureFromConfig(ts, edited, apiKeys.importPath)).toEqual({ content: generated, changed: true });
  });

  it('removes the call and its require in a CommonJS config', () => {
    const commonJs = `require('./env.js');
const OIDC = require('./core/providers/oidc.js').default;
const { ApiKeys } = require('./core/features/api-keys/index.js');

const authConfig = {
  basePath: '/auth',
  providers: [
    OIDC(),
  ],
  features: [ApiKeys({ scopes: ['read', 'write'] })],
};

module.exports = { authConfig };
`;
    const removed = removeFeatureFromConfig(ts, commonJs, apiKeys.importPath, 'auth/config.js');
    expect(removed.changed).toBe(true);
    expect(removed.content).toBe(commonJs.replace("const { ApiKeys } = require('./core/features/api-keys/index.js');\n", '').replace("  ],\n  features: [ApiKeys({ scopes: ['read', 'write'] })],\n", '  ],\n'));
  });
});

// Issue 35: add-two-factor opts the credentials provider in as create --two-factor writes it; remove-two-factor takes
// the opt-in out again.
describe('setProviderOption / removeProviderOption (the credentials opt-in)', () => {
  const optIn = { importPath: './core/providers/credentials.js', name: 'twoFactor', value: 'true', comment: 'users who turned two-factor on enter a code after authorize()' };
  const withCredentials = (call: string): string => `import Credentials from './core/providers/credentials.js';

export const authConfig = {
  providers: [
    ${call},
  ],
};
`;
  const multiLine = withCredentials(`Credentials({
      credentials: { username: { label: 'Username' } },
      authorize: async () => null,
    })`);

  it('sets the option on a line of its own, first in the object, and removing gives the file back byte for byte', () => {
    const set = setProviderOption(ts, multiLine, optIn);
    if (set instanceof Refusal) throw set;
    expect(set.content).toMatchInlineSnapshot(`
      "import Credentials from './core/providers/credentials.js';

      export const authConfig = {
        providers: [
          Credentials({
            twoFactor: true, // users who turned two-factor on enter a code after authorize()
            credentials: { username: { label: 'Username' } },
            authorize: async () => null,
          }),
        ],
      };
      "
    `);
    expect(setProviderOption(ts, set.content, optIn)).toEqual({ content: set.content, changed: false });
    expect(removeProviderOption(ts, set.content, optIn)).toEqual({ content: multiLine, changed: true });
    expect(removeProviderOption(ts, multiLine, optIn)).toEqual({ content: multiLine, changed: false });
  });

  it('sets the option first on a one-line object, and in an empty one, and takes it out of both', () => {
    for (const [call, expected] of [
      ['Credentials({ authorize })', 'Credentials({ twoFactor: true, authorize })'],
      ['Credentials({})', 'Credentials({ twoFactor: true })'],
    ] as const) {
      const set = setProviderOption(ts, withCredentials(call), optIn);
      expect(set).toEqual({ content: withCredentials(expected), changed: true });
      expect(removeProviderOption(ts, withCredentials(expected), optIn)).toEqual({ content: withCredentials(call), changed: true });
    }
  });

  it('leaves a config without the provider alone', () => {
    expect(setProviderOption(ts, generated, optIn)).toEqual({ content: generated, changed: false });
    expect(removeProviderOption(ts, generated, optIn)).toEqual({ content: generated, changed: false });
  });

  it('refuses options that are not one object literal', () => {
    for (const call of ['Credentials(options)', 'Credentials()']) {
      const refusal = setProviderOption(ts, withCredentials(call), optIn);
      expect(refusal).toBeInstanceOf(Refusal);
      expect((refusal as Refusal).message).toBe('Credentials(…) does not take one object literal');
    }
  });

  it('refuses an object with a spread, which may set the option', () => {
    const refusal = setProviderOption(ts, withCredentials('Credentials({ ...shared, authorize })'), optIn);
    expect((refusal as Refusal).message).toBe('Credentials(…) has `...shared`, which may set twoFactor');
  });

  it('refuses to overwrite the option set to another value, and keeps twoFactor: false on removal', () => {
    expect((setProviderOption(ts, withCredentials('Credentials({ twoFactor: false, authorize })'), optIn) as Refusal).message).toBe('it sets `twoFactor: false` already');
    const optedOut = withCredentials('Credentials({ twoFactor: false, authorize })');
    expect(removeProviderOption(ts, optedOut, optIn)).toEqual({ content: optedOut, changed: false });
    expect((removeProviderOption(ts, withCredentials('Credentials({ twoFactor: enabled, authorize })'), optIn) as Refusal).message).toBe('it sets `twoFactor: enabled`, which may be true');
  });
});

describe('readAuthConfig: the adapter', () => {
  it('names the module of the adapter factory', () => {
    const source = generated
      .replace("import OIDC from './core/providers/oidc.js';", "import OIDC from './core/providers/oidc.js';\nimport { SqliteAdapter as Sqlite } from './core/adapters/sqlite.js';")
      .replace('  ],\n};', '  ],\n  adapter: Sqlite({ url: \'file:./auth.db\' }),\n};');
    expect(readAuthConfig(ts, source)).toMatchObject({ hasAdapter: true, adapterModule: 'core/adapters/sqlite' });
  });

  it('follows a top-level constant, and leaves the module unknown for an adapter made in place', () => {
    const viaConstant = generated
      .replace("import OIDC from './core/providers/oidc.js';", "import OIDC from './core/providers/oidc.js';\nimport { PostgresAdapter } from './core/adapters/postgres.js';\nconst adapter = PostgresAdapter();")
      .replace('  ],\n};', '  ],\n  adapter,\n};');
    expect(readAuthConfig(ts, viaConstant)).toMatchObject({ hasAdapter: true, adapterModule: 'core/adapters/postgres' });
    const inPlace = generated.replace('  ],\n};', '  ],\n  adapter: { createUser: async (user) => user },\n};');
    expect(readAuthConfig(ts, inPlace)).toMatchObject({ hasAdapter: true, adapterModule: undefined });
  });
});

describe('setAdapterInConfig', () => {
  const sqlite = { importName: 'SqliteAdapter', importPath: './core/adapters/sqlite.js', snippet: 'SqliteAdapter()' };

  it('adds the property after the last one and the named import, keeping comments', () => {
    const edit = setAdapterInConfig(ts, generated, sqlite);
    expect(edit.changed).toBe(true);
    expect(edit.content).toMatchInlineSnapshot(`
      "import './env.js';
      import type { FrameworkAuthConfig } from './core/index.js';
      import OIDC from './core/providers/oidc.js';
      import { SqliteAdapter } from './core/adapters/sqlite.js';

      export const authConfig: FrameworkAuthConfig = {
        basePath: '/auth',
        providers: [
          OIDC(), // the company IdP
        ],
        adapter: SqliteAdapter(),
      };
      "
    `);
  });

  it('imports under another name when SqliteAdapter is taken, and adds a comma when the last property has none', () => {
    const source = `import type { FrameworkAuthConfig } from './core/index.js';\nconst SqliteAdapter = 1;\n\nexport const authConfig: FrameworkAuthConfig = {\n  providers: [] // none yet\n};\n`;
    const edit = setAdapterInConfig(ts, source, sqlite);
    expect(edit.content).toContain("import { SqliteAdapter as SqliteAdapter2 } from './core/adapters/sqlite.js';");
    expect(edit.content).toContain('  providers: [], // none yet\n  adapter: SqliteAdapter2()\n};');
  });

  it('leaves a config that already uses this adapter alone', () => {
    const once = setAdapterInConfig(ts, generated, sqlite).content;
    expect(setAdapterInConfig(ts, once, sqlite)).toEqual({ content: once, changed: false });
  });

  it('refuses to replace another adapter', () => {
    const memory = setAdapterInConfig(ts, generated, { importName: 'MemoryAdapter', importPath: './core/adapters/memory.js', snippet: 'MemoryAdapter()' }).content;
    expect(() => setAdapterInConfig(ts, memory, sqlite)).toThrow('src/auth/config.ts: it already sets `adapter: MemoryAdapter()`');
  });
});
