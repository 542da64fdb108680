/**
 * The relay/layering ESLint rule (eslint.config.mjs) over one case of each layering fault and of each allowed import,
 * so the rule that keeps every service in its three rooms is known to report what it should, and only that.
 */
import { fileURLToPath } from 'node:url';
import { RuleTester } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, it } from 'vitest';
import { layering } from '../../eslint.config.mjs';

RuleTester.describe = describe;
RuleTester.it = it;

const root = fileURLToPath(new URL('../..', import.meta.url));
const at = (path: string) => `${root}services/${path}`;
const tester = new RuleTester({ languageOptions: { parser: tseslint.parser } });

tester.run('relay/layering', layering, {
  valid: [
    { filename: at('session/src/app/turns/run-turn.ts'), code: "import { turnRules } from '../../domain/turns/turn-rules.ts';" },
    { filename: at('session/src/app/turns/run-turn.ts'), code: "import type { Provider } from './provider.ts';" },
    { filename: at('session/src/adapters/grpc/session-grpc.ts'), code: "import { createSession } from '../../app/sessions/create-session.ts';" },
    { filename: at('session/src/adapters/grpc/session-grpc.ts'), code: "import { toSession } from './wire/session-wire.ts';" },
    { filename: at('session/src/main.ts'), code: "import { PrismaSessionStore } from './adapters/store/prisma-session-store.ts';" },
    { filename: at('session/src/domain/turns/turn.ts'), code: "import type { Turn } from '@relay/proto/relay/session/v1/turn';" },
    { filename: at('gateway/src/adapters/http/routes/cards.ts'), code: "import { userApi } from '../user-api.ts';" },
  ],
  invalid: [
    { filename: at('session/src/domain/turns/turn.ts'), code: "import { PrismaClient } from '@prisma/client';", errors: [{ messageId: 'fault' }] },
    { filename: at('session/src/domain/turns/turn.ts'), code: "import { runTurn } from '../../app/turns/run-turn.ts';", errors: [{ messageId: 'fault' }] },
    {
      filename: at('session/src/app/turns/run-turn.ts'),
      code: "import { ClaudeProvider } from '../../adapters/providers/claude/claude-provider.ts';",
      errors: [{ messageId: 'fault' }],
    },
    { filename: at('session/src/app/turns/run-turn.ts'), code: "import { config } from '../../config.ts';", errors: [{ messageId: 'fault' }] },
    {
      filename: at('session/src/adapters/bus/wakeup-consumer.ts'),
      code: "import { PrismaSessionStore } from '../store/prisma-session-store.ts';",
      errors: [{ messageId: 'fault' }],
    },
    {
      filename: at('session/src/adapters/grpc/session-grpc.ts'),
      code: "export { BackgroundTasks } from '../tasks/background-tasks.ts';",
      errors: [{ messageId: 'fault' }],
    },
    {
      filename: at('session/src/adapters/grpc/session-grpc.ts'),
      code: "import { questionGrpc } from '../../../../question/src/adapters/grpc/question-grpc.ts';",
      errors: [{ messageId: 'fault' }],
    },
    { filename: at('gateway/src/app/relay-tool/dispatch.ts'), code: "import { startSession } from '@relay/session';", errors: [{ messageId: 'fault' }] },
    { filename: at('gateway/src/app/relay-tool/dispatch.ts'), code: "import { Bus } from '@relay/bus/src/connect-bus.ts';", errors: [{ messageId: 'fault' }] },
  ],
});
