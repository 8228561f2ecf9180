/** Test helpers of `@relax/agent-api`: an in-process gateway over the stand-in engine (not a model). */
export {
  createTestGateway,
  createTestRenderStack,
  createTestStandin,
  TEST_BASE_URL,
  type TestGateway,
  type TestGatewayOptions,
  type TestRenderStack,
} from "./create-test-gateway";
