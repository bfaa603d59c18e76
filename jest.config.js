/** Unit specs live beside the code (libs/, projections/); end-to-end specs under test/. */
module.exports = {
  // Node's, closing what a suite left open (test/support/suite-resources.ts).
  testEnvironment: '<rootDir>/test/support/closing-environment.js',
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.jest.json', diagnostics: false }] },
  moduleFileExtensions: ['ts', 'js', 'json'],
  testMatch: [
    '<rootDir>/libs/**/*.spec.ts',
    '<rootDir>/projections/**/*.spec.ts',
    '<rootDir>/apps/**/*.spec.ts',
    '<rootDir>/test/**/*.e2e-spec.ts',
  ],
  testTimeout: 60000,
  maxWorkers: 2,
  reporters: ['default', '<rootDir>/test/support/summary-reporter.js'],
};
