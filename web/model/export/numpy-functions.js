// The Python functions an exported numpy script defines, written in plain numpy (softmax,
// self_attention, multi_head_attention, layer_norm, …) and extended only as far as the
// stepper's chapters need: every function also returns its intermediates by the stepper's
// stage names, so the script can print any stage. numpy-script.js picks the ones a kind needs.
// `pruned` is a flag: the head-pruning lines are written only when heads are pruned.

export const SOFTMAX = `def softmax(x, axis=-1):
    """Softmax along axis; subtracting the row max keeps exp from overflowing (exp(-inf) is 0)."""
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)`;

// A sliding window's lines; with sink tokens (StreamingLLM) the window keeps the latest
// window - sink_tokens keys and the first sink_tokens tokens stay seen.
const windowLines = (sinkTokens) =>
  sinkTokens === null
    ? `    if window is not None:                 # only the window latest keys, this one included
        hidden |= cols <= rows - window`
    : `    if window is not None:                 # the window - sink_tokens latest keys, this one included,
        pinned = sink_tokens or 0          # and the first sink_tokens tokens (StreamingLLM) stay seen
        hidden |= (cols <= rows - (window - pinned)) & (cols >= pinned)`;

// The mask's lines for the kinds of mask the config uses: a causal mask, a prefix that sees all
// of itself, a sliding window (with sink tokens), packed documents, padding keys.
export const attentionMask = ({ window = null, sinkTokens = null, prefix = null, documents = [] } = {}) => {
  const args = [
    window !== null && 'window=None',
    window !== null && sinkTokens !== null && 'sink_tokens=None',
    prefix !== null && 'prefix=None',
    documents.length && 'documents=None',
  ];
  const lines = [
    prefix !== null &&
      `    if prefix is not None:                 # the first prefix tokens see each other
        hidden &= ~((rows < prefix) & (cols < prefix))`,
    window !== null && windowLines(sinkTokens),
    documents.length &&
      `    if documents is not None:              # no key of another packed document
        document = np.repeat(np.arange(len(documents)), documents)
        hidden |= document[cols] != document[rows]`,
  ];
  return `def attention_mask(seq_len, kv_len, causal=False, valid_keys=None${args
    .filter(Boolean)
    .map((x) => `, ${x}`)
    .join('')}):
    """M (seq_len, kv_len): -inf where a query may not look (a later key, a padding key, …), else 0."""
    rows, cols = np.indices((seq_len, kv_len))
    hidden = cols > rows if causal else np.zeros((seq_len, kv_len), dtype=bool)
${lines
  .filter(Boolean)
  .map((x) => `${x}\n`)
  .join('')}    if valid_keys is not None:
        hidden |= cols >= valid_keys
    return np.where(hidden, -np.inf, 0.0)`;
};

export const SINUSOIDAL = `def sinusoidal_encoding(T, d_model):
    """PE (T, d_model): sin(p / 10000^(2i/d_model)) in column 2i, cos of the same angle in 2i + 1."""
    p = np.arange(T)[:, None]
    rate = 10000.0 ** (-(np.arange(d_model) // 2 * 2) / d_model)
    return np.where(np.arange(d_model) % 2 == 0, np.sin(p * rate), np.cos(p * rate))`;

export const ROPE = `def rope(x, positions, base=10000.0, dims=None, half_split=False, offset=0, back=False):
    """RoPE: pair i of the first dims columns, (2i, 2i + 1) interleaved or (i, i + dims/2)
    half-split, turned by the angle (offset + position) * base^(-2i/dims); later columns stay.
    back: turned by minus that angle, the turn's transpose (a gradient through RoPE)."""
    dims = x.shape[-1] if dims is None else dims
    i = np.arange(dims // 2)
    a, b = (i, i + dims // 2) if half_split else (2 * i, 2 * i + 1)
    angle = (offset + positions)[:, None] * base ** (-2.0 * i / dims)   # (P, dims/2)
    angle = -angle if back else angle
    out = x.copy()
    out[:, a] = x[:, a] * np.cos(angle) - x[:, b] * np.sin(angle)
    out[:, b] = x[:, a] * np.sin(angle) + x[:, b] * np.cos(angle)
    return out`;

export const ALIBI = `def alibi_slopes(h):
    """ALiBi's slopes (Press et al.): 2^(-8/n) raised to 1 ... n for n the largest power of two
    <= h, then every other slope of 2n until there are h."""
    n = 2 ** int(np.floor(np.log2(h)))
    geometric = lambda n: 2.0 ** (-8.0 / n * np.arange(1, n + 1))
    return np.concatenate([geometric(n), geometric(2 * n)[0::2][:h - n]])


def alibi_bias(slope, query_positions, key_positions, causal):
    """B: -slope * (i - j) under a causal mask, -slope * |i - j| without."""
    distance = query_positions[:, None] - key_positions[None, :]
    return -slope * (distance if causal else np.abs(distance))`;

// QK-norm's row normalisation (only written when the config has qkNorm).
export const QK_NORM = `def qk_norm(x, gain, eps=1e-6):
    """QK-norm (Qwen3, Gemma 3): each row of a head's queries or keys divided by its root mean square over
    the head's d_k columns, then each column times its gain: x / sqrt(mean(x**2) + eps) * gain."""
    return x / np.sqrt((x ** 2).mean(axis=-1, keepdims=True) + eps) * gain`;

// The soft cap's lines after ÷√d_k (indent: the function body's), when the config caps.
const capLines = (indent, softcap, stages) =>
  softcap
    ? `
${indent}if softcap is not None:                # every logit kept within ±softcap
${indent}    logits = ${stages}["capped"] = softcap * np.tanh(logits / softcap)`
    : '';

// The softmax with a sink (only written when the config has sinks).
export const SINK_SOFTMAX = `def sink_softmax(logits, zeta):
    """The softmax with a sink (gpt-oss): one more key, of logit zeta, that holds no value. Returns the
    weights (each row sums to 1 less the sink's share) and that share, (T, 1)."""
    mu = np.maximum(logits.max(axis=-1, keepdims=True), zeta)
    e, z = np.exp(logits - mu), np.exp(zeta - mu)
    total = z + e.sum(axis=-1, keepdims=True)
    return e / total, z / total`;

// The weights line (indent: the function body's): softmax, or the sink's with `sink` given.
const weightsLines = (indent, sinks, stages) =>
  sinks
    ? `if sink is None:
${indent}    weights = softmax(masked, axis=-1)     # (T, T_kv), each row sums to 1
${indent}else:                                  # the sink takes its share of each row
${indent}    weights, ${stages}["sink"] = sink_softmax(masked, sink)`
    : 'weights = softmax(masked, axis=-1)     # (T, T_kv), each row sums to 1';

// self_attention's signature and lines: RoPE passes `turn` (x, positions → turned x), ALiBi `bias`,
// a soft cap `softcap`, a sink logit `sink`, QK-norm the gains `q_gain` and `k_gain` (applied before
// the turn).
export const selfAttention = ({
  rope = false,
  alibi = false,
  softcap = false,
  sinks = false,
  qkNorm = false,
} = {}) => `def self_attention(X_q, X_kv, W_Q, W_K, W_V, mask=None, scale=True${
  rope ? ', turn=None' : ''
}${alibi ? ', bias=None' : ''}${softcap ? ', softcap=None' : ''}${sinks ? ', sink=None' : ''}${
  qkNorm ? ', q_gain=None, k_gain=None' : ''
}):
    """Scaled dot-product attention for one head (X_q is X_kv except in cross-attention). Returns the head's
    output and every intermediate, named as the stepper names its stages."""
    Q = X_q @ W_Q                          # (T, d_k)
    K = X_kv @ W_K                         # (T_kv, d_k)
    V = X_kv @ W_V                         # (T_kv, d_v)
    stages = {"q": Q, "k": K, "v": V}${
      qkNorm
        ? `
    if q_gain is not None:                 # QK-norm: each row to mean square 1, times the gain
        Q = stages["q_norm"] = qk_norm(Q, q_gain)
    if k_gain is not None:
        K = stages["k_norm"] = qk_norm(K, k_gain)`
        : ''
    }${
      rope
        ? `
    if turn is not None:                   # RoPE: each query and key turned by its position
        Q = stages["q_rot"] = turn(Q, np.arange(len(Q)))
        K = stages["k_rot"] = turn(K, np.arange(len(K)))`
        : ''
    }
    scores = Q @ K.T                       # (T, T_kv)
    scaled = scores / np.sqrt(K.shape[-1]) if scale else scores
    logits = scaled${capLines('    ', softcap, 'stages')}${
      alibi
        ? `
    if bias is not None:                   # ALiBi: a penalty by distance
        logits = stages["biased"] = scaled + bias`
        : ''
    }
    masked = logits if mask is None else logits + mask
    ${weightsLines('    ', sinks, 'stages')}
    output = weights @ V                   # (T, d_v)
    stages.update({"scores": scores, "scaled": scaled, "masked": masked, "weights": weights, "head": output})
    return output, stages`;

// Zeroes the pruned heads' columns of concat before W_O (only written when heads are pruned).
const pruneLines = (indent, pruned) =>
  pruned
    ? `
${indent}d_v = concat.shape[-1] // len(W_Qs)
${indent}concat = concat.copy()
${indent}for h in pruned_heads:                # a pruned head's columns of concat are 0
${indent}    concat[:, h * d_v:(h + 1) * d_v] = 0.0
${indent}stages["pruned"] = concat`
    : '';

// pruned: the head-pruning lines; rope, alibi, softcap, sinks, qkNorm: self_attention's turn, each
// head's bias, the soft cap, each head's sink logit and QK-norm's gains.
export const multiHeadAttention = (
  pruned,
  { rope = false, alibi = false, softcap = false, sinks = false, qkNorm = false } = {},
) => `def multi_head_attention(X_q, X_kv, W_Qs, W_Ks, W_Vs, W_O=None, mask=None, scale=True${
  pruned ? ', pruned_heads=()' : ''
}${rope ? ', turn=None' : ''}${alibi ? ', biases=None' : ''}${softcap ? ', softcap=None' : ''}${
  sinks ? ', sinks=None' : ''
}${qkNorm ? ', q_gain=None, k_gain=None' : ''}):
    """Multi-head attention (Vaswani et al. 2017). Query head i reads K/V head i // group: with fewer
    K/V heads than query heads this is grouped-query attention (one K/V head: multi-query)."""
    group = len(W_Qs) // len(W_Ks)
    head_outputs, heads = [], []
    for i, W_Q in enumerate(W_Qs):
        out, stages = self_attention(X_q, X_kv, W_Q, W_Ks[i // group], W_Vs[i // group], mask, scale${
          rope ? ', turn' : ''
        }${alibi ? ', None if biases is None else biases[i]' : ''}${softcap ? ', softcap=softcap' : ''}${
          sinks ? ', sink=None if sinks is None else sinks[i]' : ''
        }${qkNorm ? ', q_gain=q_gain, k_gain=k_gain' : ''})
        head_outputs.append(out)
        heads.append(stages)
    concat = np.concatenate(head_outputs, axis=-1)   # (T, h * d_v)
    stages = {"heads": heads, "concat": concat}
    if W_O is None:
        return concat, stages${pruneLines('    ', pruned)}
    stages["output"] = concat @ W_O                   # (T, d_model)
    return stages["output"], stages`;

export const LAYER_NORM = `def layer_norm(x, eps=1e-6):
    """Layer norm with gamma = 1 and beta = 0 (population std, as np.std)."""
    mean = x.mean(axis=-1, keepdims=True)
    std = x.std(axis=-1, keepdims=True)
    return (x - mean) / (std + eps)`;

export const encoderLayer = (
  pruned,
) => `def transformer_encoder_layer(X, W_Qs, W_Ks, W_Vs, W_O, W1, b1, W2, b2, mask=None, scale=True${
  pruned ? ', pruned_heads=()' : ''
}):
    """One Transformer encoder layer, every sub-layer's result kept by its stage name."""
    attn_out, stages = multi_head_attention(X, X, W_Qs, W_Ks, W_Vs, W_O, mask, scale${pruned ? ', pruned_heads' : ''})
    stages["residual1"] = X + attn_out
    stages["norm1"] = layer_norm(stages["residual1"])
    stages["ffn_pre"] = stages["norm1"] @ W1 + b1          # (T, d_ff)
    stages["ffn_hidden"] = np.maximum(0, stages["ffn_pre"])
    stages["ffn_out"] = stages["ffn_hidden"] @ W2 + b2     # (T, d_model)
    stages["residual2"] = stages["norm1"] + stages["ffn_out"]
    stages["norm2"] = layer_norm(stages["residual2"])
    return stages["norm2"], stages`;

const RING = ' With a window the cache is a ring of window rows: once full, step t\n    overwrites row t % window.';
const PINNED =
  ' With a window and sink tokens (StreamingLLM) the cache holds window rows:\n' +
  '    rows 0 ... sink_tokens - 1 keep the first tokens for good and the other window - sink_tokens\n' +
  '    rows are a ring: once full, step t overwrites row sink_tokens + (t - sink_tokens) %\n' +
  "    (window - sink_tokens), token t - (window - sink_tokens)'s. Positions stay the tokens' own.";

// The cache row step t writes: t until the cache is full, then the ring's oldest row (a ring of
// all window rows, or with sink tokens of the rows after the pinned ones).
const slotLine = (window, sinkTokens) =>
  !window
    ? 't'
    : sinkTokens
      ? 't if window is None or t < window else sink_tokens + (t - sink_tokens) % (window - sink_tokens)'
      : 't % window if window is not None and t >= window else t';

// One decode step; rope: the query and new key turned at t; alibi: each head's bias by the cached
// keys' positions; window: a ring of W cache rows; sinkTokens: the first rows pinned, the ring after
// them; softcap: the logits capped; sinks: each head's sink logit; qkNorm: the query and new key
// normalised (before the turn).
export const decodeStep = (
  pruned,
  {
    rope = false,
    alibi = false,
    window = false,
    sinkTokens = false,
    softcap = false,
    sinks = false,
    qkNorm = false,
  } = {},
) => {
  const extra = [
    rope && 'turn=None',
    alibi && 'slopes=None',
    window && 'window=None',
    window && sinkTokens && 'sink_tokens=0',
    softcap && 'softcap=None',
    sinks && 'sinks=None',
    qkNorm && 'q_gain=None',
    qkNorm && 'k_gain=None',
  ].filter(Boolean);
  return `def decode_step(t, x_t, W_Qs, W_Ks, W_Vs, W_O, cache, scale=True${pruned ? ', pruned_heads=()' : ''}${extra
    .map((x) => `, ${x}`)
    .join('')}):
    """Decoding step t with a KV cache: token t's key and value join the cache of each K/V head
    ([K, V, positions] per K/V head), then its query reads every cached key (only the past: no
    mask).${window ? (sinkTokens ? PINNED : RING) : ''}"""
    group = len(W_Qs) // len(W_Ks)
    slot = ${slotLine(window, sinkTokens)}
    put = lambda a, row: np.concatenate([a[:slot], row, a[slot + 1:]])   # row slot set to row
    stages = {"x_t": x_t, "kv": [], "heads": []}
    for g, (W_K, W_V) in enumerate(zip(W_Ks, W_Vs)):
        k_new, v_new = x_t @ W_K, x_t @ W_V                # (1, d_k), (1, d_v)
        kv = {"k_new": k_new, "v_new": v_new}${
          qkNorm
            ? `
        if k_gain is not None:                             # QK-norm: to mean square 1, times the gain
            k_new = kv["k_norm"] = qk_norm(k_new, k_gain)`
            : ''
        }${
          rope
            ? `
        if turn is not None:                               # the key turned at its own position
            k_new = kv["k_rot"] = turn(k_new, np.array([t]))`
            : ''
        }
        cache[g] = [put(cache[g][0], k_new), put(cache[g][1], v_new), put(cache[g][2], [t])]
        kv.update({"k_cache": cache[g][0], "v_cache": cache[g][1]})
        stages["kv"].append(kv)
    head_outputs = []
    for i, W_Q in enumerate(W_Qs):
        K, V, positions = cache[i // group]
        q = x_t @ W_Q                                      # (1, d_k)
        head = {"q": q}${
          qkNorm
            ? `
        if q_gain is not None:
            q = head["q_norm"] = qk_norm(q, q_gain)`
            : ''
        }${
          rope
            ? `
        if turn is not None:
            q = head["q_rot"] = turn(q, np.array([t]))`
            : ''
        }
        scores = q @ K.T                                   # (1, cached keys)
        scaled = logits = scores / np.sqrt(K.shape[-1]) if scale else scores${capLines('        ', softcap, 'head')}${
          alibi
            ? `
        if slopes is not None:
            logits = head["biased"] = scaled + alibi_bias(slopes[i], np.array([t]), positions, causal=True)`
            : ''
        }
        ${
          sinks
            ? `if sinks is None:
            weights = softmax(logits, axis=-1)
        else:                                              # the sink takes its share
            weights, head["sink"] = sink_softmax(logits, sinks[i])`
            : 'weights = softmax(logits, axis=-1)'
        }
        head_outputs.append(weights @ V)                   # (1, d_v)
        head.update({"scores": scores, "scaled": scaled, "weights": weights, "head": head_outputs[-1]})
        stages["heads"].append(head)
    concat = np.concatenate(head_outputs, axis=-1)         # (1, h * d_v)
    stages["concat"] = concat
    if W_O is None:
        return concat, stages${pruneLines('    ', pruned)}
    stages["output"] = concat @ W_O
    return stages["output"], stages`;
};

// FlashAttention for one head; windowed: tiles wholly before the band are skipped too, and a row
// that has seen no key yet (m still −∞) adds nothing.
export const flashAttention = (windowed) => `def flash_attention(Q, K, V, B_r, B_c, causal=False, scale=True${
  windowed ? ', window=None' : ''
}):
    """FlashAttention's forward pass for one head: each block of B_r queries meets the blocks of
    B_c keys in turn, keeping a running row max m, sum l and unnormalised output O, so no
    T x T matrix is formed. Returns the output and every tile's stages in loop order."""
    T, d_v = Q.shape[0], V.shape[1]
    causal = causal${windowed ? ' or window is not None' : ''}
    tiles, blocks = [], []
    for i0 in range(0, T, B_r):
        i1 = min(i0 + B_r, T)
        m = np.full((i1 - i0, 1), -np.inf)
        l = np.zeros((i1 - i0, 1))
        O = np.zeros((i1 - i0, d_v))
        for j0 in range(0, T, B_c):
            if causal and j0 > i1 - 1:
                break                      # every later key comes after the block's last query
            j1 = min(j0 + B_c, T)${
              windowed
                ? `
            if window is not None and j1 - 1 <= i0 - window:
                continue                   # every key here is before the block's first window`
                : ''
            }
            S = Q[i0:i1] @ K[j0:j1].T / np.sqrt(K.shape[1]) if scale else Q[i0:i1] @ K[j0:j1].T
            if causal:
                rows, cols = np.indices(S.shape)
                S = np.where(j0 + cols > i0 + rows, -np.inf, S)${
                  windowed
                    ? `
                if window is not None:
                    S = np.where(j0 + cols <= i0 + rows - window, -np.inf, S)`
                    : ''
                }
            m_new = np.maximum(m, S.max(axis=1, keepdims=True))${
              windowed
                ? `
            seen = np.isfinite(m_new)      # a row whose window starts later has seen no key
            P = np.where(seen, np.exp(S - np.where(seen, m_new, 0)), 0.0)
            alpha = np.where(seen, np.exp(m - np.where(seen, m_new, 0)), 0.0)`
                : `
            P = np.exp(S - m_new)
            alpha = np.exp(m - m_new)      # rescales what was summed under the old max`
            }
            l = alpha * l + P.sum(axis=1, keepdims=True)
            O = alpha * O + P @ V[j0:j1]
            m = m_new
            tiles.append({"tile_scores": S, "tile_max": m, "tile_sum": l, "tile_out": O})
        blocks.append(O / l)
        tiles[-1]["block_out"] = blocks[-1]
    return np.vstack(blocks), tiles`;

// The backward pass of multi_head_attention (kind backward: no pruned heads), from dO.
export const ATTENTION_BACKWARD = `def attention_backward(X, W_Qs, W_Ks, W_Vs, W_O, stages, d_output, scale=True,
                       turn_back=None):
    """The chain rule back through multi_head_attention, from dO = d loss / d output: every
    gradient dZ has Z's shape. The mask and ALiBi's bias are constants: nothing flows into them.
    Query head h reads K/V head g = h // group, so a K/V head's gradients add up over its group.
    Under RoPE the scores read q_rot and k_rot: their gradients are turned back by turn_back."""
    q, k = ("q_rot", "k_rot") if turn_back else ("q", "k")
    positions = np.arange(len(X))
    group = len(W_Qs) // len(W_Ks)
    cols = W_Vs[0].shape[1]                               # d_v, a head's columns of concat
    grads = {"d_output": d_output, "heads": [], "kv": []}
    d_concat = d_output                                   # without W_O the concat is the output
    if W_O is not None:                                   # output = concat @ W_O
        grads["d_w_o"] = stages["concat"].T @ d_output    # (h * d_v, d_model)
        d_concat = grads["d_concat"] = d_output @ W_O.T   # (T, h * d_v)
    d_x = np.zeros_like(X)                                # X + PE under sinusoidal positions
    for h, W_Q in enumerate(W_Qs):
        A, K, V = (stages["heads"][h][name] for name in ("weights", k, "v"))
        d_head = d_concat[:, h * cols:(h + 1) * cols]     # (T, d_v): head h's columns
        d_weights = d_head @ V.T                          # (T, T): H = A @ V
        d_scaled = A * (d_weights - (d_weights * A).sum(axis=-1, keepdims=True))  # softmax; rows sum to 0
        d_scores = d_scaled / np.sqrt(K.shape[-1]) if scale else d_scaled       # (T, T)
        d_q = d_scores @ K                                # (T, d_k): S = Q @ K.T
        head = {"d_head": d_head, "d_weights": d_weights, "d_scaled": d_scaled, "d_scores": d_scores}
        if turn_back:                                     # d_q so far is at q_rot
            head.update({"d_q_rot": d_q, "d_q_unrot": turn_back(d_q, positions)})
            d_q = head["d_q_unrot"]
        else:
            head.update({"d_q": d_q})
        grads["heads"].append({**head, "d_w_q": X.T @ d_q})  # dW_Q (d_model, d_k)
        d_x += d_q @ W_Q.T
    for g, (W_K, W_V) in enumerate(zip(W_Ks, W_Vs)):
        group_heads = range(g * group, (g + 1) * group)   # the query heads reading K/V head g
        d_v = sum(stages["heads"][h]["weights"].T @ grads["heads"][h]["d_head"] for h in group_heads)  # (T, d_v)
        d_k = sum(grads["heads"][h]["d_scores"].T @ stages["heads"][h][q] for h in group_heads)        # (T, d_k)
        kv = {"d_v": d_v}
        if turn_back:                                     # d_k so far is at k_rot
            kv.update({"d_k_rot": d_k, "d_k_unrot": turn_back(d_k, positions)})
            d_k = kv["d_k_unrot"]
        else:
            kv.update({"d_k": d_k})
        grads["kv"].append({**kv, "d_w_k": X.T @ d_k, "d_w_v": X.T @ d_v})                      # (d_model, ·)
        d_x += d_k @ W_K.T + d_v @ W_V.T
    grads["d_x"] = d_x                                    # (T, d_model): the dO of the layer below
    return grads`;

// Multi-head latent attention (kind mla); rope: the decoupled RoPE part's lines (d_r > 0), the
// shared key k_rope and each head's q_rope, written only when the config has one.
export const latentAttention = (
  rope,
) => `def latent_attention(X, W_DKV, W_UKs, W_UVs, W_Qs, W_O, mask=None, scale=True${
  rope ? ', W_KR=None, W_QRs=None, turn=None' : ''
}):
    """Multi-head latent attention (DeepSeek-V2, 2024). X is compressed to one latent c_kv,
    all a cache keeps of it${rope ? ' with the RoPE key k_rope every head shares' : ''}; head i brings its keys
    and values up from the latent by W_UKs[i] and W_UVs[i]. Absorbed, its query meets the latent
    itself (q_absorbed = q @ W_UKs[i].T) and its weights gather the latent before W_UVs[i]: the
    same scores, the same head. Returns the output and every intermediate, named as the stepper
    names its stages."""
    c_kv = X @ W_DKV                                       # (T, d_c)
    stages = {"c_kv": c_kv, "heads": []}${
      rope
        ? `
    positions = np.arange(len(X))
    if W_KR is not None:                                   # the decoupled RoPE key, shared by every head
        k_rope = stages["k_rope"] = turn(X @ W_KR, positions)          # (T, d_r)`
        : ''
    }
    head_outputs = []
    for i, W_Q in enumerate(W_Qs):
        q = X @ W_Q                                        # (T, d_k)
        k, v = c_kv @ W_UKs[i], c_kv @ W_UVs[i]            # (T, d_k), (T, d_v): up from the latent
        head = {"q": q, "k": k, "v": v, "q_absorbed": q @ W_UKs[i].T}  # (T, d_c): q @ k.T = q_absorbed @ c_kv.T${
          rope
            ? `
        scores, width = q @ k.T, q.shape[-1]               # (T, T); a query's width, d_k
        if W_KR is not None:                               # plus the RoPE parts' term: width d_k + d_r
            q_rope = head["q_rope"] = turn(X @ W_QRs[i], positions)    # (T, d_r)
            scores, width = scores + q_rope @ k_rope.T, width + q_rope.shape[-1]
        scaled = scores / np.sqrt(width) if scale else scores`
            : `
        scores = q @ k.T                                   # (T, T)
        scaled = scores / np.sqrt(q.shape[-1]) if scale else scores`
        }
        masked = scaled if mask is None else scaled + mask
        weights = softmax(masked, axis=-1)                 # (T, T), each row sums to 1
        latent_head = weights @ c_kv                       # (T, d_c): the latent gathered
        head_outputs.append(latent_head @ W_UVs[i])        # (T, d_v): weights @ v, to rounding
        head.update({"scores": scores, "scaled": scaled, "masked": masked, "weights": weights,
                     "latent_head": latent_head, "head": head_outputs[-1]})
        stages["heads"].append(head)
    stages["concat"] = np.concatenate(head_outputs, axis=-1)          # (T, h * d_v)
    stages["output"] = stages["concat"] @ W_O                         # (T, d_model)
    return stages["output"], stages`;
