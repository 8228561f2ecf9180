import sharp from "sharp";

/** The regions the `zoom` tool can show. */
export const ZOOM_REGIONS = ["top", "bottom"] as const;
export type ZoomRegion = (typeof ZOOM_REGIONS)[number];

/** The `zoom` tool as the agent declares it (OpenAI Chat function tool). */
export const ZOOM_TOOL = {
  type: "function" as const,
  function: {
    name: "zoom",
    description: "Show one half of the screenshot at full resolution.",
    parameters: {
      type: "object",
      properties: { region: { type: "string", enum: [...ZOOM_REGIONS] } },
      required: ["region"],
    },
  },
};

/**
 * Crops the `region` half of a screenshot given as a `data:` URI and returns it as an RGB PNG `data:` URI
 * (what a screenshot tool of a computer-use agent returns). Decoding and encoding use sharp.
 *
 * @throws Error for a URL that is not a base64 `data:` URI, or bytes sharp cannot decode.
 */
export async function zoomInto(screenshot: string, region: ZoomRegion): Promise<string> {
  const match = /^data:image\/[a-z0-9.+-]+;base64,(.*)$/is.exec(screenshot);
  if (!match) throw new Error("zoom: the screenshot must be a base64 data: URI");
  const bytes = Buffer.from(match[1]!, "base64");
  const { width = 0, height = 0 } = await sharp(bytes).metadata();
  const half = Math.floor(height / 2);
  const crop = await sharp(bytes)
    .extract({ left: 0, top: region === "top" ? 0 : height - half, width, height: half })
    .removeAlpha()
    .png()
    .toBuffer();
  return `data:image/png;base64,${crop.toString("base64")}`;
}
