import { describe, expect, it } from "vitest";
import { resolveHandlerSettings } from "./handler-options";

describe("resolveHandlerSettings", () => {
  const generate = async () => {
    throw new Error("unused");
  };
  it("should apply the documented defaults", () => {
    const settings = resolveHandlerSettings({ generate });
    expect(settings).toMatchObject({
      generate,
      heartbeatMs: 15_000,
      basePath: "",
      defaultModel: "relax",
      maxRequestBytes: 32 * 1024 * 1024,
      maxJsonDepth: 128,
    });
    expect(settings.now).toBe(Date.now);
    expect(settings.createId("msg")).toMatch(/^msg_[0-9a-f]+$/);
  });

  it("should keep what the caller set, 0 included", () => {
    const settings = resolveHandlerSettings({
      generate,
      heartbeatMs: 0,
      basePath: "/agentic_api",
      maxJsonDepth: 4,
    });
    expect([settings.heartbeatMs, settings.basePath, settings.maxJsonDepth]).toEqual([0, "/agentic_api", 4]);
  });
});
