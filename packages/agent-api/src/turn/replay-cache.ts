import type { AssistantTurn, CanonicalRequest } from "@relax/chat";
import type { SessionForest } from "@relax/forest";
import type { ResponseFormatConstraint } from "@relax/protocol";

/** A request's answer as committed: what the agent was told and the response node it is in the forest. */
export interface AnsweredTurn {
  turn: AssistantTurn;
  /** The response node the answer was committed as. */
  responseStateHash: string;
  /** The turn that generated it. */
  turnId: number;
}

/**
 * A kept answer: settled, or still generating. `claim` marks the caller as a reader of a generation whose
 * own client may have left (see `RetryWindow`); call the function it returns when done waiting.
 */
export interface KeptAnswer {
  answer: Promise<AnsweredTurn>;
  claim: () => () => void;
}

const NO_RELEASE = (): void => {};

/** Answers kept per forest: a retry repeats one of the last requests, not one from long ago. */
const KEPT_PER_FOREST = 32;

/**
 * The answers of a session's recent requests, so that an identical request — a client retry, sent after the
 * first was answered or while it is still generating — is answered from the committed response instead of
 * generating twice from one state (which would fork the history and drop the Group). Identical means: the
 * same conversation state (the forest's observation state hash: messages, tools, template kwargs) and the
 * same per-turn parameters the agent controls (`max_tokens`, `stop`, `seed`, `logprobs`, the response
 * format). An app that wants several samples of one state sends another `seed` (docs/contract.md#idempotent-requests).
 * Held per forest in a `WeakMap`: a closed session's answers go with it.
 */
export class ReplayCache {
  readonly #byForest = new WeakMap<SessionForest, Map<string, KeptAnswer>>();

  /** The key of a request continuing observation `observationStateHash`. */
  static keyOf(
    observationStateHash: string,
    request: CanonicalRequest,
    responseFormat: ResponseFormatConstraint | undefined,
  ): string {
    const { maxTokens, stop, seed, logprobs } = request;
    return `${observationStateHash}\n${JSON.stringify([maxTokens, stop, seed, logprobs === true, responseFormat])}`;
  }

  /** The answer (settled or still generating) of an earlier identical request, if one is kept. */
  lookup(forest: SessionForest, key: string): KeptAnswer | undefined {
    return this.#byForest.get(forest)?.get(key);
  }

  /**
   * Keeps `answer` as the answer of `key` (the oldest of the forest's kept answers is let go past
   * {@link KEPT_PER_FOREST}). A rejected answer is forgotten, so a retry after a failed turn generates.
   * `claim` defaults to a no-op (an answer whose generation does not outlive its client).
   */
  keep(
    forest: SessionForest,
    key: string,
    answer: Promise<AnsweredTurn>,
    claim: () => () => void = () => NO_RELEASE,
  ): void {
    let answers = this.#byForest.get(forest);
    if (answers === undefined) {
      answers = new Map();
      this.#byForest.set(forest, answers);
    }
    const kept: KeptAnswer = { answer, claim };
    answers.delete(key);
    answers.set(key, kept);
    if (answers.size > KEPT_PER_FOREST) answers.delete(answers.keys().next().value as string);
    answer.catch(() => {
      if (answers.get(key) === kept) answers.delete(key);
    });
  }
}
