/** Test helpers of `@relax/runtime`: an in-process gateway and a fake launcher. */
export { createFakeLauncher, type FakeAgentContext, type FakeAgentResult } from "./create-fake-launcher";
export { createTestGateway } from "./create-test-gateway";
