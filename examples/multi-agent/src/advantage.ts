/**
 * The custom advantage module for
 * `relax rollout --agentic-custom-advantage-path examples/multi-agent/dist/advantage.js#advantage`
 * (default export too). See {@link searchCreditAdvantage}.
 */
import { searchCreditAdvantage } from "./search-credit-advantage";

export { searchCreditAdvantage as advantage };
export default searchCreditAdvantage;
