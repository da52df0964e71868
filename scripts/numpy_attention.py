"""The lesson's attention in numpy, written independently of the C++ core: every pass of
multi-head (grouped-query, cross) attention with optional head pruning, the encoder layer,
decoding with a KV cache, FlashAttention's tiles and multi-head latent attention. Each function
puts every matrix it makes into `out` under the key the trace uses (see `at`);
scripts/make-reference.py writes them out.

s: a case's sizes and switches, named like the engine's trace.config (see make-reference.py's
sizes_of); p: its matrices {x, x_kv, W_Q: [...], W_K: [...], W_V: [...], W_O, W1, W2, b1, b2},
or kind mla's {x, W_DKV, W_UK: [...], W_UV: [...], W_Q: [...], W_KR, W_QR: [...], W_O}.
"""
import numpy as np


def at(stage, head=None, step=None):
    """A stage's key: `scores/2`, `output`; in a decode step or a tile `scores/2@3`, `x_t/-@0`."""
    if step is None:
        return stage if head is None else f"{stage}/{head}"
    return f"{stage}/{'-' if head is None else head}@{step}"


def record(out, key, value, **operands):
    """A stage's matrix under its key, and the operands that change per step under key:name."""
    out[key] = value
    out.update({f"{key}:{name}": m for name, m in operands.items()})


def softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))  # the row max: exp never overflows
    return e / e.sum(axis=-1, keepdims=True)


def sink_softmax(logits, zeta):
    """The softmax with a sink (gpt-oss): a key of logit ζ that holds no value. Returns the
    weights, whose rows sum to 1 less the sink's share, and that share (T, 1)."""
    mu = np.maximum(logits.max(axis=-1, keepdims=True), zeta)
    e, z = np.exp(logits - mu), np.exp(zeta - mu)
    total = z + e.sum(axis=-1, keepdims=True)
    return e / total, z / total


def layer_norm(x, eps=1e-6):
    return (x - x.mean(axis=-1, keepdims=True)) / (x.std(axis=-1, keepdims=True) + eps)


def hidden_keys(s):
    """Which keys each query may not see, (T, T_kv) booleans: after it under a causal mask (a
    window, a prefix and documents are causal too), except among the first P tokens of a prefix;
    W or more positions back under a window; in another document; padding keys. With k sink
    tokens (StreamingLLM) the window keeps the W − k latest keys and the first k tokens stay
    seen: hidden are the keys j with k ≤ j ≤ i − (W − k)."""
    rows, cols = np.indices((s["seqLen"], s["kvLen"]))
    causal = s["causal"] or s["window"] or s["prefix"] is not None or s["documents"]
    hidden = (cols > rows) if causal else np.zeros(rows.shape, dtype=bool)
    if s["prefix"] is not None:
        hidden &= ~((rows < s["prefix"]) & (cols < s["prefix"]))
    if s["window"]:
        pinned = s["sinkTokens"] or 0  # the first k tokens, seen by every later query
        hidden |= (cols <= rows - (s["window"] - pinned)) & (cols >= pinned)
    if s["documents"]:
        document = np.repeat(np.arange(len(s["documents"])), s["documents"])  # each position's
        hidden |= document[cols] != document[rows]
    if s["validKeys"] is not None:
        hidden |= cols >= s["validKeys"]
    return hidden, causal


def attention_mask(s):
    """M (T, T_kv): −inf where a key is hidden, else 0; None when nothing is ever hidden."""
    hidden, causal = hidden_keys(s)
    return np.where(hidden, -np.inf, 0.0) if causal or s["validKeys"] is not None else None


def sinusoidal(positions, d):
    """PE (P, D): sin(p / 10000^(2i/D)) in column 2i, cos of the same angle in column 2i + 1."""
    p = np.arange(positions)[:, None]
    rate = 10000.0 ** (-(np.arange(d) // 2 * 2) / d)
    return np.where(np.arange(d) % 2 == 0, np.sin(p * rate), np.cos(p * rate))


def rope(s, x, first=0):
    """x (P, DK) rotated as complex numbers: pair i of the first `dims` columns is the number
    a + ib (a, b = columns 2i, 2i + 1 interleaved, or i, i + dims/2 half-split), multiplied by
    e^(i·φ) with φ = (offset + position)·base^(−2i/dims); the columns past dims stay."""
    r, dims = s["rope"], s["rope"]["dims"]
    pairs = np.arange(dims // 2)
    a, b = (pairs, pairs + dims // 2) if r["convention"] == "half-split" else (2 * pairs, 2 * pairs + 1)
    position = r["offset"] + first + np.arange(x.shape[0])[:, None]
    turned = (x[:, a] + 1j * x[:, b]) * np.exp(1j * position * r["base"] ** (-2.0 * pairs / dims))
    out = x.copy()
    out[:, a], out[:, b] = turned.real, turned.imag
    return out


def qk_norm(x, gain, eps=1e-6):
    """QK-norm (Qwen3, Gemma 3): each row of a head's q or k (P, DK) divided by its root mean
    square over the DK columns, then column a times gain[a]: x / √(mean(x²) + ε) · λ."""
    return x / np.sqrt(np.mean(x ** 2, axis=-1, keepdims=True) + eps) * np.asarray(gain)


def soft_cap(s, logits):
    """Gemma 2's logit soft-capping: κ·tanh(logits / κ), every logit within ±κ."""
    return s["softcap"] * np.tanh(logits / s["softcap"])


def alibi_slopes(heads):
    """Press et al.: (2^(−8/n))^k for k = 1 … n when n is a power of two; otherwise the slopes of
    the largest power of two below, then every other slope of twice that."""
    geometric = lambda n: 2.0 ** (-8.0 / n * np.arange(1, n + 1))
    below = 2 ** int(np.floor(np.log2(heads)))
    return np.concatenate([geometric(below), geometric(2 * below)[0::2][:heads - below]])


def alibi(s, head, query_positions, key_positions):
    """B (queries, keys) = −m·(i − j) when the keys after a query are hidden, −m·|i − j| else."""
    _, causal = hidden_keys(s)
    distance = query_positions[:, None] - key_positions[None, :]
    causal = causal or s["kind"] == "kv-cache"
    return -alibi_slopes(s["numHeads"])[head] * (distance if causal else np.abs(distance))


def project_out(s, concat, w_o, out):
    """concat (T, H·DV) · W_O → (T, D), after zeroing the pruned heads' columns; each head's
    share of the output (its columns times its rows of W_O) under contribution/h."""
    dv, pruned = s["dV"], s["prunedHeads"]
    mixed = concat
    if pruned:
        gate = np.ones((1, concat.shape[1]))
        for h in pruned:
            gate[0, h * dv:(h + 1) * dv] = 0.0
        mixed = concat * gate
        out.update({"gate": gate, "pruned": mixed})
    output = mixed @ w_o
    for h in range(s["numHeads"]):
        cols = slice(h * dv, (h + 1) * dv)
        out[f"contribution/{h}"] = mixed[:, cols] @ w_o[cols]
    if pruned:
        whole = concat @ w_o
        change = np.linalg.norm(output - whole) / np.linalg.norm(whole)  # Frobenius
        out["outputChange"] = np.array([[change]])
    out.update({"W_O": w_o, "concat": concat, "output": output})
    return output


def multi_head_attention(s, p, out):
    """Every head's stages into out; returns the output (T, D), or the heads side by side.
    K/V head g serves query heads g·group … g·group + group − 1 and is keyed under the first.
    A sinusoidal encoding is added to X first; QK-norm normalises each row of q and k, then RoPE
    turns them; a soft cap κ bends S̃ to κ·tanh(S̃ / κ); ALiBi adds B to S̃; a sink ζ per head
    joins each row's softmax."""
    group, mask = s["numHeads"] // s["numKvHeads"], attention_mask(s)
    x, x_kv = p["x"], p["x_kv"]
    if s["positionalEncoding"] == "sinusoidal":
        out["PE"] = sinusoidal(s["seqLen"], s["dModel"])
        x = x_kv = out["x_pos"] = p["x"] + out["PE"]
    if mask is not None:
        out["M"] = mask
    keys = {}
    for g in range(s["numKvHeads"]):
        first = g * group
        out[f"W_K/{first}"], out[f"W_V/{first}"] = p["W_K"][g], p["W_V"][g]
        out[f"k/{first}"], out[f"v/{first}"] = x_kv @ p["W_K"][g], x_kv @ p["W_V"][g]
        keys[g] = out[f"k/{first}"]
        if s["qkNorm"]:
            keys[g] = out[f"k_norm/{first}"] = qk_norm(keys[g], s["kNormGain"])
        if s["rope"]:
            keys[g] = out[f"k_rot/{first}"] = rope(s, keys[g])
    positions = np.arange(s["seqLen"]), np.arange(s["kvLen"])
    heads = []
    for i in range(s["numHeads"]):
        g = i // group
        q = out[f"q/{i}"] = x @ p["W_Q"][i]
        if s["qkNorm"]:
            q = out[f"q_norm/{i}"] = qk_norm(q, s["qNormGain"])
        if s["rope"]:
            q = out[f"q_rot/{i}"] = rope(s, q)
        scores = q @ keys[g].T
        scaled = logits = scores / np.sqrt(s["dK"]) if s["scaleScores"] else scores
        if s["softcap"] is not None:
            logits = out[f"capped/{i}"] = soft_cap(s, scaled)
        if s["alibi"]:
            out[f"B/{i}"] = alibi(s, i, *positions)
            logits = out[f"biased/{i}"] = scaled + out[f"B/{i}"]
        if mask is not None:
            logits = out[f"masked/{i}"] = logits + mask
        if s["sinks"]:
            weights, out[f"sink/{i}"] = sink_softmax(logits, s["sinks"][i])
        else:
            weights = softmax(logits)
        heads.append(weights @ out[f"v/{g * group}"])
        out.update({f"W_Q/{i}": p["W_Q"][i], f"scores/{i}": scores, f"scaled/{i}": scaled,
                    f"weights/{i}": weights, f"totals/{i}": weights.sum(axis=-1, keepdims=True),
                    f"head/{i}": heads[-1]})
    concat = np.concatenate(heads, axis=-1)
    if not s["outputProjection"]:
        if s["numHeads"] > 1:  # the engine records the concat as the output of several heads
            out["concat"] = concat
        return concat
    return project_out(s, concat, p["W_O"], out)


def encoder_layer(s, p, out):
    """Attention, residual and norm; the position-wise network, residual and norm."""
    out["residual1"] = p["x"] + multi_head_attention(s, p, out)
    out["norm1"] = layer_norm(out["residual1"])
    out["ffn_pre"] = out["norm1"] @ p["W1"] + p["b1"]
    out["ffn_hidden"] = np.maximum(0, out["ffn_pre"])
    out["ffn_out"] = out["ffn_hidden"] @ p["W2"] + p["b2"]
    out["residual2"] = out["norm1"] + out["ffn_out"]
    out["norm2"] = layer_norm(out["residual2"])
    out.update({"W1": p["W1"], "W2": p["W2"], "b1": p["b1"][None, :], "b2": p["b2"][None, :]})


def decode_step(s, p, t, cache, out):
    """Step t of decoding: token t's query against every key cached so far, after each K/V head
    has written token t's key and value. cache: per K/V head [K (n, DK), V (n, DV), positions
    (n)]; with a window of W a ring of W rows, where step t ≥ W overwrites row t mod W; with k
    sink tokens too (StreamingLLM) rows 0 … k − 1 keep tokens 0 … k − 1 for good and the other
    W − k rows are the ring: step t ≥ W overwrites row k + (t − k) mod (W − k), which held token
    t − (W − k). QK-norm normalises the query and the new key first; under RoPE the query is
    turned at t and each key at its own position before it is cached (positions stay the
    tokens' own)."""
    x = p["x"] + sinusoidal(s["seqLen"], s["dModel"]) if s["positionalEncoding"] == "sinusoidal" else p["x"]
    group, x_t = s["numHeads"] // s["numKvHeads"], x[t:t + 1]  # (1, D): row t of X (+ PE)
    out[at("x_t", None, t)], heads = x_t, []
    slot = t
    if s["window"] and t >= s["window"]:  # full: the ring's oldest row (none of the k pinned)
        pinned = s["sinkTokens"] or 0
        slot = pinned + (t - pinned) % (s["window"] - pinned)
    for i in range(s["numHeads"]):
        g = i // group
        q = out[at("q", i, t)] = x_t @ p["W_Q"][i]
        if s["qkNorm"]:
            q = out[at("q_norm", i, t)] = qk_norm(q, s["qNormGain"])
        if s["rope"]:
            q = out[at("q_rot", i, t)] = rope(s, q, first=t)
        if i % group == 0:
            for name, w, c in (("k", p["W_K"][g], 0), ("v", p["W_V"][g], 1)):
                new = out[at(f"{name}_new", i, t)] = x_t @ w
                if name == "k" and s["qkNorm"]:
                    new = out[at("k_norm", i, t)] = qk_norm(new, s["kNormGain"])
                if name == "k" and s["rope"]:
                    new = out[at("k_rot", i, t)] = rope(s, new, first=t)
                old = {f"{name.upper()}_cache": cache[g][c]} if t > 0 else {}  # JSON: no (0, n)
                cache[g][c] = np.vstack([cache[g][c][:slot], new, cache[g][c][slot + 1:]])
                record(out, at(f"{name}_cache", i, t), cache[g][c], **old)
            cache[g][2] = np.concatenate([cache[g][2][:slot], [t], cache[g][2][slot + 1:]])
        scores = out[at("scores", i, t)] = q @ cache[g][0].T  # (1, n): only the past, no mask
        scaled = logits = scores / np.sqrt(s["dK"]) if s["scaleScores"] else scores
        out[at("scaled", i, t)] = scaled
        if s["softcap"] is not None:
            logits = out[at("capped", i, t)] = soft_cap(s, scaled)
        if s["alibi"]:
            logits = out[at("biased", i, t)] = scaled + alibi(s, i, np.array([t]), cache[g][2])
        if s["sinks"]:
            weights, out[at("sink", i, t)] = sink_softmax(logits, s["sinks"][i])
        else:
            weights = softmax(logits)
        out[at("weights", i, t)] = weights
        out[at("totals", i, t)] = weights.sum(axis=-1, keepdims=True)
        heads.append(weights @ cache[g][1])
        out[at("head", i, t)] = heads[-1]
    concat = np.concatenate(heads, axis=-1)  # (1, H·DV)
    if not s["outputProjection"]:
        if s["numHeads"] > 1:  # as multi_head_attention's
            out[at("concat", None, t)] = concat
        return concat
    out[at("concat", None, t)], out[at("output", None, t)] = concat, concat @ p["W_O"]
    return out[at("output", None, t)]


def decode_with_cache(s, p, out):
    """Causal attention one token at a time with a KV cache; then its rows stacked, and the same
    causal attention over the whole sequence at once (under a window, and sink tokens, their
    mask: what the cache holds at each step)."""
    d_k, d_v = s["dK"], s["dV"]
    cache = [[np.zeros((0, d_k)), np.zeros((0, d_v)), np.zeros(0, dtype=int)]
             for _ in range(s["numKvHeads"])]
    rows = [decode_step(s, p, t, cache, out) for t in range(s["seqLen"])]
    out["stacked"] = np.vstack(rows)
    whole = {}
    out["causal_reference"] = multi_head_attention(s, p, whole)  # s["causal"] is true
    out.update({k: m for k, m in whole.items() if k[0] == "W"})


def flash_tile(s, q_i, k_j, v_j, hidden, running, out, key):
    """One tile of the online softmax (hidden: the mask's cells over it): the block's running
    row max m, sum l and output O after it."""
    m, l, o = running
    scores = q_i @ k_j.T / np.sqrt(s["dK"]) if s["scaleScores"] else q_i @ k_j.T
    scores = np.where(hidden, -np.inf, scores)
    m_new = np.maximum(m, scores.max(axis=1, keepdims=True))
    none = np.isneginf(m_new)  # a row whose window starts in a later tile: nothing to add yet
    with np.errstate(invalid="ignore"):
        p = np.where(none, 0.0, np.exp(scores - m_new))
        alpha = np.where(none, 0.0, np.exp(m - m_new))  # rescales what was summed under the old max
    l_new = alpha * l + p.sum(axis=1, keepdims=True)
    o_new = alpha * o + p @ v_j
    record(out, f"tile_scores/{key}", scores, Q_i=q_i, K_j=k_j)
    record(out, f"tile_max/{key}", m_new, m=m)
    record(out, f"tile_sum/{key}", l_new, l=l, α=alpha, P=p)
    record(out, f"tile_out/{key}", o_new, O=o, α=alpha, P=p, V_j=v_j)
    return m_new, l_new, o_new


def flash_attention(s, p, out):
    """One head tiled: each block of blockRows queries meets the blocks of blockCols keys in turn,
    keeping a running row max m, sum l and unnormalised output O; no T × T matrix is formed."""
    x, t, br, bc = p["x"], s["seqLen"], s["blockRows"], s["blockCols"]
    q, k, v = x @ p["W_Q"][0], x @ p["W_K"][0], x @ p["W_V"][0]
    out.update({"x": x, "W_Q/0": p["W_Q"][0], "W_K/0": p["W_K"][0], "W_V/0": p["W_V"][0],
                "q/0": q, "k/0": k, "v/0": v})
    step, blocks, hidden = 0, [], hidden_keys(s)[0]
    for i0 in range(0, t, br):
        i1 = min(i0 + br, t)
        rows = i1 - i0
        m, l, o = np.full((rows, 1), -np.inf), np.zeros((rows, 1)), np.zeros((rows, s["dV"]))
        for j0 in range(0, t, bc):
            j1 = min(j0 + bc, t)
            if hidden[i0:i1, j0:j1].all():
                continue  # the mask hides every key of it from every query of the block: skipped
            m, l, o = flash_tile(s, q[i0:i1], k[j0:j1], v[j0:j1], hidden[i0:i1, j0:j1], (m, l, o),
                                 out, f"0@{step}")
            step += 1
        blocks.append(o / l)
        record(out, f"block_out/0@{step - 1}", blocks[-1], O=o, l=l)
    out["stacked"] = np.vstack(blocks)
    scaled = q @ k.T / np.sqrt(s["dK"]) if s["scaleScores"] else q @ k.T
    mask = attention_mask(s)
    out["reference"] = softmax(scaled if mask is None else scaled + mask) @ v


def latent_attention(s, p, out):
    """DeepSeek-V2's multi-head latent attention (T = tokens, D = d_model, DH = d_k, DV = d_v,
    DC = d_c, DR = d_r). X is compressed to one latent c_kv (T, DC) which, beside the RoPE key
    k_rope (T, DR) every head shares, is all a cache keeps; head i decompresses its keys and
    values from it by W_UK[i], W_UV[i]. Absorbed, its query meets the latent itself, q·W_UK[i]ᵀ
    (T, DC), and its weights gather the latent before W_UV[i]: the same scores, the same head.
    The scores are divided by √(DH + DR), the width of a query with its RoPE part."""
    mask, x = attention_mask(s), p["x"]  # x (T, D)
    c_kv = out["c_kv"] = x @ p["W_DKV"]  # (T, DC)
    out["W_DKV"] = p["W_DKV"]
    if s["dRope"]:
        k_rope = out["k_rope"] = rope(s, x @ p["W_KR"])  # (T, DR): every column turned
        out["W_KR"] = p["W_KR"]
    if mask is not None:
        out["M"] = mask
    heads = []
    for i in range(s["numHeads"]):
        w_uk, w_uv = p["W_UK"][i], p["W_UV"][i]  # (DC, DH), (DC, DV)
        q = x @ p["W_Q"][i]  # (T, DH)
        k, v = c_kv @ w_uk, c_kv @ w_uv  # (T, DH), (T, DV)
        scores = q @ k.T  # (T, T)
        if s["dRope"]:
            q_rope = out[f"q_rope/{i}"] = rope(s, x @ p["W_QR"][i])  # (T, DR)
            out[f"W_QR/{i}"] = p["W_QR"][i]
            scores = scores + q_rope @ k_rope.T
        scaled = logits = scores / np.sqrt(s["dK"] + s["dRope"]) if s["scaleScores"] else scores
        if mask is not None:
            logits = out[f"masked/{i}"] = scaled + mask
        weights = softmax(logits)  # (T, T)
        latent_head = weights @ c_kv  # (T, DC)
        heads.append(latent_head @ w_uv)  # (T, DV): weights·v
        out.update({f"W_Q/{i}": p["W_Q"][i], f"W_UK/{i}": w_uk, f"W_UV/{i}": w_uv,
                    f"q/{i}": q, f"k/{i}": k, f"v/{i}": v, f"q_absorbed/{i}": q @ w_uk.T,
                    f"scores/{i}": scores, f"scaled/{i}": scaled, f"weights/{i}": weights,
                    f"totals/{i}": weights.sum(axis=-1, keepdims=True),
                    f"latent_head/{i}": latent_head, f"head/{i}": heads[-1]})
    return project_out(s, np.concatenate(heads, axis=-1), p["W_O"], out)  # (T, D)


def stages(s, p):
    """Every matrix of one case, keyed like the trace: stage id, id/head or id/head@step (see
    `at`), a drawn or built operand's name, a stepped operand under its stage (see `record`)."""
    out = {"x_q": p["x"], "x_kv": p["x_kv"]} if s["kind"] == "cross" else {"x": p["x"]}
    if s["kind"] == "encoder-layer":
        encoder_layer(s, p, out)
    elif s["kind"] == "kv-cache":
        del out["x"]  # decoding reads X one row a step: x_t
        decode_with_cache(s, p, out)
    elif s["kind"] == "flash":
        flash_attention(s, p, out)
    elif s["kind"] == "mla":
        latent_attention(s, p, out)
    else:  # self, cross, designed
        multi_head_attention(s, p, out)
    return out
