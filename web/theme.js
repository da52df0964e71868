// The page's colours and fonts as values, for what cannot read the page's CSS (an exported
// figure: model/export/scene.js and svg.js, views/scene-canvas.js; the matrix view's mask
// colours, model/matrix-view.js): base.css and heatmap.css (light and dark), kept in step with
// them by hand. Data only, importing nothing, so the model and the views may both read it. The
// cells' own fills and inks are not here: they come with the view data (model/palette.js).

const HEADS = ['#e69f00', '#56b4e9', '#009e73', '#d55e00', '#0072b2', '#cc79a7', '#f0e442', '#8c8c8c'];

export const THEMES = {
  light: {
    bg: '#fbfaf7',
    panel: '#ffffff',
    fg: '#1c1c1e',
    muted: '#55555b',
    border: '#d8d4cc',
    maskA: '#ecebe7',
    maskB: '#dcdad4',
    maskInk: '#3d3d42',
    zeroBg: '#efeee9',
    heads: HEADS,
    dims: {
      T: '#0b5fa5',
      T_q: '#0b5fa5',
      T_kv: '#4b4ba8',
      d_ff: '#4d6b00',
      d_model: '#a8430a',
      d_k: '#00775a',
      d_v: '#a3307a',
      h: '#7a5600',
    },
  },
  dark: {
    bg: '#18191b',
    panel: '#202124',
    fg: '#ececec',
    muted: '#b4b4ba',
    border: '#3d3f44',
    maskA: '#2c2d31',
    maskB: '#37393e',
    maskInk: '#d0d0d6',
    zeroBg: '#2a2b2f',
    heads: HEADS,
    dims: {
      T: '#7cbcff',
      T_q: '#7cbcff',
      T_kv: '#b0b0ff',
      d_ff: '#b8d96b',
      d_model: '#ff9f66',
      d_k: '#4fd6ad',
      d_v: '#f291cf',
      h: '#f0c75e',
    },
  },
};

// The dimension classes of dims.js that borrow another dimension's colour (heatmap.css).
const DIM_ALIASES = { t: 'T', t1: 'T', B_r: 'T', B_c: 'T_kv', blocks: 'h' };

export function dimColour(theme, dim) {
  return theme.dims[DIM_ALIASES[dim] ?? dim] ?? theme.fg;
}

// Font stacks as base.css has them; an exported file names only fonts a system has.
export const FONTS = {
  mono: "ui-monospace, 'DejaVu Sans Mono', Menlo, Consolas, monospace",
  serif: "'Iowan Old Style', 'Palatino Linotype', 'DejaVu Serif', Georgia, serif",
  sans: "system-ui, 'Segoe UI', 'DejaVu Sans', Roboto, sans-serif",
};
