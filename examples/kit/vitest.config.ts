import { relaxVitestConfig } from "../../vitest.shared";

export default relaxVitestConfig();
