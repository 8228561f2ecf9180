/**
 * @module @relax/forest/testing
 * Test helpers for packages that embed the SessionForest: a readable character-level renderer.
 */
export { CHAR_IM_END, CHAR_IM_START, type CharRenderer, createCharRenderer } from "./char-renderer";
