import type { ViewModel } from "../model/view-model";
import { CLIENT_SCRIPT } from "./client-bundle.generated";
import { PAGE_STYLE } from "./page-style";

/**
 * Renders the page model as ONE self-contained HTML document: the stylesheet, the model (JSON in a
 * `<script type="application/json">`) and the client script are inlined; nothing is fetched, so the file
 * works offline and from `file://`. `<` in the JSON is written as `\u003c`, so no text in the model can
 * close the script element.
 */
export function renderPage(model: ViewModel): string {
  const data = JSON.stringify(model)
    .replace(/</g, "\\u003c")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");
  const title = model.title.replace(/[&<>"]/g, (char) => `&#${char.charCodeAt(0)};`);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<title>${title}</title>
<style>${PAGE_STYLE}</style>
</head>
<body>
<main id="app"></main>
<script type="application/json" id="relax-view-data">${data}</script>
<script>${CLIENT_SCRIPT.replace(/<\/script/gi, "<\\/script")}</script>
</body>
</html>
`;
}
