import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { QWEN_VL_STYLE_CHAT_TEMPLATE } from "@relax/chat";
import {
  bundleAgentEntries,
  chatCompletion,
  runAgentProcess,
  type ScriptedServer,
  startScriptedServer,
} from "@relax-examples/kit/testing";
import sharp from "sharp";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { predictedLabel, visionPolicy, ZOOM_TOOL, zoomInto } from "../src/index";

const packageDir = join(import.meta.dirname, "..");
const screen = (i: number) => readFileSync(join(packageDir, "data", "images", `screen-${i}.png`));
const dataUri = (bytes: Buffer) => `data:image/png;base64,${bytes.toString("base64")}`;

async function pixels(uri: string) {
  const bytes = Buffer.from(uri.slice("data:image/png;base64,".length), "base64");
  return sharp(bytes).raw().toBuffer({ resolveWithObject: true });
}

describe("vision-agent pieces", () => {
  it("should ship the template of @relax/chat and 112×84 RGB screenshots", async () => {
    expect(readFileSync(join(packageDir, "chat_template.jinja"), "utf8")).toBe(QWEN_VL_STYLE_CHAT_TEMPLATE);
    for (const i of [0, 1, 2]) {
      expect(await sharp(screen(i)).metadata()).toMatchObject({
        format: "png",
        width: 112,
        height: 84,
        channels: 3,
      });
    }
  });

  it("should crop the bottom half, where the highlighted button's yellow frame is", async () => {
    const { data, info } = await pixels(await zoomInto(dataUri(screen(1)), "bottom"));
    expect([info.width, info.height, info.channels]).toEqual([112, 42, 3]);
    // Screen 1 highlights the second button: its frame starts at x = 40, y = 50 (y = 8 in the bottom half).
    const at = (x: number, y: number) => [...data.subarray((y * 112 + x) * 3, (y * 112 + x) * 3 + 3)];
    expect(at(40, 8)).toEqual([250, 210, 0]);
    expect(at(6, 8)).toEqual([240, 240, 240]);
    expect((await pixels(await zoomInto(dataUri(screen(1)), "top"))).info.height).toBe(42);
  });

  it("should read the label an answer names, and script the stand-in turns", () => {
    expect(predictedLabel("It is Save, not Quit.")).toBe("Save");
    expect(predictedLabel("no idea")).toBeNull();
    expect(visionPolicy({ inputIds: [], promptText: "<|im_start|>user\n…" })).toEqual({
      text: '<tool_call>\n{"name": "zoom", "arguments": {"region": "bottom"}}\n</tool_call>',
    });
    expect(visionPolicy({ inputIds: [], promptText: "<tool_response>\n…" })).toEqual({
      text: "The highlighted button is Save.",
    });
  });
});

let entry = "";
beforeAll(async () => {
  ({ agent: entry } = (await bundleAgentEntries({ packageDir, entries: { agent: "src/agent.ts" } })) as {
    agent: string;
  });
});
let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("vision agent as a child process", () => {
  it("should send the zoomed half as an image_url part of the tool message and write the reward", async () => {
    server = await startScriptedServer({
      replies: [
        {
          json: chatCompletion({
            toolCalls: [{ id: "call_1", name: "zoom", arguments: '{"region":"bottom"}' }],
          }),
        },
        { json: chatCompletion({ content: "The highlighted button is Save." }) },
      ],
    });
    const io = mkdtempSync(join(tmpdir(), "vision-agent-"));
    const user = {
      role: "user",
      content: [
        { type: "image_url", image_url: { url: dataUri(screen(1)) } },
        { type: "text", text: "Which button is highlighted?" },
      ],
    };
    writeFileSync(
      join(io, "input.json"),
      JSON.stringify({ messages: [user], metadata: { id: "screen-1", answer: "Save" } }),
    );
    const result = await runAgentProcess({
      entry,
      cwd: packageDir,
      env: {
        RELAX_INPUT_JSON: join(io, "input.json"),
        RELAX_OUTPUT_JSON: join(io, "output.json"),
        RELAX_SESSION_IO_DIR: io,
        RELAX_BASE_URL: `${server.origin}/agentic_api/`,
        RELAX_SESSION_ID: "sess-vision-1",
        RELAX_ROLLOUT_MODE: "train",
        RELAX_GROUP_ID: "group-0",
      },
    });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(server.requests).toHaveLength(2);
    expect(server.requests[0]!.body).toEqual({ model: "model", messages: [user], tools: [ZOOM_TOOL] });
    const second = server.requests[1]!.body as { messages: Array<Record<string, unknown>> };
    const tool = second.messages[2] as {
      role: string;
      tool_call_id: string;
      content: Array<{ type: string; text?: string; image_url?: { url: string } }>;
    };
    expect([tool.role, tool.tool_call_id, tool.content[0]]).toEqual([
      "tool",
      "call_1",
      { type: "text", text: "The bottom half of the screenshot:" },
    ]);
    expect(tool.content[1]!.image_url?.url).toBe(await zoomInto(dataUri(screen(1)), "bottom"));
    expect(JSON.parse(readFileSync(join(io, "output.json"), "utf8"))).toEqual({
      metadata: { id: "screen-1", answer: "Save", predicted: "Save", zooms: 1 },
      reward: 1,
    });
  });
});
