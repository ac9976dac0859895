import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  // test/fixtures/ holds users' projects as they are (CommonJS included), checked by the tests that scaffold into them.
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'test-results/**', '**/*.hbs', 'demo-app/**', 'test/fixtures/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    rules: {
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': 'off',
    },
  },
  {
    // Plain Node scripts.
    files: ['**/*.mjs', 'bin/**/*.js'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
  },
  {
    // The runtime is copied into users' projects: it may only import node:*, express types, oauth4webapi, jose
    // and itself by relative path.
    files: ['templates/runtime/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['**/src/**', '../../src/*'], message: 'The runtime never imports the CLI.' }] }],
    },
  },
);
