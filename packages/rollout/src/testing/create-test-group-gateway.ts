import {
  createTestGateway,
  TEST_BASE_URL,
  type TestGateway,
  type TestGatewayOptions,
} from "@relax/agent-api/testing";
import { createExportPipeline, type ExportConfigInput, type ExportPipeline } from "@relax/export";
import type { GroupContext } from "../group/run-group";

/** Options of {@link createTestGroupGateway}: the test gateway's, and the export pipeline's configuration. */
export interface TestGroupGatewayOptions extends TestGatewayOptions {
  /** Export configuration (`nSamplesPerPrompt: 2`, `agentWritesReward: true` by default). */
  export?: Partial<ExportConfigInput>;
}

/** A test gateway with an export pipeline, from which Group contexts are made. */
export interface TestGroupGateway extends TestGateway {
  exporter: ExportPipeline;
  /** A Group context over this gateway; the base URL is a name only `fetch` resolves. */
  groupContext(overrides?: Partial<GroupContext>): GroupContext;
}

/**
 * The in-process test gateway of `@relax/agent-api/testing` (Qwen3 tokenizer and template, the stand-in
 * engine, not a model) with an export pipeline (`agentWritesReward` by default), for Group tests.
 */
export async function createTestGroupGateway(
  options: TestGroupGatewayOptions = {},
): Promise<TestGroupGateway> {
  const gateway = await createTestGateway(options);
  const decode = (ids: number[]) => gateway.tokenizer.decode(ids, { skipSpecialTokens: false });
  const exporter = await createExportPipeline({
    config: { nSamplesPerPrompt: 2, agentWritesReward: true, ...options.export },
    decode,
  });
  return {
    ...gateway,
    exporter,
    groupContext: (overrides = {}) => testGroupContext({ ...gateway, exporter }, overrides),
  };
}

/**
 * A Group context over a test gateway: base URL {@link TEST_BASE_URL} (a name only the gateway's `fetch`
 * resolves), a 10 s agent timeout, a 5 s first-request timeout, tolerant matching, 4096 context tokens;
 * `overrides` win.
 */
export function testGroupContext(
  core: Pick<TestGroupGateway, "gate" | "registry" | "renderer" | "exporter">,
  overrides: Partial<GroupContext> = {},
): GroupContext {
  return {
    ...(core.gate !== undefined ? { gate: core.gate } : {}),
    registry: core.registry,
    renderer: core.renderer,
    exporter: core.exporter,
    baseUrl: TEST_BASE_URL,
    agentCommand: "in-process fake agent",
    agentCwd: process.cwd(),
    agentEnv: [],
    agentTimeoutMs: 10_000,
    firstRequestTimeoutMs: 5_000,
    matchingPolicy: "tolerant",
    maxContextTokens: 4096,
    keepSessionDirs: false,
    ...overrides,
  };
}
