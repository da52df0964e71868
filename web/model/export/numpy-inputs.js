// The inputs section of an exported numpy script: numpy's draws (np.random.seed, randn,
// weights · 0.1, in the engine's order; a backward pass's dO last, not scaled) for a seeded spec,
// or the matrices themselves copied from the trace for given matrices (explicit or designed; a
// backward pass's dO too, given or drawn). Pure text.

/** A double as Python source: the shortest text that reads back as the same double. */
export function pyNumber(v) {
  if (v === -Infinity) return '-np.inf';
  if (v === Infinity) return 'np.inf';
  if (Number.isNaN(v)) return 'np.nan';
  return Object.is(v, -0) ? '-0.0' : String(v);
}

const pyRow = (values) => `[${Array.from(values, pyNumber).join(', ')}]`;

/** A row-major matrix as an np.array literal, one row a line; vector: a 1-D array. */
export function pyArray(shape, values, { indent = '', vector = false } = {}) {
  const [rows, cols] = shape;
  if (vector) return `np.array(${pyRow(values)}, dtype=float)`;
  const lines = Array.from(
    { length: rows },
    (_, r) => `${indent}    ${pyRow(values.slice(r * cols, (r + 1) * cols))},`,
  );
  // dtype=float: a matrix of whole numbers (a designed head's 0s and 1s) stays float64.
  return `np.array([\n${lines.join('\n')}\n${indent}], dtype=float).reshape(${rows}, ${cols})`;
}

// Kind mla's weights after X, in the engine's order: W_DKV, every W_UK, every W_UV, every W_Q,
// then with a RoPE part (d_r > 0) W_KR and every W_QR, W_O last.
function latentDraws(s, w) {
  const heads = (shape) => `[${w(shape)} for _ in range(num_heads)]`;
  const lines = [
    `W_DKV = ${w('d_model, d_c')}  # down to the latent`,
    `W_UKs = ${heads('d_c, d_k')}  # up: keys`,
    `W_UVs = ${heads('d_c, d_v')}  # up: values`,
    `W_Qs = ${heads('d_model, d_k')}`,
  ];
  if (s.dRope > 0)
    lines.push(`W_KR = ${w('d_model, d_r')}  # the shared RoPE key's`, `W_QRs = ${heads('d_model, d_r')}`);
  lines.push(`W_O = ${w('num_heads * d_v, d_model')}`);
  return lines;
}

// numpy's draws, as the engine makes them. s: the script's sizes (see numpy-script.js); structure: the kind of pass.
export function drawLines(s, structure) {
  const w = (shape) => `np.random.randn(${shape}) * ${pyNumber(s.weightScale)}`;
  const lines = [`np.random.seed(${s.seed})`];
  if (s.skip > 0)
    lines.push(`np.random.randn(${s.skip})  # the ${s.skip} normals drawn before this example (not reseeded)`);
  if (structure === 'cross') {
    lines.push(
      'X_q = np.random.randn(T_q, d_model)        # the target sequence',
      'X_kv = np.random.randn(T_kv, d_model)      # the source sequence',
    );
  } else {
    lines.push('X = np.random.randn(T, d_model)            # token embeddings (not scaled)');
  }
  if (structure === 'flash') {
    lines.push(`W_Q = ${w('d_model, d_k')}`, `W_K = ${w('d_model, d_k')}`, `W_V = ${w('d_model, d_v')}`);
    return lines;
  }
  if (structure === 'mla') return [...lines, ...latentDraws(s, w)];
  lines.push(
    `W_Qs = [${w('d_model, d_k')} for _ in range(num_heads)]`,
    `W_Ks = [${w('d_model, d_k')} for _ in range(num_kv_heads)]`,
    `W_Vs = [${w('d_model, d_v')} for _ in range(num_kv_heads)]`,
    s.outputProjection ? `W_O = ${w('num_heads * d_v, d_model')}` : 'W_O = None  # no output projection',
  );
  if (structure === 'encoder-layer') {
    lines.push(`W1 = ${w('d_model, d_ff')}`, `W2 = ${w('d_ff, d_model')}`, `b1 = ${w('d_ff')}`, `b2 = ${w('d_model')}`);
  }
  if (structure === 'backward') {
    const width = s.outputProjection ? 'T, d_model' : 'T, num_heads * d_v';
    lines.push(`d_output = np.random.randn(${width})  # dO, the output's shape: drawn last, not scaled`);
  }
  return lines;
}

// The trace's own matrices, found where the engine records them.
const stageOf = (trace, id, pick = () => true) => trace.stages.find((st) => st.id === id && pick(st));
const operandOf = (trace, ids, name, pick = () => true) => {
  for (const st of trace.stages) {
    if (!ids.includes(st.id) || !pick(st)) continue;
    const op = st.operands.find((o) => o.name === name);
    if (op) return op;
  }
  throw new Error(`numpy script: the trace has no operand ${name} of ${ids.join('/')}`);
};

function stackedX(trace) {
  const rows = trace.stages.filter((st) => st.id === 'x_t').sort((a, b) => a.step - b.step);
  const values = rows.flatMap((st) => Array.from(st.values));
  return { shape: [rows.length, rows[0].shape[1]], values };
}

function assign(name, m, opts) {
  return `${name} = ${pyArray(m.shape, m.values, opts)}`;
}

const list = (name, ms) =>
  `${name} = [\n${ms.map((m) => `    ${pyArray(m.shape, m.values, { indent: '    ' })},`).join('\n')}\n]`;

// Kind model's matrices, as the trace recorded them: each token's row of W_E and each position's of
// W_P, every layer's W_Q, W_K, W_V of each head and its W_O, W_U; the next tokens and the positions
// the loss counts.
function modelLines(trace) {
  const c = trace.config;
  const at = (l, h) => (st) => st.step === l && st.head === h;
  const wO = (l) => operandOf(trace, ['output'], 'W_O', at(l, null));
  const layer = (l) => {
    const heads = (id, w) => Array.from({ length: c.numHeads }, (_, h) => operandOf(trace, [id], w, at(l, h)));
    return [
      `    {  # layer ${l}`,
      ...['W_Q', 'W_K', 'W_V'].map(
        (w) =>
          `        "${w}s": [\n${heads(w[2].toLowerCase(), w)
            .map((m) => `            ${pyArray(m.shape, m.values, { indent: '            ' })},`)
            .join('\n')}\n        ],`,
      ),
      `        "W_O": ${pyArray(wO(l).shape, wO(l).values, { indent: '        ' })},`,
      '    },',
    ];
  };
  const loss = stageOf(trace, 'loss');
  const next = operandOf(trace, ['token_loss'], 'next').values;
  const counted = loss.operands.find((o) => o.name === 'counted').values;
  return [
    `${assign('E', operandOf(trace, ['embedded'], 'E'))}  # W_E[tokens]: each token's row of the embeddings`,
    `${assign('P', operandOf(trace, ['embedded'], 'P'))}  # W_P[:T]: each position's row`,
    'layers = [',
    ...Array.from({ length: c.numLayers }, (_, l) => layer(l)).flat(),
    ']',
    assign('W_U', operandOf(trace, ['logits'], 'W_U')),
    `next_tokens = [${Array.from(next, (v) => String(v)).join(', ')}]  # the token after each position`,
    `scored = [${Array.from(counted, (v, t) => (v ? [t] : []))
      .flat()
      .join(', ')}]  # the positions the loss counts`,
  ];
}

// Kind mla's matrices, as the trace records them beside the stages that read them.
function latentLines(trace) {
  const c = trace.config;
  const perHead = (id, name) =>
    Array.from({ length: c.numHeads }, (_, h) => operandOf(trace, [id], name, (st) => st.head === h));
  const lines = [
    assign('X', stageOf(trace, 'x')),
    assign('W_DKV', operandOf(trace, ['c_kv'], 'W_DKV')),
    list('W_UKs', perHead('k', 'W_UK')),
    list('W_UVs', perHead('v', 'W_UV')),
    list('W_Qs', perHead('q', 'W_Q')),
  ];
  if (c.dRope > 0)
    lines.push(assign('W_KR', operandOf(trace, ['k_rope'], 'W_KR')), list('W_QRs', perHead('q_rope', 'W_QR')));
  lines.push(assign('W_O', operandOf(trace, ['output'], 'W_O')));
  return lines;
}

// The matrices of a trace without a seed, as np.array literals.
export function literalLines(trace, structure) {
  if (structure === 'model') return modelLines(trace);
  if (structure === 'mla') return latentLines(trace);
  const c = trace.config;
  const lines = [];
  if (structure === 'cross') lines.push(assign('X_q', stageOf(trace, 'x_q')), assign('X_kv', stageOf(trace, 'x_kv')));
  else lines.push(assign('X', structure === 'kv-cache' ? stackedX(trace) : stageOf(trace, 'x')));
  const qIds = ['q'];
  const kIds = structure === 'kv-cache' ? ['k_new'] : ['k'];
  const vIds = structure === 'kv-cache' ? ['v_new'] : ['v'];
  const heads = Array.from({ length: c.numHeads }, (_, h) => operandOf(trace, qIds, 'W_Q', (st) => st.head === h));
  const kv = Array.from({ length: c.numKvHeads }, (_, g) => g);
  const ks = kv.map((g) =>
    operandOf(trace, kIds, 'W_K', (st) => st.kvHead === g || (st.kvHead == null && st.head === g)),
  );
  const vs = kv.map((g) =>
    operandOf(trace, vIds, 'W_V', (st) => st.kvHead === g || (st.kvHead == null && st.head === g)),
  );
  if (structure === 'flash') {
    lines.push(assign('W_Q', heads[0]), assign('W_K', ks[0]), assign('W_V', vs[0]));
    return lines;
  }
  lines.push(list('W_Qs', heads), list('W_Ks', ks), list('W_Vs', vs));
  const hasWo = trace.stages.some((st) => st.id === 'output');
  lines.push(hasWo ? assign('W_O', operandOf(trace, ['output'], 'W_O')) : 'W_O = None  # no output projection');
  if (structure === 'encoder-layer') {
    lines.push(
      assign('W1', operandOf(trace, ['ffn_pre'], 'W1')),
      `b1 = ${pyArray([1, c.dFF], operandOf(trace, ['ffn_pre'], 'b1').values, { vector: true })}`,
    );
    lines.push(
      assign('W2', operandOf(trace, ['ffn_out'], 'W2')),
      `b2 = ${pyArray([1, c.dModel], operandOf(trace, ['ffn_out'], 'b2').values, { vector: true })}`,
    );
  }
  if (structure === 'backward') lines.push(`${assign('d_output', stageOf(trace, 'd_output'))}  # dO`);
  return lines;
}
