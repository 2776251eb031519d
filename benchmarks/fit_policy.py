"""Fit the tuned playout policy: the heuristic plus a learned term.

The kernel's tuned policy (``mk_tuned_action``, playout.c) adds to the
heuristic's value of each card in tricks 1-10 the sum of the weights of the
card's categorical features (``h_features``: the card, the trick, is it the
master of its suit, its suit's length, the melds it breaks, the trumps held,
the chance a lead is taken, the window it opens, what it beats). This
script fits those weights so that the policy chooses what ``best`` chooses:

    generate  self-play deals of ``best`` (classic rules), recording at each
              phase-1 card decision the kernel's features of every card
              (``KernelDeal.policy_record``), the heuristic's values and
              ``best``'s choice; pickled rows
    versus    the tuned policy against the heuristic, without search (each
              deck played twice, the seats swapped): the deal margin
    fit       a conditional-logit model (the logit of a card is
              ``beta * heuristic value + sum of its weights``), fitted by
              L-BFGS on the deals of all files but the last fifth, which is
              held out; prints the held-out agreement with ``best`` of the
              heuristic and of the fitted policy, and with ``--write`` writes
              ``weights / beta`` to ``src/marjolet/_kernel/policy_weights.h``

Needs the kernel and (for ``fit``) PyTorch.

    python benchmarks/fit_policy.py generate --seed 11 --deals 3500 --out d11.pkl
    python benchmarks/fit_policy.py fit d11.pkl d12.pkl --write
    python benchmarks/fit_policy.py versus --deals 1000
"""

from __future__ import annotations

import argparse
import pickle
import random
import sys
from pathlib import Path
from typing import Any

HEADER = Path(__file__).resolve().parent.parent / "src/marjolet/_kernel/policy_weights.h"
COUNT = 240  # MK_PF_COUNT
MAX_FEATURES = 10  # MK_PF_MAX


def generate(seed: int, deals: int, spec: str, out: str) -> int:
    """Self-play ``deals`` deals of ``spec``; pickle one row per decision."""
    from marjolet import kernel
    from marjolet.bots import make_bot
    from marjolet.engine import Deal
    from marjolet.observation import observe
    from marjolet.rules import CLASSIC

    rng = random.Random(seed)
    rows: list[tuple[Any, ...]] = []
    for d in range(deals):
        deck = list(range(32))
        rng.shuffle(deck)
        deal = Deal(deck, d % 2, CLASSIC)
        bots = [make_bot(spec, seed=seed * 100000 + d * 2 + s) for s in range(2)]
        while not deal.is_over:
            legal = deal.legal_actions()
            seat = deal.to_move
            if len(legal) == 1:
                deal.push(legal[0])
                continue
            action = bots[seat].choose(observe(deal, seat), legal)
            if not deal.in_window and not deal.stock_empty:
                record = kernel.kernel_deal(deal).policy_record()
                values = dict(getattr(bots[seat], "last_values", {}) or {})
                rows.append((d, deal.tricks_played, record, action, values))
            deal.push(action)
    with open(out, "wb") as f:
        pickle.dump(rows, f)
    return len(rows)


def load(paths: list[str]) -> list[tuple[Any, ...]]:
    """Every file's rows, the deal numbers made distinct across files."""
    rows: list[tuple[Any, ...]] = []
    for k, path in enumerate(paths):
        with open(path, "rb") as f:
            rows.extend((k, *row) for row in pickle.load(f))
    return rows


def tensors(rows: list[tuple[Any, ...]], soft: float = 0.0) -> tuple[Any, ...]:
    """Padded tensors: values [n, 8], feature indices [n, 8, MAX_FEATURES]
    (COUNT pads: a weight fixed at 0), mask, target (an index; with ``soft``,
    a distribution: the softmax of ``best``'s values over ``soft`` points),
    the heuristic's index, and the hard target."""
    import torch

    n = len(rows)
    probs = torch.zeros(n, 8, dtype=torch.float64)
    values = torch.zeros(n, 8, dtype=torch.float64)
    feats = torch.full((n, 8, MAX_FEATURES), COUNT, dtype=torch.long)
    mask = torch.zeros(n, 8, dtype=torch.bool)
    target = torch.zeros(n, dtype=torch.long)
    heur = torch.zeros(n, dtype=torch.long)
    for i, (_file, _deal, _trick, record, action, best_values) in enumerate(rows):
        choice, cards = record
        for j, (card, value, idx) in enumerate(cards):
            probs[i, j] = best_values.get(card, -1e9) / soft if soft else 0.0
            values[i, j] = value
            mask[i, j] = True
            feats[i, j, : len(idx)] = torch.tensor(idx)
            if card == action:
                target[i] = j
            if card == choice:
                heur[i] = j
    if soft:
        probs = torch.softmax(probs.masked_fill(~mask, -1e9), 1)
        return values, feats, mask, probs, heur, target
    return values, feats, mask, target, heur, target


def fit(paths: list[str], l2: float, soft: float, write: bool) -> int:
    """Fit on four fifths of the deals; report the held-out agreement."""
    import torch

    rows = [r for r in load(paths) if r[3] is not None and any(c[0] == r[4] for c in r[3][1])]
    held = [r for r in rows if r[1] % 5 == 4]
    train = [r for r in rows if r[1] % 5 != 4]
    tv, tf, tm, tt, _, _ = tensors(train, soft)
    hv, hf, hm, _, hh, ht = tensors(held)
    beta = torch.tensor([0.3], dtype=torch.float64, requires_grad=True)
    w = torch.zeros(COUNT, dtype=torch.float64, requires_grad=True)

    def logits(v: Any, f: Any, m: Any) -> Any:
        padded = torch.cat([w, torch.zeros(1, dtype=torch.float64)])
        z = beta * v + padded[f].sum(-1)
        return z.masked_fill(~m, -1e9)

    opt = torch.optim.LBFGS([beta, w], max_iter=500, line_search_fn="strong_wolfe")

    def closure() -> Any:
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(logits(tv, tf, tm), tt) + l2 * (w * w).sum()
        loss.backward()  # type: ignore[no-untyped-call]
        return loss

    opt.step(closure)  # type: ignore[no-untyped-call]
    with torch.no_grad():
        z = logits(hv, hf, hm)
        fitted = (z.argmax(1) == ht).double().mean().item()
        heuristic = (hh == ht).double().mean().item()
        loss = torch.nn.functional.cross_entropy(z, ht).item()
    print(f"rows: {len(train)} fitted, {len(held)} held out; beta {beta.item():.4f}")
    print(f"held-out agreement with best: heuristic {heuristic:.3f}, fitted {fitted:.3f}")
    print(f"held-out log-loss of the fitted policy: {loss:.4f}")
    if write:
        weights = (w / beta).detach().tolist()
        write_header(weights, f"fitted on {len(train)} decisions of {', '.join(paths)}")
        print(f"wrote {HEADER}")
    return 0


def write_header(weights: list[float], origin: str) -> None:
    """policy_weights.h, written whole to a temporary file and renamed."""
    rows = ",\n".join(
        "    " + ", ".join(f"{x:.6f}" for x in weights[i : i + 6]) for i in range(0, COUNT, 6)
    )
    text = (
        "/* policy_weights.h -- the tuned policy's learned term (playout.c).\n"
        " * Written by benchmarks/fit_policy.py: do not edit by hand.\n"
        f" * {origin}. */\n"
        "#ifndef MARJOLET_POLICY_WEIGHTS_H\n#define MARJOLET_POLICY_WEIGHTS_H\n\n"
        f"static const double MK_POLICY_WEIGHTS[] = {{\n{rows}\n}};\n\n#endif\n"
    )
    tmp = HEADER.with_suffix(".h.tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(HEADER)


def versus(deals: int, seed: int) -> int:
    """The tuned policy against the heuristic without search: each deck
    played twice, the seats swapped; the mean deal margin a deck pair."""
    import statistics

    from marjolet import kernel
    from marjolet.engine import Deal
    from marjolet.rules import CLASSIC

    rng = random.Random(seed)
    margins = []
    for i in range(deals):
        deck = list(range(32))
        rng.shuffle(deck)
        total = 0
        for tuned_seat in (0, 1):
            deal = Deal(list(deck), i % 2, CLASSIC)
            while not deal.is_over:
                kd = kernel.kernel_deal(deal)
                mine = deal.to_move == tuned_seat
                deal.push(kd.tuned_action(1) if mine else kd.heuristic_action(1))
            points = deal.points
            total += points[tuned_seat] - points[tuned_seat ^ 1]
        margins.append(total / 2)
    mean = statistics.mean(margins)
    half = 1.96 * statistics.stdev(margins) / len(margins) ** 0.5
    print(f"tuned policy - heuristic: {mean:+.1f} [{mean - half:+.1f}, {mean + half:+.1f}]")
    print(f"points a deal, {deals} decks each played twice with the seats swapped")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    gen = sub.add_parser("generate", help="self-play rows")
    gen.add_argument("--seed", type=int, default=11)
    gen.add_argument("--deals", type=int, default=3500)
    gen.add_argument("--bot", default="best:worlds=200,time=0")
    gen.add_argument("--out", required=True)
    fitp = sub.add_parser("fit", help="fit the weights")
    fitp.add_argument("files", nargs="+")
    fitp.add_argument("--l2", type=float, default=1e-4)
    fitp.add_argument(
        "--soft",
        type=float,
        default=0.0,
        help="soft targets: softmax of best's values over this many points (0: best's choice)",
    )
    fitp.add_argument("--write", action="store_true", help="write policy_weights.h")
    vs = sub.add_parser("versus", help="the tuned policy against the heuristic, no search")
    vs.add_argument("--deals", type=int, default=1000)
    vs.add_argument("--seed", type=int, default=5)
    args = parser.parse_args(argv)
    if args.command == "versus":
        return versus(args.deals, args.seed)
    if args.command == "generate":
        print(generate(args.seed, args.deals, args.bot, args.out))
        return 0
    return fit(args.files, args.l2, args.soft, args.write)


if __name__ == "__main__":
    sys.exit(main())
