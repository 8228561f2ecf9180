/**
 * @module @relax-examples/multi-agent
 * A main agent with searcher sub-agents over a local corpus, explicit JSONL export of several contexts,
 * a custom advantage function and a stand-in policy.
 */
export {
  createMultiAgentPolicy,
  type MultiAgentPolicyOptions,
  multiAgentPolicy,
} from "./create-multi-agent-policy";
export { multiAgentInputFromArgs } from "./multi-agent-session-input";
export {
  buildQuestionPrompt,
  buildSearcherPrompt,
  MAIN_SYSTEM_PROMPT,
  NO_ANSWER,
  QUESTION_INSTRUCTION,
  queryFromSearcherPrompt,
  questionFromPrompt,
  SEARCHER_SYSTEM_PROMPT,
} from "./prompts";
export { retrievePassages, tokenize } from "./retrieve-passages";
export {
  MAIN_MAX_TURNS,
  type MultiAgentEpisode,
  type RunMultiAgentOptions,
  runMultiAgent,
} from "./run-multi-agent";
export { runSearcher, type SearcherRun } from "./run-searcher";
export { extractAnswer, normalizeAnswer, scoreAnswer } from "./score-answer";
export {
  type ContextCreditSlot,
  type ContextMetadataSlot,
  SEARCHER_CREDIT_SHARE,
  searchCreditAdvantage,
} from "./search-credit-advantage";
export { searchArgumentsSchema, searchTool } from "./search-tool";
export {
  CORPUS_FILE,
  type CorpusDocument,
  corpusDocumentSchema,
  QUESTIONS_FILE,
  type QuestionHop,
  questionHopSchema,
  readCorpus,
  readJsonl,
  readQuestions,
  type VeloranQuestion,
  veloranQuestionSchema,
} from "./veloran-data";
