// Lint rules the code is held to (run by `npm test` through `npm run lint`, with Prettier's check).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      'coverage/**',
      'test-output/**',
      'apps/dashboard/dist/**',
      'native/**/build/**',
      '**/*.js',
      '**/*.mjs',
      '**/*.cjs',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      // Decorated Nest parameters and catch bindings are often unused by design; an underscore says so.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_' },
      ],
      // Parsed wire formats (XML, JSON reports, DNS packets) are untyped at the boundary.
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
  {
    // class-validator's IsOptional lets `null` through as if the field were absent (contract §16).
    files: ['**/*.ts'],
    ignores: ['libs/shared/http/validation.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: 'class-validator',
              importNames: ['IsOptional'],
              message:
                'Use OptionalField (null refused) or NullableField (null meaningful) from libs/shared/http/validation.',
            },
          ],
        },
      ],
    },
  },
);
