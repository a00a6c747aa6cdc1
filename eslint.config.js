// Lint enforces the layer rule of ARCHITECTURE.md: imports point one way.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import importPlugin from 'eslint-plugin-import';
import reactHooks from 'eslint-plugin-react-hooks';

const zone = (target, from, message) => ({ target: `./src/${target}`, from: from.map((f) => `./src/${f}`), message });
const all = ['core', 'engine', 'runtime', 'adapters', 'operator', 'api', 'auth', 'observability', 'config', 'cli', 'ui', 'main'];
const except = (...keep) => all.filter((f) => !keep.includes(f));

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '**/*.js', '**/*.generated.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['src/**/*.ts'],
    ignores: ['src/ui/**'],
    plugins: { import: importPlugin },
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    settings: {
      'import/resolver': { typescript: { project: './tsconfig.json' } },
      'import/parsers': { '@typescript-eslint/parser': ['.ts'] },
      'import/extensions': ['.ts'],
    },
    rules: {
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'import/no-cycle': ['error', { maxDepth: 10 }],
      // Budgets are errors (CONVENTIONS 15): a file or function past them is split, not waved through.
      complexity: ['error', 25],
      'max-depth': ['error', 5],
      'max-params': ['error', 6],
      'max-lines': ['error', { max: 400, skipBlankLines: true, skipComments: true }],
      '@typescript-eslint/no-floating-promises': 'error',
      'import/no-restricted-paths': ['error', { zones: [
        zone('core', except('core'), 'core is pure: it imports nothing of svc outside core'),
        zone('engine', except('core', 'engine'), 'engine depends on core only'),
        zone('runtime', except('core', 'runtime'), 'runtime depends on core only'),
        zone('adapters', except('core', 'adapters'), 'adapters depend on core only'),
        zone('api', ['adapters', 'runtime', 'operator', 'cli', 'main'], 'api receives ports through deps'),
        zone('auth', ['adapters', 'runtime', 'operator', 'cli', 'main', 'api'], 'auth receives ports through deps'),
        zone('operator', ['adapters', 'runtime', 'api', 'cli', 'main'], 'operator calls engine only'),
        zone('config', except('core', 'config'), 'config depends on core only'),
        zone('observability', except('core', 'observability', 'config'), 'observability is a leaf'),
        zone('cli', ['adapters', 'runtime'], 'cli uses main for wiring'),
      ] }],
    },
  },
  {
    files: ['src/core/**/*.ts'],
    ignores: ['src/core/**/*.test.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [
        { group: ['node:*', 'fs', 'child_process', 'path', 'os', 'express', 'pino', '@kubernetes/*', 'prom-client'], message: 'core does no I/O' },
      ] }],
      'no-restricted-globals': ['error', { name: 'process', message: 'core reads no environment' }],
      'no-restricted-properties': ['error',
        { object: 'Date', property: 'now', message: 'core reads no clock: take now as an argument' },
        { object: 'Math', property: 'random', message: 'core uses no randomness: take an IdGen' }],
    },
  },
  {
    // The engine, like core, takes time and identity from its Clock and IdGen, and sees the environment
    // only as config hands it over (EngineDeps.systemEnv): the operator and tests inject both.
    files: ['src/engine/**/*.ts'],
    ignores: ['src/engine/**/*.test.ts'],
    rules: {
      'no-restricted-globals': ['error', { name: 'process', message: 'the engine reads no environment: take it from EngineDeps' }],
      'no-restricted-properties': ['error',
        { object: 'Date', property: 'now', message: 'the engine reads no clock: use deps.clock' },
        { object: 'Math', property: 'random', message: 'the engine uses no randomness: use deps.ids' },
        { object: 'performance', property: 'now', message: 'the engine reads no clock: use deps.clock' }],
      'no-restricted-syntax': ['error', { selector: "NewExpression[callee.name='Date'][arguments.length=0]", message: 'the engine reads no clock: new Date(deps.clock.now())' }],
    },
  },
  {
    // The web UI: a browser bundle with its own tsconfig (src/ui/tsconfig.json); the same budgets, and
    // React's rules of hooks. It talks to the server only over HTTP: it imports nothing of svc outside src/ui.
    files: ['src/ui/**/*.{ts,tsx}'],
    plugins: { import: importPlugin, 'react-hooks': reactHooks },
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    settings: {
      'import/resolver': { typescript: { project: './src/ui/tsconfig.json' } },
      'import/parsers': { '@typescript-eslint/parser': ['.ts', '.tsx'] },
      'import/extensions': ['.ts', '.tsx'],
    },
    rules: {
      ...reactHooks.configs.flat['recommended-latest'].rules,
      'react-hooks/exhaustive-deps': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'import/no-cycle': ['error', { maxDepth: 10 }],
      complexity: ['error', 25],
      'max-depth': ['error', 5],
      'max-params': ['error', 6],
      'max-lines': ['error', { max: 400, skipBlankLines: true, skipComments: true }],
      '@typescript-eslint/no-floating-promises': 'error',
      'import/no-restricted-paths': ['error', { zones: [
        zone('ui', except('ui', 'core'), 'the UI reaches the server over HTTP only (pure core code, such as the loader\'s messages, it may share)'),
        // The admin chunk is loaded lazily: only components/lazy-admin.tsx reaches into it (src/ui/README.md).
        { target: ['./src/ui/{api,auth,editor,lib,pages}/**', './src/ui/*.tsx', './src/ui/components/!(lazy-admin).tsx'], from: './src/ui/admin', message: 'import the admin pages through components/lazy-admin.tsx (their own chunk)' },
      ] }],
    },
  },
);
