import { Agent, run, setDefaultOpenAIClient, setOpenAIAPI, setTracingDisabled, tool } from "@openai/agents";
import { stableStringify } from "@relax/chat/internal";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createProtocolHandler } from "../src/index";
import { counterIds, scriptedGenerate, TEXT_TURN, TOOL_TURN } from "./support/scripted-generate";
import { serveHandler, type TestServer } from "./support/serve-handler";

let server: TestServer;
let script: ReturnType<typeof scriptedGenerate>;

beforeAll(async () => {
  script = scriptedGenerate([]);
  server = await serveHandler(createProtocolHandler({ generate: script.generate, createId: counterIds() }));
  setTracingDisabled(true);
  const client = new OpenAI({
    baseURL: `${server.url}/v1`,
    apiKey: "session-agents",
    maxRetries: 0,
    timeout: 10_000,
  });
  // @openai/agents bundles openai 7; the 6.x client has the same runtime surface it uses.
  setDefaultOpenAIClient(client as unknown as Parameters<typeof setDefaultOpenAIClient>[0]);
});

afterAll(async () => {
  await server.close();
});

async function runWeatherAgent(stream: boolean) {
  const toolCalls: unknown[] = [];
  const getWeather = tool({
    name: "get_weather",
    description: "Current weather in a city",
    parameters: z.object({ city: z.string(), unit: z.string() }),
    execute: async (input) => {
      toolCalls.push(input);
      return "18 and sunny";
    },
  });
  const agent = new Agent({
    name: "weather",
    instructions: "Answer weather questions.",
    model: "qwen3-8b",
    tools: [getWeather],
  });
  script.calls.length = 0;
  script.queue.push(TOOL_TURN, TEXT_TURN);
  if (stream) {
    const result = await run(agent, "Weather in Paris?", { stream: true });
    let text = "";
    for await (const event of result.toTextStream()) text += event;
    await result.completed;
    return { finalOutput: result.finalOutput, toolCalls, text };
  }
  const result = await run(agent, "Weather in Paris?");
  return { finalOutput: result.finalOutput, toolCalls, text: undefined };
}

/** Canonical state of each run's second request, by API and stream mode. */
const canonicalSecondTurns = new Map<string, string>();

describe.each(["chat_completions", "responses"] as const)("@openai/agents over %s", (api) => {
  beforeAll(() => {
    setOpenAIAPI(api);
  });

  it.each([false, true])("should run the tool loop and finish (stream %s)", async (stream) => {
    const outcome = await runWeatherAgent(stream);
    expect(outcome.toolCalls).toEqual([{ city: "Paris", unit: "celsius" }]);
    expect(outcome.finalOutput).toBe("It is 18 °C and sunny in Paris.");
    if (stream) expect(outcome.text).toContain("It is 18 °C and sunny in Paris.");
    expect(script.calls).toHaveLength(2);
    expect(script.calls[0]?.protocol).toBe(api === "responses" ? "responses" : "chat-completions");
    expect(script.calls[0]?.sessionId).toBe("session-agents");
    expect(script.calls[0]?.request.stream).toBe(stream);
    const second = script.calls[1]!.request;
    // The second request replays the first turn: the tool call keeps its id and canonical arguments,
    // and the tool output answers that id.
    expect(second.messages.slice(1)).toEqual([
      { role: "user", content: "Weather in Paris?" },
      {
        role: "assistant",
        content: "Let me check the weather.",
        reasoning_content: "The user wants the weather in Paris; call get_weather.",
        tool_calls: [
          {
            id: "call_7f3a9c",
            type: "function",
            function: { name: "get_weather", arguments: '{"city":"Paris","unit":"celsius"}' },
          },
        ],
      },
      { role: "tool", content: "18 and sunny", tool_call_id: "call_7f3a9c" },
    ]);
    expect(second.messages[0]).toEqual({ role: "system", content: "Answer weather questions." });
    canonicalSecondTurns.set(
      `${api}/${stream}`,
      stableStringify({ messages: second.messages, tools: second.tools, kwargs: second.chatTemplateKwargs }),
    );
  });
});

describe("@openai/agents across APIs", () => {
  it("should project the same conversation to the same canonical state over both APIs and modes", () => {
    expect([...canonicalSecondTurns.keys()]).toEqual([
      "chat_completions/false",
      "chat_completions/true",
      "responses/false",
      "responses/true",
    ]);
    expect(new Set(canonicalSecondTurns.values()).size).toBe(1);
  });
});
