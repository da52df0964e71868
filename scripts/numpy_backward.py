"""The backward pass of one self-attention layer in numpy, derived from the chain rule on the
forward pass of numpy_attention.py (not from the C++ core), with a finite-difference check of its
own. Every gradient is ∂loss/∂x for a loss whose gradient at the output is dO.

Forward, per query head i of K/V head g: Q_i = X W_Q_i, K_g = X W_K_g, V_g = X W_V_g (X + PE
under sinusoidal positions), S_i = Q_i K_gᵀ, S̃_i = S_i / √d_k (or S_i), L_i = S̃_i + B_i + M,
A_i = softmax(L_i) by rows, H_i = A_i V_g; concat = [H_0 … H_h−1], output = concat W_O (or concat).
The keys are the trace's: d_output, d_w_o, d_concat; d_head/i … d_w_q/i per query head;
d_v/f, d_k/f, d_w_k/f, d_w_v/f per K/V head, f its first query head; d_x; and d_scaled/i:totals,
the rows of d_scaled summed.
"""
import numpy as np

from numpy_attention import multi_head_attention


def softmax_rows_backward(a, d_a):
    """dL from dA through A = softmax(L), row by row with the softmax's Jacobian
    ∂a_j/∂l_k = a_j (δ_jk − a_k): dl = (diag(a) − a aᵀ) · da. A hidden key has a = 0: its row and
    column of the Jacobian are 0, so its dl is exactly 0."""
    return np.stack([(np.diag(row) - np.outer(row, row)) @ d_row for row, d_row in zip(a, d_a)])


def rope_back(s, d):
    """The gradient at a RoPE-turned matrix taken back to the matrix itself. Turning multiplied
    pair i, as the complex number a + ib, by e^(i·φ); that map's transpose is multiplication by
    the conjugate e^(−i·φ). d: (P, DK); the columns past dims pass unchanged."""
    r, dims = s["rope"], s["rope"]["dims"]
    pairs = np.arange(dims // 2)
    a, b = (pairs, pairs + dims // 2) if r["convention"] == "half-split" else (2 * pairs, 2 * pairs + 1)
    position = r["offset"] + np.arange(d.shape[0])[:, None]
    back = (d[:, a] + 1j * d[:, b]) * np.exp(-1j * position * r["base"] ** (-2.0 * pairs / dims))
    out = d.copy()
    out[:, a], out[:, b] = back.real, back.imag
    return out


def backward(s, p, d_o, out):
    """The forward stages into out (as kind self records them), then every gradient stage.
    p: {x, W_Q: [...], W_K: [...], W_V: [...], W_O}; d_o (T, D), or (T, H·DV) without W_O.
    Returns the gradients {W_Q: [...], W_K: [...], W_V: [...], W_O, x}."""
    h, hkv, dv = s["numHeads"], s["numKvHeads"], s["dV"]
    group = h // hkv
    multi_head_attention(s, p, out)
    x = out.get("x_pos", p["x"])
    concat = np.hstack([out[f"head/{i}"] for i in range(h)])
    if not s["outputProjection"] and h > 1:
        out["concat"] = concat  # the heads side by side are the output
    out["d_output"] = d_o
    grads = {"W_Q": [None] * h, "W_K": [], "W_V": []}
    d_concat = d_o
    if s["outputProjection"]:  # output = concat W_O
        grads["W_O"] = out["d_w_o"] = np.einsum("tc,td->cd", concat, d_o)
        d_concat = out["d_concat"] = np.einsum("td,cd->tc", d_o, p["W_O"])
    d_x = np.zeros_like(x)
    for g in range(hkv):
        first = g * group
        turned = bool(s["rope"])  # the scores read q_rot and k_rot: take their gradients back
        k, v = out[f"k_rot/{first}" if turned else f"k/{first}"], out[f"v/{first}"]
        d_k, d_v = np.zeros_like(k), np.zeros_like(v)
        for i in range(first, first + group):
            a, q = out[f"weights/{i}"], out[f"q_rot/{i}" if turned else f"q/{i}"]
            d_h = out[f"d_head/{i}"] = d_concat[:, i * dv:(i + 1) * dv]  # H_i's columns
            d_a = out[f"d_weights/{i}"] = d_h @ v.T  # H_i = A_i V_g
            d_v += a.T @ d_h
            # B and M are constants: ∂L/∂S̃ is the identity, so d_scaled is ∂loss/∂L.
            d_l = out[f"d_scaled/{i}"] = softmax_rows_backward(a, d_a)
            out[f"d_scaled/{i}:totals"] = d_l.sum(axis=1, keepdims=True)
            d_s = out[f"d_scores/{i}"] = d_l / np.sqrt(s["dK"]) if s["scaleScores"] else d_l
            d_q = out[f"d_q_rot/{i}" if turned else f"d_q/{i}"] = d_s @ k  # S_i = Q_i K_gᵀ
            if turned:
                d_q = out[f"d_q_unrot/{i}"] = rope_back(s, d_q)
            d_k += d_s.T @ q
            grads["W_Q"][i] = out[f"d_w_q/{i}"] = x.T @ d_q  # Q_i = X W_Q_i
            d_x += d_q @ p["W_Q"][i].T
        out[f"d_v/{first}"], out[f"d_k_rot/{first}" if turned else f"d_k/{first}"] = d_v, d_k
        if turned:
            d_k = out[f"d_k_unrot/{first}"] = rope_back(s, d_k)
        out[f"d_w_k/{first}"], out[f"d_w_v/{first}"] = x.T @ d_k, x.T @ d_v
        grads["W_K"].append(out[f"d_w_k/{first}"])
        grads["W_V"].append(out[f"d_w_v/{first}"])
        d_x += d_k @ p["W_K"][g].T + d_v @ p["W_V"][g].T
    grads["x"] = out["d_x"] = d_x  # PE is a constant: ∂loss/∂X = ∂loss/∂(X + PE)
    return grads


def loss(s, p, d_o):
    """<output, dO>: a loss whose gradient at the output is dO."""
    return float(np.sum(multi_head_attention(s, p, {}) * d_o))


def check_by_differences(name, s, p, d_o, grads, step=1e-6, tol=1e-6):
    """Every entry of every gradient against the central difference of the loss; raises naming
    the case, the matrix and the entry when one is off by more than tol (relative, or absolute
    below 1). Returns the worst difference."""
    targets = [("x", None)] + [(key, head) for key in ("W_Q", "W_K", "W_V")
                               for head in range(len(p[key]))]
    if s["outputProjection"]:
        targets.append(("W_O", None))
    worst = 0.0
    for key, head in targets:
        got = grads[key] if head is None else grads[key][head]
        for index in np.ndindex(got.shape):
            sides = []
            for sign in (1, -1):
                moved = {k: [m.copy() for m in v] if isinstance(v, list) else v.copy()
                         for k, v in p.items()}
                (moved[key] if head is None else moved[key][head])[index] += sign * step
                moved["x_kv"] = moved["x"]  # self-attention: keys and values read X too
                sides.append(loss(s, moved, d_o))
            want = (sides[0] - sides[1]) / (2 * step)
            off = abs(got[index] - want) / max(1.0, abs(want))
            worst = max(worst, off)
            if off > tol:
                raise AssertionError(f"{name}: d{key}/{head}{index}: {got[index]}, differences {want}")
    return worst
