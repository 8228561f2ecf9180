import { drawLongTail, type LongTailParams } from "./draw-long-tail";

/** A chat message as the long-tail agent keeps it (OpenAI Chat Completions shape). */
export type ChatMessage = { role: string; content: string | null } & Record<string, unknown>;

/** Options of {@link runLongTailSession}. */
export interface LongTailSessionOptions {
  /** The session's input messages (from `RELAX_INPUT_JSON`). */
  messages: ChatMessage[];
  /** Seeds the draw: the same key gives the same turn count and tool latencies. */
  key: string;
  params?: Partial<LongTailParams>;
  /** One chat completion: returns the assistant message. */
  complete: (messages: ChatMessage[]) => Promise<ChatMessage>;
  /** Waits `ms` (the "tool call"). @default a timer */
  sleep?: (ms: number) => Promise<void>;
}

/** What a long-tail session did; `reward` is 1 when it ended within the median turn count, else 0. */
export interface LongTailSessionResult {
  messages: ChatMessage[];
  turns: number;
  toolMs: number;
  reward: number;
}

/**
 * The long-tail agent's loop: draw a heavy-tailed plan, then per turn ask the model, append its message
 * whole, and (except after the last turn) "run a tool" for the drawn latency and append its observation
 * as a user message. The reward (1 when the session needed at most the median turn count) gives a Group
 * reward variance, so GRPO credit is not all zero.
 */
export async function runLongTailSession(options: LongTailSessionOptions): Promise<LongTailSessionResult> {
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const plan = drawLongTail(options.key, options.params);
  const messages = [...options.messages];
  let toolMs = 0;
  for (let turn = 0; turn < plan.turns; turn++) {
    messages.push(await options.complete(messages));
    const latency = plan.toolLatenciesMs[turn];
    if (latency === undefined) break;
    await sleep(latency);
    toolMs += latency;
    messages.push({ role: "user", content: `Tool result ${turn + 1}: done in ${latency} ms. Continue.` });
  }
  const median = options.params?.turnMedian ?? 3;
  return { messages, turns: plan.turns, toolMs, reward: plan.turns <= median ? 1 : 0 };
}
