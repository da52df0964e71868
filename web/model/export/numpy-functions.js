// The Python functions an exported numpy script defines, written the lesson's way (softmax,
// self_attention, multi_head_attention, layer_norm, …) and extended only as far as the
// stepper's chapters need: every function also returns its intermediates by the stepper's
// stage names, so the script can print any stage. numpy-script.js picks the ones a kind needs.
// `pruned` is a flag: the head-pruning lines are written only when heads are pruned.

export const SOFTMAX = `def softmax(x, axis=-1):
    """Softmax along axis; subtracting the row max keeps exp from overflowing (exp(-inf) is 0)."""
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)`;

export const ATTENTION_MASK = `def attention_mask(seq_len, kv_len, causal=False, valid_keys=None):
    """M (seq_len, kv_len): -inf where a query may not look (a later key, a padding key), else 0."""
    rows, cols = np.indices((seq_len, kv_len))
    hidden = cols > rows if causal else np.zeros((seq_len, kv_len), dtype=bool)
    if valid_keys is not None:
        hidden |= cols >= valid_keys
    return np.where(hidden, -np.inf, 0.0)`;

export const SELF_ATTENTION = `def self_attention(X_q, X_kv, W_Q, W_K, W_V, mask=None, scale=True):
    """The lesson's self_attention (X_q is X_kv except in cross-attention). Returns the head's
    output and every intermediate, named as the stepper names its stages."""
    Q = X_q @ W_Q                          # (T, d_k)
    K = X_kv @ W_K                         # (T_kv, d_k)
    V = X_kv @ W_V                         # (T_kv, d_v)
    scores = Q @ K.T                       # (T, T_kv)
    scaled = scores / np.sqrt(K.shape[-1]) if scale else scores
    masked = scaled if mask is None else scaled + mask
    weights = softmax(masked, axis=-1)     # (T, T_kv), each row sums to 1
    output = weights @ V                   # (T, d_v)
    return output, {"q": Q, "k": K, "v": V, "scores": scores, "scaled": scaled,
                    "masked": masked, "weights": weights, "head": output}`;

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

export const multiHeadAttention = (
  pruned,
) => `def multi_head_attention(X_q, X_kv, W_Qs, W_Ks, W_Vs, W_O=None, mask=None, scale=True${
  pruned ? ', pruned_heads=()' : ''
}):
    """The lesson's multi_head_attention. Query head i reads K/V head i // group: with fewer
    K/V heads than query heads this is grouped-query attention (one K/V head: multi-query)."""
    group = len(W_Qs) // len(W_Ks)
    head_outputs, heads = [], []
    for i, W_Q in enumerate(W_Qs):
        out, stages = self_attention(X_q, X_kv, W_Q, W_Ks[i // group], W_Vs[i // group], mask, scale)
        head_outputs.append(out)
        heads.append(stages)
    concat = np.concatenate(head_outputs, axis=-1)   # (T, h * d_v)
    stages = {"heads": heads, "concat": concat}
    if W_O is None:
        return concat, stages${pruneLines('    ', pruned)}
    stages["output"] = concat @ W_O                   # (T, d_model)
    return stages["output"], stages`;

export const LAYER_NORM = `def layer_norm(x, eps=1e-6):
    """The lesson's layer norm with gamma = 1 and beta = 0 (population std, as np.std)."""
    mean = x.mean(axis=-1, keepdims=True)
    std = x.std(axis=-1, keepdims=True)
    return (x - mean) / (std + eps)`;

export const encoderLayer = (
  pruned,
) => `def transformer_encoder_layer(X, W_Qs, W_Ks, W_Vs, W_O, W1, b1, W2, b2, mask=None, scale=True${
  pruned ? ', pruned_heads=()' : ''
}):
    """The lesson's transformer_encoder_layer, every sub-layer's result kept by its stage name."""
    attn_out, stages = multi_head_attention(X, X, W_Qs, W_Ks, W_Vs, W_O, mask, scale${pruned ? ', pruned_heads' : ''})
    stages["residual1"] = X + attn_out
    stages["norm1"] = layer_norm(stages["residual1"])
    stages["ffn_pre"] = stages["norm1"] @ W1 + b1          # (T, d_ff)
    stages["ffn_hidden"] = np.maximum(0, stages["ffn_pre"])
    stages["ffn_out"] = stages["ffn_hidden"] @ W2 + b2     # (T, d_model)
    stages["residual2"] = stages["norm1"] + stages["ffn_out"]
    stages["norm2"] = layer_norm(stages["residual2"])
    return stages["norm2"], stages`;

export const decodeStep = (pruned) =>
  `def decode_step(x_t, W_Qs, W_Ks, W_Vs, W_O, cache, scale=True${pruned ? ', pruned_heads=()' : ''}):
    """One decoding step with a KV cache: token t's key and value join the cache of each K/V
    head ([K, V] per K/V head), then its query reads every cached key (only the past: no mask)."""
    group = len(W_Qs) // len(W_Ks)
    stages = {"x_t": x_t, "kv": [], "heads": []}
    for g, (W_K, W_V) in enumerate(zip(W_Ks, W_Vs)):
        k_new, v_new = x_t @ W_K, x_t @ W_V                # (1, d_k), (1, d_v)
        cache[g] = [np.vstack([cache[g][0], k_new]), np.vstack([cache[g][1], v_new])]
        stages["kv"].append({"k_new": k_new, "v_new": v_new, "k_cache": cache[g][0], "v_cache": cache[g][1]})
    head_outputs = []
    for i, W_Q in enumerate(W_Qs):
        K, V = cache[i // group]
        q = x_t @ W_Q                                      # (1, d_k)
        scores = q @ K.T                                   # (1, t + 1)
        scaled = scores / np.sqrt(K.shape[-1]) if scale else scores
        weights = softmax(scaled, axis=-1)
        head_outputs.append(weights @ V)                   # (1, d_v)
        stages["heads"].append({"q": q, "scores": scores, "scaled": scaled, "weights": weights, ` +
  `"head": head_outputs[-1]})
    concat = np.concatenate(head_outputs, axis=-1)         # (1, h * d_v)
    stages["concat"] = concat
    if W_O is None:
        return concat, stages${pruneLines('    ', pruned)}
    stages["output"] = concat @ W_O
    return stages["output"], stages`;

export const FLASH_ATTENTION = `def flash_attention(Q, K, V, B_r, B_c, causal=False, scale=True):
    """FlashAttention's forward pass for one head: each block of B_r queries meets the blocks of
    B_c keys in turn, keeping a running row max m, sum l and unnormalised output O, so no
    T x T matrix is formed. Returns the output and every tile's stages in loop order."""
    T, d_v = Q.shape[0], V.shape[1]
    tiles, blocks = [], []
    for i0 in range(0, T, B_r):
        i1 = min(i0 + B_r, T)
        m = np.full((i1 - i0, 1), -np.inf)
        l = np.zeros((i1 - i0, 1))
        O = np.zeros((i1 - i0, d_v))
        for j0 in range(0, T, B_c):
            if causal and j0 > i1 - 1:
                break                      # every later key comes after the block's last query
            j1 = min(j0 + B_c, T)
            S = Q[i0:i1] @ K[j0:j1].T / np.sqrt(K.shape[1]) if scale else Q[i0:i1] @ K[j0:j1].T
            if causal:
                rows, cols = np.indices(S.shape)
                S = np.where(j0 + cols > i0 + rows, -np.inf, S)
            m_new = np.maximum(m, S.max(axis=1, keepdims=True))
            P = np.exp(S - m_new)
            alpha = np.exp(m - m_new)      # rescales what was summed under the old max
            l = alpha * l + P.sum(axis=1, keepdims=True)
            O = alpha * O + P @ V[j0:j1]
            m = m_new
            tiles.append({"tile_scores": S, "tile_max": m, "tile_sum": l, "tile_out": O})
        blocks.append(O / l)
        tiles[-1]["block_out"] = blocks[-1]
    return np.vstack(blocks), tiles`;
