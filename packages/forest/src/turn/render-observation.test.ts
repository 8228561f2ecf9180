import type { ChatMessage, MediaExpansion, TokenRenderer } from "@relax/chat";
import { describe, expect, it } from "vitest";
import { ForestInputError } from "../errors/forest-input-error";
import { type InternalResponse, type InternalRoot, storeNode } from "../node/forest-node";
import { ROOT_STATE_HASH } from "../state/state-hash";
import { renderObservation } from "./render-observation";

const root = storeNode<InternalRoot>({
  kind: "root",
  stateHash: ROOT_STATE_HASH,
  parentStateHash: null,
  order: 0,
  messageCount: 0,
  tokens: new Int32Array(0),
  prefixTokens: 0,
  prefixTrainTokens: 0,
  children: [],
});
const response = { kind: "response", tokens: Int32Array.from([7, 8]) } as unknown as InternalResponse;
const messages: ChatMessage[] = [{ role: "user", content: "hi" }];

/** A renderer that records its calls: prompts render as [1, 2, 3], deltas as [4, 5]. */
function recordingRenderer(expand?: (ids: readonly number[]) => MediaExpansion | undefined) {
  const calls: string[] = [];
  const renderer: TokenRenderer = {
    renderPrompt: (state) => {
      calls.push(`prompt ${state.messages.length}`);
      return [1, 2, 3];
    },
    renderObservationDelta: ({ previousResponseIds }) => {
      calls.push(`delta after ${Array.from(previousResponseIds ?? []).join(",")}`);
      return [4, 5];
    },
    ...(expand && {
      expandMedia: ({ ids }) => {
        calls.push(`expand ${ids.join(",")}`);
        return expand(ids);
      },
    }),
  } as TokenRenderer;
  return { renderer, calls };
}

describe("renderObservation", () => {
  it("should render the full prompt under the root and a delta after a response", () => {
    const { renderer, calls } = recordingRenderer();
    const options = { messages, tools: [], chatTemplateKwargs: {} };
    const first = renderObservation(renderer, { parent: root, ...options });
    const next = renderObservation(renderer, { parent: response, ...options });
    expect(first).toEqual({ tokens: Int32Array.from([1, 2, 3]) });
    expect(next).toEqual({ tokens: Int32Array.from([4, 5]) });
    expect(calls).toEqual(["prompt 1", "delta after 7,8"]);
  });

  it("should add the training view when the renderer expands media", () => {
    const media = [{ kind: "image", tokens: 3 }] as unknown as MediaExpansion["media"];
    const { renderer, calls } = recordingRenderer((ids) => ({ trainIds: [...ids, 9, 9], media }));
    const observation = renderObservation(renderer, {
      parent: root,
      messages,
      tools: [],
      chatTemplateKwargs: {},
    });
    expect(observation.tokens).toEqual(Int32Array.from([1, 2, 3]));
    expect(observation.trainTokens).toEqual(Int32Array.from([1, 2, 3, 9, 9]));
    expect(observation.media).toBe(media);
    expect(calls).toEqual(["prompt 1", "expand 1,2,3"]);
    const none = recordingRenderer(() => undefined);
    expect(
      renderObservation(none.renderer, { parent: root, messages, tools: [], chatTemplateKwargs: {} }),
    ).toEqual({
      tokens: Int32Array.from([1, 2, 3]),
    });
  });

  it("should reject renderer output that is not token ids", () => {
    const bad = { ...recordingRenderer().renderer, renderPrompt: () => [1, -2] } as TokenRenderer;
    let error: unknown;
    try {
      renderObservation(bad, { parent: root, messages, tools: [], chatTemplateKwargs: {} });
    } catch (caught) {
      error = caught;
    }
    expect(ForestInputError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain("renderer output[1]");
  });
});
