/**
 * @module @relax-examples/vision-agent
 * A screenshot-style vision tool agent, its stand-in policy (not a model) and zoom tool.
 */
export { visionPolicy } from "./create-vision-policy";
export { BUTTON_LABELS, MAX_TURNS, predictedLabel, runVisionAgent } from "./run-vision-agent";
export { ZOOM_REGIONS, ZOOM_TOOL, type ZoomRegion, zoomInto } from "./zoom";
