"""``srfsym simulate``: the finite-size network or sRF model."""
from __future__ import annotations



from .common import (SHARED_HELP, add_output, add_physics, emit_csv, emit_json, out)


def cmd_simulate(args):
    from ..simulate import simulate
    res = simulate(args.student, args.teacher, args.alpha0, args.eta, args.lam, args.alpha,
                   d=args.d, beta=args.beta, seeds=args.seeds, model=args.model, seed=args.seed,
                   n_test=args.n_test, workers=args.workers,
                   shared_first_layer=args.shared_first_layer,
                   progress=not (args.json or args.csv or args.quiet))
    if args.json:
        emit_json(res.to_dict())
    elif args.csv:
        d = res.to_dict()
        rows = [{"alpha": a, "test_error": t, "test_error_sem": s}
                for a, t, s in zip(d["alphas"], d["test_error"], d["test_error_sem"])]
        emit_csv(rows)
    else:
        out(res.summary())


# ---------------------------------------------------------------------------------------
# derive


def register(sub):
    p = sub.add_parser("simulate", help="finite-size simulation of the network or sRF model",
                       description="Simulate the real network (one giant step, then ridge) or "
                       "the sRF model at finite d, over independent seeds, with the theory "
                       "beside it (docs/theory.md (a), (c)).")
    add_physics(p)
    p.add_argument("--d", type=int, required=True, help="input dimension")
    p.add_argument("--seeds", type=int, default=3, help="independent repetitions")
    p.add_argument("--seed", type=int, default=0, help="master random seed")
    p.add_argument("--model", choices=["network", "srf"], default="network",
                   help="the two-layer network after the step, or the sRF model at the "
                        "formula's (r, c, gamma)")
    p.add_argument("--n-test", type=int, default=5000, help="fresh test points per seed")
    p.add_argument("--workers", type=int, default=None, help="cores to use (default: all)")
    p.add_argument("--shared-first-layer", action="store_true", help=SHARED_HELP)
    add_output(p)
    p.set_defaults(func=cmd_simulate)
