import { relaxVitestConfig } from "../../vitest.shared.ts";

export default relaxVitestConfig();
