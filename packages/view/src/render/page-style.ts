/**
 * The page's stylesheet (inlined): light and dark palettes (the system setting, or `t` to toggle), fixed
 * strip geometry (no layout shift while lines are virtualised), and the token colours the e2e test checks.
 */
export const PAGE_STYLE = `
:root{color-scheme:light dark;--bg:#ffffff;--fg:#1b1f24;--muted:#5b636e;--line:#d5dae0;--panel:#f5f7f9;
--gen:#b7e4c1;--gen-fg:#0b3d1a;--delta:#e4e8ee;--prompt:transparent;--accent:#0a58ca;--warn:#a15c00;--bad:#b42318;
--edit:#fff0c2;--edit-fg:#5c4400;--wv0:#0a58ca;--wv1:#b42318;--wv2:#7a3fb8;--wv3:#0f7b6c;--wv4:#a15c00;--wv5:#c2185b}
:root[data-theme=dark]{--bg:#14171b;--fg:#e3e7ec;--muted:#9aa4af;--line:#333a43;--panel:#1c2026;
--gen:#1f5a32;--gen-fg:#d9f5e1;--delta:#2b313a;--accent:#7ab2ff;--warn:#f0b35a;--bad:#ff8a80;--edit:#4a3c10;--edit-fg:#ffe7a3;
--wv0:#7ab2ff;--wv1:#ff8a80;--wv2:#c6a0ff;--wv3:#5fd4c0;--wv4:#f0b35a;--wv5:#ff80b0}
@media (prefers-color-scheme:dark){:root:not([data-theme=light]){--bg:#14171b;--fg:#e3e7ec;--muted:#9aa4af;--line:#333a43;--panel:#1c2026;
--gen:#1f5a32;--gen-fg:#d9f5e1;--delta:#2b313a;--accent:#7ab2ff;--warn:#f0b35a;--bad:#ff8a80;--edit:#4a3c10;--edit-fg:#ffe7a3;
--wv0:#7ab2ff;--wv1:#ff8a80;--wv2:#c6a0ff;--wv3:#5fd4c0;--wv4:#f0b35a;--wv5:#ff80b0}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif}
#app{max-width:1400px;margin:0 auto;padding:16px 24px 64px}
h1{font-size:20px;margin:8px 0 12px}h2{font-size:16px;margin:20px 0 8px}h3{font-size:14px;margin:14px 0 6px}
h1:focus,h1[tabindex]:focus-visible{outline:none}small{color:var(--muted);font-weight:normal}
a{color:var(--accent)}a:focus-visible,button:focus-visible,[tabindex]:focus-visible{outline:2px solid var(--accent);outline-offset:1px}
code,pre,.strip{font-family:ui-monospace,"SFMono-Regular",Menlo,Consolas,monospace}
.crumbs{color:var(--muted);font-size:13px}
.facts{display:flex;flex-wrap:wrap;gap:8px 24px;margin:8px 0}.facts div{display:flex;gap:6px}.facts dt{color:var(--muted)}.facts dd{margin:0;font-weight:600}
table{border-collapse:collapse;width:100%;font-size:13px}th,td{border-bottom:1px solid var(--line);padding:4px 8px;text-align:left;vertical-align:top}
td.n{text-align:right;font-variant-numeric:tabular-nums}
th button{all:unset;cursor:pointer;font-weight:600}th[aria-sort=ascending] button::after{content:" ▲"}th[aria-sort=descending] button::after{content:" ▼"}
.badge{display:inline-block;padding:0 6px;border-radius:8px;border:1px solid var(--line);font-size:12px;text-decoration:none;color:var(--fg)}
.badge.exported{border-color:var(--accent);color:var(--accent)}.badge.dropped,.badge.warn{color:var(--bad);border-color:var(--bad)}
.badge.filtered{color:var(--warn);border-color:var(--warn)}.badge.drift{color:var(--warn);border-color:var(--warn)}.badge.branch,.badge.reset{color:var(--bad);border-color:var(--bad)}
.badge.observation{background:var(--delta)}.badge.response{background:var(--gen);color:var(--gen-fg)}
.edit{display:inline-block;padding:0 6px;border-radius:4px;font:12px ui-monospace,monospace}.edit.tolerated{background:var(--edit);color:var(--edit-fg)}
.edit.forked{background:var(--bad);color:var(--bg)}
.tree{list-style:none;margin:0;padding:0}.node{padding:4px 8px 4px calc(8px + var(--depth) * 20px);border-left:3px solid transparent;border-bottom:1px solid var(--line)}
.node:focus{background:var(--panel);border-left-color:var(--accent);outline:none}.node .preview{color:var(--muted);font-size:12px;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
.hash{color:var(--muted)}.count,.turn{color:var(--muted);font-size:12px}.not-exported{color:var(--bad);font-size:12px}.link-reset{color:var(--warn);font-size:12px}
.legend-row{display:flex;flex-wrap:wrap;gap:8px;align-items:center;margin:8px 0;font-size:13px}
.info{height:26px;line-height:26px;overflow:hidden;white-space:nowrap;text-overflow:ellipsis;border:1px solid var(--line);border-bottom:0;padding:0 8px;background:var(--panel);font-size:13px}
.strip{position:relative;height:60vh;min-height:320px;overflow:auto;border:1px solid var(--line);contain:strict;font-size:12.5px}
.strip-spacer{position:relative;width:100%}
.line{position:absolute;left:0;right:0;height:22px;line-height:20px;white-space:pre;overflow:hidden;padding-left:64px}
.ln{position:absolute;left:0;width:56px;text-align:right;color:var(--muted);font-size:11px}
.tok{display:inline-block;height:20px;padding:0 1px;margin-right:1px;border-radius:2px;white-space:pre}
.tok.prompt{background:var(--prompt)}.tok.delta{background:var(--delta)}.tok.gen{background:var(--gen);color:var(--gen-fg)}
.shade .tok.gen{background:color-mix(in srgb,var(--gen) calc(var(--p) * 100%),transparent)}
.tok.turn-start{box-shadow:inset 2px 0 0 var(--accent)}.tok.abort{box-shadow:inset -3px 0 0 var(--bad)}
.tok.wv{border-bottom:2px solid var(--wv0)}.wv1{border-bottom-color:var(--wv1)!important}.wv2{border-bottom-color:var(--wv2)!important}
.wv3{border-bottom-color:var(--wv3)!important}.wv4{border-bottom-color:var(--wv4)!important}.wv5{border-bottom-color:var(--wv5)!important}
.legend.wv{border-bottom:2px solid var(--wv0);padding:0 4px}
.tok.sel{outline:2px solid var(--accent);outline-offset:-1px}
.turn-panel{border:1px solid var(--line);border-radius:4px;margin:6px 0;padding:4px 8px}.turn-panel summary{cursor:pointer}
.pair,.diff{display:grid;grid-template-columns:1fr 1fr;gap:12px}.side h3{margin-top:4px}
.msg{border:1px solid var(--line);border-radius:4px;margin:6px 0;padding:4px 8px;background:var(--panel)}
.msg.differs{border:2px solid var(--bad)}.msg .role{font-size:12px;color:var(--muted);font-weight:600}
.msg pre{margin:2px 0;white-space:pre-wrap;word-break:break-word;font-size:12.5px}.msg pre.reasoning{color:var(--muted);font-style:italic}
.msg pre.call{color:var(--accent)}.note{color:var(--muted)}.error{color:var(--bad)}
.drops{margin:4px 0}
.filters{display:flex;flex-wrap:wrap;gap:8px 16px;align-items:center;margin:8px 0;padding:6px 8px;border:1px solid var(--line);border-radius:4px;background:var(--panel);font-size:13px}
.filters output{color:var(--muted)}.badge.class{border-style:dashed}.classes{margin:6px 0}
.about h2{margin-top:8px}.prompt-text{white-space:pre-wrap;word-break:break-word;font-size:12.5px;max-height:320px;overflow:auto}
.tok.img{background:repeating-linear-gradient(45deg,var(--delta),var(--delta) 3px,var(--panel) 3px,var(--panel) 6px);color:var(--muted)}
.row-images{display:flex;flex-wrap:wrap;gap:12px}.row-image{margin:0;border:1px solid var(--line);border-radius:4px;padding:6px;background:var(--panel)}
.row-image img{display:block;max-width:320px;height:auto;image-rendering:pixelated}.row-image figcaption{font-size:12px;color:var(--muted);margin-top:4px}
pre.log{white-space:pre-wrap;word-break:break-word;font-size:12px;max-height:260px;overflow:auto;border:1px solid var(--line);padding:4px 8px;background:var(--panel)}
#session-metadata th{width:30%;font-weight:600}.side-forest{border-top:2px dashed var(--line);margin-top:16px}
`;
