"""The attention-only model of cpp/include/attention/model.hpp in numpy, derived from its math
(not from the C++ core): the draw, the forward pass, the masked next-token loss, its gradients by
hand with a central-difference check of their own, Adam, the head scores, and the training tasks'
batches. V = vocab, T = seqLen, D = dModel, L = numLayers, H = numHeads, DK = dK, DV = dV.

c: a model's sizes, named like the engine's config {vocab, seqLen, dModel, numLayers, numHeads,
dK, dV}; p: its matrices {W_E (V, D), W_P (T, D), layers: [{W_Q: H × (D, DK), W_K: H × (D, DK),
W_V: H × (D, DV), W_O (H·DV, D)}], W_U (D, V)}; tokens: (B, T + 1) whole numbers, each row the
T inputs and, one position later, their targets; mask: (B, T) the weight of each input's loss.
"""
import numpy as np


def named(p):
    """p's matrices in the engine's one order, with the names JS gives them: W_E, W_P, then per
    layer W_Q of each head, W_K of each head, W_V of each head and W_O, and W_U last."""
    out = [("W_E", p["W_E"]), ("W_P", p["W_P"])]
    for l, layer in enumerate(p["layers"]):
        for key in ("W_Q", "W_K", "W_V"):
            out += [(f"layers[{l}].{key}[{h}]", m) for h, m in enumerate(layer[key])]
        out.append((f"layers[{l}].W_O", layer["W_O"]))
    return out + [("W_U", p["W_U"])]


def zeros_like(p):
    """A model's shapes, every entry 0 (the gradients' and the moments' start)."""
    return {"W_E": np.zeros_like(p["W_E"]), "W_P": np.zeros_like(p["W_P"]),
            "layers": [{key: ([np.zeros_like(m) for m in w[key]] if key != "W_O"
                              else np.zeros_like(w[key])) for key in w} for w in p["layers"]],
            "W_U": np.zeros_like(p["W_U"])}


def init_model(c, seed):
    """np.random.seed(seed), then each matrix randn(rows, cols) times 1/√rows, in named's order."""
    np.random.seed(seed)

    def drawn(rows, cols):
        return np.random.randn(rows, cols) * (1 / np.sqrt(rows))

    d, h = c["dModel"], c["numHeads"]
    p = {"W_E": drawn(c["vocab"], d)}
    p["W_P"] = drawn(c["seqLen"], d)
    p["layers"] = []
    for _ in range(c["numLayers"]):
        w_q = [drawn(d, c["dK"]) for _ in range(h)]
        w_k = [drawn(d, c["dK"]) for _ in range(h)]
        w_v = [drawn(d, c["dV"]) for _ in range(h)]
        p["layers"].append({"W_Q": w_q, "W_K": w_k, "W_V": w_v, "W_O": drawn(h * c["dV"], d)})
    p["W_U"] = drawn(d, c["vocab"])
    return p


def causal_weights(scores):
    """Each row's softmax over the keys at or before its query: a later key gets −∞ before the
    exponential, so its weight is exactly 0. The row's largest visible score is subtracted first:
    the exponentials are then at most 1 and cannot overflow."""
    later = np.triu(np.ones(scores.shape, dtype=bool), k=1)
    shown = np.where(later, -np.inf, scores)
    e = np.exp(shown - shown.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def forward(c, p, inputs):
    """One sequence of T input tokens: every layer's input x, its heads' q, k, v and weights a,
    and its concat; the last residual stream x (T, D) and the logits (T, V)."""
    x = p["W_E"][np.asarray(inputs)] + p["W_P"]
    layers = []
    for w in p["layers"]:
        heads = []
        for w_q, w_k, w_v in zip(w["W_Q"], w["W_K"], w["W_V"]):
            q, k, v = x @ w_q, x @ w_k, x @ w_v
            heads.append({"q": q, "k": k, "v": v, "a": causal_weights(q @ k.T / np.sqrt(c["dK"]))})
        concat = np.hstack([head["a"] @ head["v"] for head in heads])  # (T, H·DV)
        layers.append({"x": x, "heads": heads, "concat": concat})
        x = x + concat @ w["W_O"]
    return {"layers": layers, "x": x, "logits": x @ p["W_U"]}


def log_probabilities(logits):
    """log softmax of each row, the row max taken out first (no overflow in the exponential)."""
    shifted = logits - logits.max(axis=1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))


def loss(c, p, tokens, mask):
    """Σ mask · (−log p(next token)) / Σ mask over the batch."""
    total = 0.0
    for sequence, weights in zip(tokens, mask):
        logp = log_probabilities(forward(c, p, sequence[:-1])["logits"])
        total += np.sum(weights * -logp[np.arange(c["seqLen"]), sequence[1:]])
    return total / np.sum(mask)


def layer_backward(c, w, f, d_out, g):
    """From ∂loss/∂x_{l+1} to ∂loss/∂x_l through x_{l+1} = x_l + concat·W_O, adding the layer's
    weight gradients into g. Per head: H = A·v; A = softmax(S) by rows, whose backward pass is
    dS = A ⊙ (dA − Σ_keys A ⊙ dA) (0 wherever A is, so hidden keys get nothing); S = q·kᵀ/√DK;
    q, k, v = x·W_Q, x·W_K, x·W_V."""
    g["W_O"] += f["concat"].T @ d_out
    d_concat = d_out @ w["W_O"].T
    d_x = d_out.copy()  # the residual path
    dv = c["dV"]
    for i, head in enumerate(f["heads"]):
        a = head["a"]
        d_head = d_concat[:, i * dv:(i + 1) * dv]
        d_a, d_v = d_head @ head["v"].T, a.T @ d_head
        d_s = a * (d_a - np.sum(a * d_a, axis=1, keepdims=True)) / np.sqrt(c["dK"])
        d_q, d_k = d_s @ head["k"], d_s.T @ head["q"]
        g["W_Q"][i] += f["x"].T @ d_q
        g["W_K"][i] += f["x"].T @ d_k
        g["W_V"][i] += f["x"].T @ d_v
        d_x += d_q @ w["W_Q"][i].T + d_k @ w["W_K"][i].T + d_v @ w["W_V"][i].T
    return d_x


def gradients(c, p, tokens, mask):
    """∂loss/∂(every matrix of p), shaped as p. At the logits of input t the loss's gradient is
    mask_t / Σ mask · (softmax(logits_t) − onehot(target_t)); then back through W_U, the layers
    last to first, and x₀ = W_E[token] + W_P (a token read twice collects both rows)."""
    g = zeros_like(p)
    rows = np.arange(c["seqLen"])
    for sequence, weights in zip(tokens, mask):
        inputs, targets = sequence[:-1], sequence[1:]
        f = forward(c, p, inputs)
        d_logits = np.exp(log_probabilities(f["logits"]))
        d_logits[rows, targets] -= 1
        d_logits *= (weights / np.sum(mask))[:, None]
        g["W_U"] += f["x"].T @ d_logits
        d_x = d_logits @ p["W_U"].T
        for l in reversed(range(c["numLayers"])):
            d_x = layer_backward(c, p["layers"][l], f["layers"][l], d_x, g["layers"][l])
        g["W_P"] += d_x
        np.add.at(g["W_E"], np.asarray(inputs), d_x)
    return g


def check_by_differences(name, c, p, tokens, mask, grads, step=1e-6, tol=1e-6):
    """Every entry of every gradient against the central difference of loss; raises naming the
    case, the matrix and the entry when one is off by more than tol (relative, or absolute
    below 1). Returns the worst difference. p is moved in place and put back exactly."""
    worst = 0.0
    for (key, m), (_, got) in zip(named(p), named(grads)):
        for index in np.ndindex(m.shape):
            kept = m[index]
            m[index] = kept + step
            up = loss(c, p, tokens, mask)
            m[index] = kept - step
            down = loss(c, p, tokens, mask)
            m[index] = kept
            want = (up - down) / (2 * step)
            off = abs(got[index] - want) / max(1.0, abs(want))
            worst = max(worst, off)
            if off > tol:
                raise AssertionError(f"{name}: d{key}{index}: {got[index]}, differences {want}")
    return worst


def adam_start(p):
    return {"t": 0, "m": zeros_like(p), "v": zeros_like(p)}


def adam_step(p, g, state, learning_rate, beta1=0.9, beta2=0.999, epsilon=1e-8):
    """One bias-corrected Adam update of p in place (Kingma & Ba, 2015, Algorithm 1)."""
    state["t"] += 1
    t = state["t"]
    for (_, theta), (_, grad), (_, m), (_, v) in zip(named(p), named(g), named(state["m"]),
                                                      named(state["v"])):
        m[...] = beta1 * m + (1 - beta1) * grad
        v[...] = beta2 * v + (1 - beta2) * grad * grad
        m_hat, v_hat = m / (1 - beta1 ** t), v / (1 - beta2 ** t)
        theta -= learning_rate * m_hat / (np.sqrt(v_hat) + epsilon)


def head_scores(c, p, tokens):
    """(L, H) matrices: the mean, over every sequence's queries t ≥ 1, of each head's weight on
    key t − 1 (previousToken), key 0 (firstToken) and key t (self); and (induction) over the
    queries whose token occurred before, the latest at s < t, the mean weight on key s + 1
    (None when no query's token repeats)."""
    sums = {key: np.zeros((c["numLayers"], c["numHeads"]))
            for key in ("previousToken", "firstToken", "self", "induction")}
    queries = repeats = 0
    for sequence in tokens:
        inputs = list(sequence[:-1])
        f = forward(c, p, inputs)
        for t in range(1, c["seqLen"]):
            seen = [s for s in range(t) if inputs[s] == inputs[t]]
            queries, repeats = queries + 1, repeats + (1 if seen else 0)
            for l, layer in enumerate(f["layers"]):
                for h, head in enumerate(layer["heads"]):
                    a = head["a"]
                    sums["previousToken"][l, h] += a[t, t - 1]
                    sums["firstToken"][l, h] += a[t, 0]
                    sums["self"][l, h] += a[t, t]
                    if seen:
                        sums["induction"][l, h] += a[t, seen[-1] + 1]
    scores = {key: sums[key] / queries for key in ("previousToken", "firstToken", "self")}
    scores["induction"] = sums["induction"] / repeats if repeats else None
    return scores


def stream_seed(seed, k):
    """The generator seed of stream k of a run: (seed · 2654435761 + k) mod 2³²."""
    return (seed * 2654435761 + k) % 2**32


def below(rng, n):
    """A whole number in [0, n): ⌊u · n⌋ for one uniform u = random_sample()."""
    return int(rng.random_sample() * n)


def induction_sequence(rng, vocab, length):
    """A block of n random tokens (4 ≤ n ≤ min(8, ⌊length/2⌋)) repeated right after itself, at a
    random start; every other token random. Counted: the inputs whose next token is the copy's
    second … n-th, which only the block's earlier occurrence tells."""
    n = 4 + below(rng, min(8, length // 2) - 3)
    start = below(rng, length + 1 - 2 * n)  # the copy ends at or before the sequence's end
    tokens = [below(rng, vocab) for _ in range(length)]
    tokens[start + n:start + 2 * n] = tokens[start:start + n]
    counted = np.zeros(length - 1)
    counted[start + n:start + 2 * n - 1] = 1
    return tokens, counted


def previous_token_sequence(rng, vocab, length):
    """Triples (a, b, a) of random tokens from position 0 (the last cut short); counted: each b
    that has a next token in the sequence (its target, a, is the token before b)."""
    tokens = []
    for i in range(length):
        tokens.append(tokens[i - 2] if i % 3 == 2 else below(rng, vocab))
    counted = np.array([1.0 if i % 3 == 1 else 0.0 for i in range(length - 1)])
    return tokens, counted


def two_relations_sequence(rng, vocab, length):
    """With K symbols (vocab = K + K²): s₀, then triples (s, r, pair) from position 1 (the last
    cut short), s and r random symbols and pair the token K + s₀·K + s; counted: each r with a
    next token in the sequence (its target needs key 0 and key t − 1)."""
    k = next(k for k in range(1, vocab + 1) if k + k * k == vocab)
    tokens = [below(rng, k)]
    for i in range(1, length):
        tokens.append(k + tokens[0] * k + tokens[i - 2] if (i - 1) % 3 == 2 else below(rng, k))
    counted = np.array([1.0 if i >= 1 and (i - 1) % 3 == 1 else 0.0 for i in range(length - 1)])
    return tokens, counted


TASKS = {"induction": induction_sequence, "previous-token": previous_token_sequence,
         "two-relations": two_relations_sequence}


def draw_batch(task, vocab, seq_len, count, rng):
    """count sequences of seq_len + 1 tokens of the task, drawn one after another from rng:
    tokens (count, seq_len + 1) and mask (count, seq_len)."""
    drawn = [TASKS[task](rng, vocab, seq_len + 1) for _ in range(count)]
    return np.array([t for t, _ in drawn]), np.array([m for _, m in drawn])
