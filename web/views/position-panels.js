// The Positions and Masks chapters' panels: RoPE's pairs and angles with the shift check,
// ALiBi's slopes with the row check, a note on the sinusoidal encoding; which keys each query
// sees. Drawn from model/panels.js's data; every number is the engine's.

import { el } from './dom.js';
import { scrolling, table } from './panel-table.js';

export function positions(root, p) {
  if (p.sinusoidal)
    root.append(
      el(
        'p',
        'panel-note',
        'Sinusoidal: PE is fixed, not learned; row t holds sin and cos of t at rates falling from pair to ' +
          'pair, so every position has a row of its own. It is added to X once, before every projection.',
      ),
    );
  if (p.rope) {
    root.append(
      el(
        'p',
        'panel-label',
        `RoPE, ${p.rope.convention} pairs: each pair of columns of q and k turns by the angle \u03c6 = ` +
          '(t\u2080 + t)\u00b7\u03b8_c for pair c at row t, t\u2080 the offset (this head, the engine\u2019s numbers):',
      ),
    );
    root.append(scrolling(table(p.rope.table, 'compare-table rope-table'), 'RoPE pairs, their rates and angles'));
    root.append(
      el(
        'p',
        'panel-note',
        'Interleaved (GPT-J, Meta\u2019s LLaMA) pairs columns (2c, 2c+1); half-split (GPT-NeoX, ' +
          'Hugging Face\u2019s LLaMA) pairs (c, c + d_rot/2), d_rot the columns turned. The two are the same ' +
          'rotation on permuted columns: column 2c of one is column c of the other, 2c+1 is c + d_rot/2, so a ' +
          'checkpoint converted between them ' +
          'must permute W_Q and W_K.',
      ),
    );
    if (p.rope.shift)
      root.append(
        el(
          'p',
          'panel-note rope-shift',
          `Shift every position by ${p.rope.shift.by}: q_rot changes by up to ${p.rope.shift.qRot}, but the ` +
            `scores change by ${p.rope.shift.scores} and the weights by ${p.rope.shift.weights} (rounding): ` +
            'q_i\u00b7k_j depends on the positions only through i \u2212 j.',
        ),
      );
  }
  if (p.alibi) {
    const list = el('ol', 'alibi-slopes');
    list.setAttribute('aria-label', 'ALiBi slope per head');
    for (const s of p.alibi.slopes) {
      const li = el(
        'li',
        `alibi-slope head-${s.head % 8}${s.current ? ' is-current' : ''}`,
        `head ${s.head}: m = ${s.slope}`,
      );
      list.append(li);
    }
    root.append(
      el(
        'p',
        'panel-label',
        'ALiBi: one slope a head (Press et al.\u2019s m_n = 2^(\u22128(n+1)/h) for h a power of two; else the ' +
          'slopes of the power of two p below h, then every other one of 2p heads):',
      ),
      list,
      el(
        'p',
        'panel-note alibi-shift',
        `Adding a constant to a whole row of B changes no weight (here the largest change is ` +
          `${p.alibi.rowShift}): under the causal mask \u2212m\u00b7(i \u2212 j) works as +m\u00b7j.`,
      ),
    );
  }
}

export function masks(root, p) {
  if (p.window)
    root.append(
      el(
        'p',
        'panel-note',
        `A window of W = ${p.window}: each row keeps at most W keys, so a kernel that skips hidden keys does ` +
          'work growing with T\u00b7W, not T\u00b2 (the trace here computes every score, then masks it), and a ' +
          'decoder\u2019s cache needs only the last W keys (the KV-cache chapter keeps a ring of W).',
      ),
    );
  if (!p.rows) {
    root.append(el('p', 'panel-note', 'No mask: every query sees every key.'));
    return;
  }
  const wrap = scrolling(table(p.rows, 'compare-table mask-rows'), 'The keys each query sees');
  root.append(el('p', 'panel-label', 'The keys each query sees, read from M:'), wrap);
}
