/**
 * RemoteAnswerSink over gRPC: the question service publishes question_answered to the asking conversation.
 */
import { callUnary } from '@relay/rpc';
import type { QuestionServiceClient } from '@relay/proto/relay/question/v1/question_service';
import type { RemoteAnswerSink } from '../../app/remote-ports.ts';

const DEADLINE_MS = 10_000;

export class RemoteAnswerClient implements RemoteAnswerSink {
  constructor(private readonly client: QuestionServiceClient) {}

  async publish(answer: {
    userId: string;
    askingSessionId: string;
    askId: string;
    answer: string;
    choice: string;
    dismissed: boolean;
    via: string;
  }): Promise<void> {
    await callUnary(this.client, 'publishRemoteAnswer', answer, { deadlineMs: DEADLINE_MS });
  }
}
