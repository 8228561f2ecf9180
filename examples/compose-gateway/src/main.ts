import { runComposedGateway } from "./compose-gateway";

const { reply, row } = await runComposedGateway({ prompt: "What is 2 + 2?", answer: "2 + 2 = 4." });
console.log(`reply (from the stand-in engine, not a model): ${reply}`);
console.log(`row: ${row.prompt_length} prompt + ${row.response_length} response tokens`, row.loss_mask);
