/** Test helpers of `@relax/rollout`: a fake launcher and an in-process gateway for Group tests. */
export { createFakeLauncher, type FakeAgentContext, type FakeAgentResult } from "./create-fake-launcher";
export {
  createTestGroupGateway,
  type TestGroupGateway,
  type TestGroupGatewayOptions,
  testGroupContext,
} from "./create-test-group-gateway";
