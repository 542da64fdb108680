import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: [
      { extends: true, test: { name: 'unit', include: ['{packages,services,cli}/*/{src,test}/**/*.test.ts', 'cli/test/**/*.test.ts'], exclude: ['**/*.int.test.ts', '**/node_modules/**'] } },
      { extends: true, test: { name: 'integration', include: ['{packages,services}/*/test/**/*.int.test.ts', 'cli/test/**/*.int.test.ts'], testTimeout: 60_000, hookTimeout: 60_000 } },
      { extends: true, test: { name: 'e2e', include: ['test/**/*.test.ts'], testTimeout: 120_000, hookTimeout: 120_000, fileParallelism: false } },
    ],
  },
});
