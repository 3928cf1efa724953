"""Benchmark: ``srfsym activation EXPR`` for new activations, end to end (a fresh process per
activation, as a user runs it).  Target (issue #13 item 3): <= 10 s each for GELU,
x exp(-x^2/2) and x/(1 + |x|).

    python benchmarks/bench_new_activation.py [EXPR ...]
"""
import os
import subprocess
import sys
import time

EXPRESSIONS = ("x*(1+erf(x/sqrt(2)))/2", "x*exp(-x**2/2)", "x/(1+abs(x))")
TARGET_SECONDS = 10.0


def main(exprs=None):
    exprs = exprs or EXPRESSIONS
    print(f"{'activation':28s} {'seconds':>8s}  {'exit':>4s}  target {TARGET_SECONDS:g} s")
    worst = 0.0
    for e in exprs:
        t0 = time.perf_counter()
        proc = subprocess.run([sys.executable, "-c", "import sys; from srfsym.cli import main; "
                               "sys.exit(main(sys.argv[1:]))", "activation", e],
                              capture_output=True, text=True, env=dict(os.environ))
        dt = time.perf_counter() - t0
        worst = max(worst, dt)
        flag = "" if dt <= TARGET_SECONDS else "  (over target)"
        print(f"{e:28s} {dt:8.2f}  {proc.returncode:4d}{flag}")
        if proc.returncode:
            print("   " + proc.stderr.strip().splitlines()[-1])
    print(f"slowest: {worst:.2f} s")


if __name__ == "__main__":
    main(sys.argv[1:])
