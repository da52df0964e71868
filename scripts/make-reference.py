#!/usr/bin/python3
"""Reference values for the tests, computed by numpy independently of the C++ core.

For every preset the engine defines (read through scripts/print-presets.mjs, so that sizes
live in one place), draws what the engine draws and computes every stage as the lesson does.
Writes tests/fixtures/lesson-reference.json (for node) and .txt (for Catch2): the sizes numpy
used for each preset (`preset id key=value …`), then one matrix a line (`name rows cols v…`,
-inf for masked cells). Regenerate only with this script, after building the engine:
    /usr/bin/python3 scripts/make-reference.py   (Debian python3-numpy)
"""
import json
import pathlib
import subprocess

import numpy as np

VERSION = 2
ROOT = pathlib.Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "fixtures"


def engine_presets():
    """[{id, spec, …}] as dist/engine.js lists them."""
    script = ROOT / "scripts" / "print-presets.mjs"
    printed = subprocess.run(["node", str(script)], check=True, capture_output=True, text=True)
    return json.loads(printed.stdout)


def sizes_of(spec):
    """Every size and switch of a spec with the engine's defaults filled in, named like its config."""
    kind, d, h = spec.get("kind", "self"), spec["dModel"], spec.get("numHeads", 1)
    cross, encoder = kind == "cross", kind == "encoder-layer"
    t = spec["queryLen"] if cross else spec["seqLen"]
    return {
        "kind": kind, "seed": spec.get("seed", 42), "skip": spec.get("skip", 0),
        "seqLen": t, "kvLen": spec["keyLen"] if cross else t, "dModel": d,
        "numHeads": h, "numKvHeads": spec.get("numKvHeads", h),
        "dK": spec.get("dK", d // h), "dV": spec.get("dV", d // h),
        "dFF": spec.get("dFF", 4 * d) if encoder else None,
        "validKeys": spec.get("validKeys"), "causal": spec.get("causal", False),
        "outputProjection": encoder or spec.get("outputProjection", True),
        "scaleScores": spec.get("scaleScores", True),
    }


def weight(*shape):
    return np.random.randn(*shape) * 0.1


def draw(s):
    """What the engine draws, in its order: X (or X_q, X_kv), every W_Q, every W_K, every W_V,
    W_O, then the encoder layer's W1, W2, b1, b2."""
    t, tkv, d, h, hkv = s["seqLen"], s["kvLen"], s["dModel"], s["numHeads"], s["numKvHeads"]
    np.random.seed(s["seed"])
    if s["skip"] > 0:
        np.random.randn(s["skip"])  # lesson-causal: the lesson draws on without reseeding
    x = np.random.randn(t, d)
    x_kv = np.random.randn(tkv, d) if s["kind"] == "cross" else x
    p = {"x": x, "x_kv": x_kv}
    p["W_Q"] = [weight(d, s["dK"]) for _ in range(h)]
    p["W_K"] = [weight(d, s["dK"]) for _ in range(hkv)]
    p["W_V"] = [weight(d, s["dV"]) for _ in range(hkv)]
    if s["outputProjection"]:
        p["W_O"] = weight(h * s["dV"], d)
    if s["kind"] == "encoder-layer":
        p["W1"], p["W2"] = weight(d, s["dFF"]), weight(s["dFF"], d)
        p["b1"], p["b2"] = weight(s["dFF"]), weight(d)
    return p


def softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))  # the row max: exp never overflows
    return e / e.sum(axis=-1, keepdims=True)


def layer_norm(x, eps=1e-6):
    return (x - x.mean(axis=-1, keepdims=True)) / (x.std(axis=-1, keepdims=True) + eps)


def attention_mask(s):
    """M (T, T_kv): −inf above the diagonal (causal) and on padding keys, else 0; None if neither."""
    rows, cols = np.indices((s["seqLen"], s["kvLen"]))
    hidden = (cols > rows) if s["causal"] else np.zeros(rows.shape, dtype=bool)
    if s["validKeys"] is not None:
        hidden |= cols >= s["validKeys"]
    return np.where(hidden, -np.inf, 0.0) if s["causal"] or s["validKeys"] is not None else None


def multi_head_attention(s, p, out):
    """Every head's stages into out; returns the output (T, D), or the heads side by side.
    K/V head g serves query heads g·group … g·group + group − 1 and is keyed under the first."""
    group, mask = s["numHeads"] // s["numKvHeads"], attention_mask(s)
    if mask is not None:
        out["M"] = mask
    for g in range(s["numKvHeads"]):
        first = g * group
        out[f"W_K/{first}"], out[f"W_V/{first}"] = p["W_K"][g], p["W_V"][g]
        out[f"k/{first}"], out[f"v/{first}"] = p["x_kv"] @ p["W_K"][g], p["x_kv"] @ p["W_V"][g]
    heads = []
    for i in range(s["numHeads"]):
        first = i // group * group
        q = p["x"] @ p["W_Q"][i]
        scores = q @ out[f"k/{first}"].T
        scaled = scores / np.sqrt(s["dK"]) if s["scaleScores"] else scores
        logits = scaled if mask is None else scaled + mask
        weights = softmax(logits)
        heads.append(weights @ out[f"v/{first}"])
        out.update({f"W_Q/{i}": p["W_Q"][i], f"q/{i}": q, f"scores/{i}": scores,
                    f"scaled/{i}": scaled, f"weights/{i}": weights,
                    f"totals/{i}": weights.sum(axis=-1, keepdims=True), f"head/{i}": heads[-1]})
        if mask is not None:
            out[f"masked/{i}"] = logits
    concat = np.concatenate(heads, axis=-1)
    if not s["outputProjection"]:
        return concat
    out.update({"W_O": p["W_O"], "concat": concat, "output": concat @ p["W_O"]})
    return out["output"]


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


def stages(s):
    """Every matrix of one preset, keyed like the trace: stage id or id/head, operand name."""
    p = draw(s)
    out = {"x_q": p["x"], "x_kv": p["x_kv"]} if s["kind"] == "cross" else {"x": p["x"]}
    if s["kind"] == "encoder-layer":
        encoder_layer(s, p, out)
    else:
        multi_head_attention(s, p, out)
    return out


def randn_cases():
    cases = {}
    for seed, r, c in [(42, 2, 5), (0, 3, 3), (1, 1, 7), (2**32 - 1, 4, 2)]:
        np.random.seed(seed)
        cases[f"randn/{seed}/{r}x{c}"] = np.random.randn(r, c)
    return cases


def write(sizes, matrices):
    meta = {"version": VERSION, "numpy": np.__version__, "generator": "scripts/make-reference.py"}
    as_json = {k: [[None if np.isinf(v) else float(v) for v in row] for row in m.tolist()]
               for k, m in matrices.items()}
    (OUT / "lesson-reference.json").write_text(
        json.dumps({**meta, "presets": sizes, "matrices": as_json}) + "\n")

    lines = [f"# version {VERSION} numpy {np.__version__} (scripts/make-reference.py)"]
    for preset, fields in sizes.items():
        words = [f"{k}={v if isinstance(v, str) else json.dumps(v)}" for k, v in fields.items()]
        lines.append(" ".join(["preset", preset, *words]))
    for k, m in matrices.items():
        values = " ".join("-inf" if np.isinf(v) else repr(float(v)) for v in m.ravel())
        lines.append(f"{k} {m.shape[0]} {m.shape[1]} {values}")
    (OUT / "lesson-reference.txt").write_text("\n".join(lines) + "\n")


def main():
    sizes, matrices = {}, {}
    for preset in engine_presets():
        sizes[preset["id"]] = sizes_of(preset["spec"])
        for key, m in stages(sizes[preset["id"]]).items():
            matrices[f"{preset['id']}:{key}"] = m
    matrices.update(randn_cases())
    write(sizes, matrices)
    print(f"{len(sizes)} presets, {len(matrices)} matrices")


if __name__ == "__main__":
    main()
