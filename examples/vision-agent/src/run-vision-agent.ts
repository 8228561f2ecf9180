import { readAgentSession, writeAgentOutput } from "@relax-examples/kit";
import OpenAI from "openai";
import { ZOOM_REGIONS, ZOOM_TOOL, type ZoomRegion, zoomInto } from "./zoom";

/** Labels the screenshots' buttons carry (see scripts/make-images.ts). */
export const BUTTON_LABELS = ["Open", "Save", "Quit"] as const;

/** At most this many model calls per session (zooms plus the answer). */
export const MAX_TURNS = 4;

/** The first button label named in an answer, or `null`. */
export function predictedLabel(text: string): string | null {
  let best: { label: string; at: number } | null = null;
  for (const label of BUTTON_LABELS) {
    const at = text.indexOf(label);
    if (at >= 0 && (best === null || at < best.at)) best = { label, at };
  }
  return best?.label ?? null;
}

type Message = OpenAI.ChatCompletionMessageParam;

/** The first image URL of the conversation: the screenshot the dataset gave. */
function screenshotOf(messages: readonly Message[]): string {
  for (const message of messages) {
    if (message.role !== "user" || typeof message.content === "string") continue;
    for (const part of message.content) if (part.type === "image_url") return part.image_url.url;
  }
  throw new Error("the session input has no screenshot (an image_url part in a user message)");
}

/**
 * A screenshot-style vision tool agent: the session's user message carries a screenshot (`image_url`,
 * converted by Relax from the dataset's `<image>` + `images`); the agent offers a `zoom` tool, answers each
 * call with a tool message holding the cropped half as an `image_url` part (images in tool results), and
 * stops at the first answer without a tool call. Reward: 1 when the answer names `metadata.answer`.
 * Run alone it needs `OPENAI_BASE_URL` and a session input at `RELAX_INPUT_JSON`.
 * @see docs/contract.md#agent-process-contract
 */
export async function runVisionAgent({ env = process.env }: { env?: NodeJS.ProcessEnv } = {}) {
  const session = readAgentSession({
    provider: "openai",
    env,
    fallbackInput: () => {
      throw new Error("the vision agent needs RELAX_INPUT_JSON (a screenshot in the first user message)");
    },
  });
  const messages = (session.input.messages ?? []) as unknown as Message[];
  const screenshot = screenshotOf(messages);
  const client = new OpenAI({
    baseURL: session.baseURL,
    apiKey: session.apiKey,
    // Relax may hold a request (first-request barrier, partial rollout): wait, never retry.
    timeout: 9_999_000,
    maxRetries: 0,
  });
  let zooms = 0;
  let answer = "";
  for (let turn = 0; turn < MAX_TURNS; turn++) {
    const response = await client.chat.completions.create({
      model: session.model,
      messages,
      tools: [ZOOM_TOOL],
    });
    const message = response.choices[0]?.message;
    if (!message) throw new Error("the model API returned no choice");
    messages.push(message);
    const calls = message.tool_calls ?? [];
    if (calls.length === 0) {
      answer = message.content ?? "";
      break;
    }
    for (const call of calls) {
      if (call.type !== "function") continue;
      let region: ZoomRegion | undefined;
      try {
        const parsed = JSON.parse(call.function.arguments) as { region?: unknown };
        region = ZOOM_REGIONS.find((name) => name === parsed.region);
      } catch {
        region = undefined;
      }
      zooms++;
      messages.push({
        role: "tool",
        tool_call_id: call.id,
        content:
          region === undefined
            ? `zoom: region must be one of ${ZOOM_REGIONS.join(", ")}`
            : ([
                { type: "text", text: `The ${region} half of the screenshot:` },
                { type: "image_url", image_url: { url: await zoomInto(screenshot, region) } },
              ] as unknown as string),
      });
    }
  }
  const expected = typeof session.input.metadata?.answer === "string" ? session.input.metadata.answer : null;
  const predicted = predictedLabel(answer);
  const output = {
    metadata: { ...(session.input.metadata ?? {}), predicted, zooms },
    reward: expected !== null && predicted === expected ? 1 : 0,
  };
  writeAgentOutput({ outputPath: session.outputPath, output });
  return { messages, output };
}
