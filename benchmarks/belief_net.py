"""A learned belief over the opponent's hidden cards, from the whole history
of the deal (issue 25): generate self-play positions, fit a small network,
and screen it against the sampler's worlds.

The sampler places each unseen card in the opponent's hand or the stock
uniformly, but for the window inference. A network reading every play of
the deal so far (who led what, which answers won or lost, which cards each
side let go, the windows) may place them better; the first session's
logistic model of a few of these features gained 1.7% of log-loss, the
lead reading with a model of the opponent's search 4.4%. This screen says
how much a network gains, before any arena run.

    nice .venv/bin/python benchmarks/belief_net.py generate --deals 2000 --seed 1 --out b1.npz
    nice .venv/bin/python benchmarks/belief_net.py fit b1.npz b2.npz --out net.npz
    nice .venv/bin/python benchmarks/belief_net.py screen net.npz b3.npz
"""

from __future__ import annotations

import argparse
import math
import random
import time
from collections.abc import Sequence

import numpy as np

from marjolet.bots import make_bot
from marjolet.bots.belief import FEATURES, canonical, features
from marjolet.bots.best import KERNEL, base_deal, world_spec
from marjolet.engine import Deal
from marjolet.kernel import kernel_deal
from marjolet.observation import Observation, observe
from marjolet.rules import CLASSIC


def sampler_odds(obs: Observation, worlds: int, seed: int) -> np.ndarray:
    """Each card's frequency in the opponent's hand over the default's worlds."""
    spec = world_spec(obs, 0.1)
    kdeal = kernel_deal(base_deal(obs, spec))
    args = (kdeal, obs.seat, spec.unseen, spec.opp_missing, spec.first_slot, worlds, seed)
    counts = np.zeros(32)
    for hidden, _stock in KERNEL.sample(*args, None, spec.soft):
        for c in range(32):
            counts[c] += hidden >> c & 1
    return counts / worlds


def generate(deals: int, seed: int, spec: str, worlds: int, out: str) -> None:
    rng = random.Random(seed)
    bots = [make_bot(spec, seed=seed * 2), make_bot(spec, seed=seed * 2 + 1)]
    xs, truth, unseen, base, deal_ids = [], [], [], [], []
    start = time.process_time()
    for d in range(deals):
        deck = list(range(32))
        rng.shuffle(deck)
        deal = Deal(deck, rng.randrange(2), CLASSIC)
        while not deal.stock_empty:
            seat = deal.to_move
            obs = observe(deal, seat)
            legal = deal.legal_actions()
            if not obs.in_window and obs.tricks_played >= 1 and len(legal) > 1:
                canon = canonical(obs.trump)
                opp_hand = deal.hand_mask(seat ^ 1)
                t = np.zeros(32, dtype=np.int8)
                u = np.zeros(32, dtype=np.int8)
                b = np.zeros(32, dtype=np.float32)
                odds = sampler_odds(obs, worlds, rng.getrandbits(32)) if worlds else None
                for c in range(32):
                    t[canon[c]] = opp_hand >> c & 1
                    u[canon[c]] = obs.unseen.mask >> c & 1
                    if odds is not None:
                        b[canon[c]] = odds[c]
                xs.append(features(obs))
                truth.append(t)
                unseen.append(u)
                base.append(b)
                deal_ids.append(seed * 1_000_000 + d)
            deal.push(bots[seat].choose(obs, legal))
        if (d + 1) % 100 == 0:
            spent = time.process_time() - start
            print(f"{d + 1} deals, {len(xs)} positions, {spent:.0f} s CPU", flush=True)
    np.savez_compressed(
        out,
        x=np.array(xs),
        truth=np.array(truth),
        unseen=np.array(unseen),
        base=np.array(base),
        deal=np.array(deal_ids),
    )


def load(paths: Sequence[str]) -> dict[str, np.ndarray]:
    parts = [np.load(p) for p in paths]
    return {k: np.concatenate([p[k] for p in parts]) for k in parts[0].files}


def fit(
    paths: Sequence[str],
    out: str,
    hidden: int,
    epochs: int,
    seed: int,
    dropout: float = 0.3,
    lr: float = 3e-4,
    decay: float = 1e-4,
) -> None:
    import torch

    torch.manual_seed(seed)
    data = load(paths)
    deals = np.unique(data["deal"])
    rng = np.random.default_rng(seed)
    held = set(rng.choice(deals, size=len(deals) // 5, replace=False).tolist())
    test = np.array([d in held for d in data["deal"]])
    x = torch.tensor(data["x"])
    y = torch.tensor(data["truth"], dtype=torch.float32)
    m = torch.tensor(data["unseen"], dtype=torch.float32)
    # the uniform rate (hidden cards of the opponent over the unseen ones) as
    # an offset: the network learns how far each card is from it
    rate = ((y * m).sum(1) / m.sum(1).clamp(min=1)).clamp(0.02, 0.98)
    offset = torch.log(rate / (1 - rate)).unsqueeze(1)
    net = torch.nn.Sequential(
        torch.nn.Linear(FEATURES, hidden),
        torch.nn.ReLU(),
        torch.nn.Dropout(dropout),
        torch.nn.Linear(hidden, hidden),
        torch.nn.ReLU(),
        torch.nn.Dropout(dropout),
        torch.nn.Linear(hidden, 32),
    )
    opt = torch.optim.Adam(net.parameters(), lr=lr, weight_decay=decay)
    best_loss, best_weights = math.inf, None
    train_idx = np.flatnonzero(~test)
    test_idx = torch.tensor(np.flatnonzero(test))
    loss_fn = torch.nn.BCEWithLogitsLoss(reduction="none")

    def held_out() -> float:
        net.eval()
        with torch.no_grad():
            logits = net(x[test_idx]) + offset[test_idx]
            loss = loss_fn(logits, y[test_idx]) * m[test_idx]
            return float(loss.sum() / m[test_idx].sum())

    with torch.no_grad():
        flat = loss_fn(offset[test_idx].expand(-1, 32), y[test_idx]) * m[test_idx]
        print(f"the uniform rate: {float(flat.sum() / m[test_idx].sum()):.4f} nats a card")
    for epoch in range(epochs):
        rng.shuffle(train_idx)
        net.train()
        for i in range(0, len(train_idx), 256):
            batch = torch.tensor(train_idx[i : i + 256])
            logits = net(x[batch]) + offset[batch]
            loss = (loss_fn(logits, y[batch]) * m[batch]).sum() / m[batch].sum()
            opt.zero_grad()
            loss.backward()
            opt.step()
        loss_now = held_out()
        print(f"epoch {epoch + 1}: held-out {loss_now:.4f} nats a card", flush=True)
        if loss_now < best_loss:  # keep the epoch that places the held-out cards best
            best_loss = loss_now
            best_weights = [t.detach().numpy().copy() for t in net.parameters()]
    base = data["base"][test]
    mask = data["unseen"][test].astype(bool)
    truth = data["truth"][test][mask]
    if base.any():
        p = np.clip(base[mask], 0.5 / 300, 1 - 0.5 / 300)
        ce = -np.mean(np.where(truth == 1, np.log(p), np.log(1 - p)))
        print(f"the sampler (infer=0.1) on the same cards: {ce:.4f} nats a card")
    print(f"kept: held-out {best_loss:.4f} nats a card")
    np.savez(out, *(best_weights or []))


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    g = sub.add_parser("generate")
    g.add_argument("--deals", type=int, default=1000)
    g.add_argument("--seed", type=int, default=1)
    g.add_argument("--bot", default="best:worlds=100,time=0")
    g.add_argument("--worlds", type=int, default=300, help="sampler worlds a position (0: none)")
    g.add_argument("--out", required=True)
    f = sub.add_parser("fit")
    f.add_argument("data", nargs="+")
    f.add_argument("--out", required=True)
    f.add_argument("--hidden", type=int, default=256)
    f.add_argument("--epochs", type=int, default=8)
    f.add_argument("--seed", type=int, default=1)
    f.add_argument("--dropout", type=float, default=0.3)
    f.add_argument("--lr", type=float, default=3e-4)
    f.add_argument("--decay", type=float, default=1e-4)
    args = parser.parse_args(argv)
    if args.command == "generate":
        generate(args.deals, args.seed, args.bot, args.worlds, args.out)
    else:
        options = (args.hidden, args.epochs, args.seed, args.dropout, args.lr, args.decay)
        fit(args.data, args.out, *options)


if __name__ == "__main__":
    main()
