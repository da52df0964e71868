"""The training bench's PyTorch side (issue 36): the default induction model trained in eager
PyTorch, float64, one thread, from the engine's own step-0 model on the engine's own batches, so
that both sides train the same model the same way and the bench can compare their losses.

The model as cpp/include/attention/model.hpp defines it (V vocab, T tokens, D d_model, H heads):
    x0 = W_E[tokens] + W_P                      (B, T, D)
    x_{l+1} = x_l + MHA_l(x_l)                  causal, / sqrt(d_k), W_O
    logits = x_L @ W_U                          (B, T, V)
    loss = sum(mask * CE(logits, next token)) / sum(mask)
and Adam (torch.optim.Adam, betas 0.9 and 0.999, eps 1e-8) as cpp/src/adam.cpp. Each layer holds its
heads' W_Q, W_K, W_V side by side, (D, H*d_k), as PyTorch code usually does: one product for all
heads.

Protocol (one JSON object a line): stdin first {config, params, batches, lr}, params as the engine's
checkpoint holds them and batches[k] the {tokens, mask} of step k + 1; then {"steps": n} runs the next
n steps and answers {"wall": s, "cpu": s, "loss": the mean of their losses, "step": steps so far}
(the engine's checkpoint after them holds the same mean as trainLoss).
"""

import json
import math
import sys
import time

import torch

torch.set_num_threads(1)
torch.set_default_dtype(torch.float64)


def tensor(m):
    """A {shape, values} matrix from the engine as a (rows, cols) tensor."""
    return torch.tensor(m["values"]).reshape(m["shape"])


def side_by_side(heads):
    """H matrices (D, d) as one (D, H*d): head h's columns at h*d ... (h+1)*d - 1."""
    return torch.cat([tensor(m) for m in heads], dim=1)


class TinyTransformer(torch.nn.Module):
    def __init__(self, config, params):
        super().__init__()
        self.heads = config["numHeads"]
        self.w_e = torch.nn.Parameter(tensor(params["W_E"]))  # (V, D)
        self.w_p = torch.nn.Parameter(tensor(params["W_P"]))  # (T, D)
        self.w_u = torch.nn.Parameter(tensor(params["W_U"]))  # (D, V)
        self.layers = torch.nn.ParameterList()
        for layer in params["layers"]:
            for name in ("W_Q", "W_K", "W_V"):
                self.layers.append(torch.nn.Parameter(side_by_side(layer[name])))  # (D, H*d)
            self.layers.append(torch.nn.Parameter(tensor(layer["W_O"])))  # (H*d_v, D)
        t = self.w_p.shape[0]
        self.register_buffer("hidden", torch.triu(torch.ones(t, t, dtype=torch.bool), diagonal=1))

    def attention(self, x, w_q, w_k, w_v, w_o):
        b, t, _ = x.shape
        split = lambda m: m.view(b, t, self.heads, -1).transpose(1, 2)  # (B, H, T, d)
        q, k, v = split(x @ w_q), split(x @ w_k), split(x @ w_v)
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])  # (B, H, T, T)
        weights = torch.softmax(scores.masked_fill(self.hidden, float("-inf")), dim=-1)
        heads = (weights @ v).transpose(1, 2).reshape(b, t, -1)  # (B, T, H*d_v)
        return heads @ w_o  # (B, T, D)

    def forward(self, inputs):
        x = self.w_e[inputs] + self.w_p  # (B, T, D)
        for l in range(0, len(self.layers), 4):
            x = x + self.attention(x, *self.layers[l : l + 4])
        return x @ self.w_u  # (B, T, V)


def loss_of(model, tokens, mask):
    logits = model(tokens[:, :-1])  # (B, T, V)
    losses = torch.nn.functional.cross_entropy(
        logits.reshape(-1, logits.shape[-1]), tokens[:, 1:].reshape(-1), reduction="none"
    )
    return (losses * mask.reshape(-1)).sum() / mask.sum()


def main():
    setup = json.loads(sys.stdin.readline())
    model = TinyTransformer(setup["config"], setup["params"])
    optimizer = torch.optim.Adam(model.parameters(), lr=setup["lr"], betas=(0.9, 0.999), eps=1e-8)
    batches = [(torch.tensor(b["tokens"]), torch.tensor(b["mask"])) for b in setup["batches"]]
    done = 0
    for line in sys.stdin:
        steps = json.loads(line)["steps"]
        wall, cpu = time.perf_counter(), time.process_time()
        losses = []
        for tokens, mask in batches[done : done + steps]:
            optimizer.zero_grad(set_to_none=True)
            loss = loss_of(model, tokens, mask)
            loss.backward()
            optimizer.step()
            losses.append(loss.detach())
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        done += steps
        mean = torch.stack(losses).mean().item()
        print(json.dumps({"wall": wall, "cpu": cpu, "loss": mean, "step": done}), flush=True)


if __name__ == "__main__":
    main()
