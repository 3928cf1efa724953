r"""Simulation of convex readouts (logistic, hinge, any smooth convex loss) on the sRF model
(docs/theory.md (c), (m)).

The first layer is the frozen sRF one of :func:`srfsym.simulation.simulate.srf_first_layer`
(rows on the sphere of radius ``sqrt(c)`` plus the spike ``r vhat``), features
``phi = sigma(W x)``, labels from the teacher along ``theta* = e1`` (``sign``: labels +-1 with
a probit flip of variance ``noise``; real teachers: additive Gaussian noise).  The readout
minimises srfsym's objective exactly,

    sum_i loss(y_i, a.phi_i / sqrt(p) + b) + lam ||a||^2     (b only with ``bias=True``),

* smooth losses (square, logistic, user losses) by scipy's L-BFGS-B on the primal with the
  exact gradient (gradient norm driven to ~1e-8 relative): it is the objective itself, with
  the penalty exactly as written, and the unpenalised bias as one more variable;
* the hinge by L-BFGS-B on its box-constrained dual ``min 1/2 alpha' Y K Y alpha - sum alpha``,
  ``0 <= alpha_i <= 1/(2 lam)``, ``K = Phi Phi'/p``, ``a = Phi' (alpha y)/sqrt(p)`` (the primal is
  not differentiable); the duality gap per sample is reported.  A trained bias would add the
  equality constraint ``sum alpha_i y_i = 0``, which L-BFGS-B cannot hold: refused.

scikit-learn's estimators were not used: their penalty conventions (``C``, an intercept that
some solvers penalise) would have to be translated, and they are not a dependency.

>>> res = simulate_convex("tanh", "sign", 1.2, 1.1, 0.8, lam=0.05, alpha=2.0, d=200,
...                       loss="logistic", seeds=1, n_test=2000)
>>> 0.1 < res["classification_error"] < 0.4
True
"""
from __future__ import annotations

import math

import numpy as np
from scipy.optimize import minimize
from scipy.special import expit

from ..symbolic.activations import activation
from ..theory.losses import loss as make_loss
from .simulate import srf_first_layer

__all__ = ["fit_convex_readout", "simulate_convex"]


def fit_convex_readout(Phi, y, loss, lam, bias=False):
    """Minimise ``sum loss(y, Phi a / sqrt(p) + b) + lam ||a||^2``; returns ``(a, b, info)``.

    >>> rng = np.random.default_rng(0)
    >>> Phi = rng.normal(size=(300, 40)); y = np.sign(Phi[:, 0] + 0.3 * rng.normal(size=300))
    >>> a, b, info = fit_convex_readout(Phi, y, "logistic", 0.1)
    >>> info["gradient"] < 1e-6
    True
    """
    lo = make_loss(loss)
    n, p = Phi.shape
    if lam < 0:
        raise ValueError(f"lam must be >= 0, got {lam}")
    if lo.margin and not np.all(np.abs(y) == 1):
        raise ValueError(f"the {lo.name} loss needs labels +-1")
    if lo.name == "hinge":
        if bias:
            raise ValueError("the hinge readout is fitted through its box-constrained dual, "
                             "which cannot hold the equality constraint of a trained bias; "
                             "use bias=False (or the logistic loss)")
        if lam <= 0:
            raise ValueError("the hinge dual needs lam > 0")
        return _hinge_dual(Phi, y, lam)
    sp_ = math.sqrt(p)

    def parts(theta):
        a, b = theta[:p], (theta[p] if bias else 0.0)
        z = Phi @ a / sp_ + b
        if lo.name == "logistic":
            val = np.logaddexp(0.0, -y * z)
            d1 = -y * expit(-y * z)
        else:   # square and user losses: value and derivative (2 x the channel loss's)
            val = lo.value(y, z)
            d1 = 2 * lo.channel_d1(y, z)
        return a, val, d1

    def fun(theta):
        a, val, d1 = parts(theta)
        g = np.empty_like(theta)
        g[:p] = Phi.T @ d1 / sp_ + 2 * lam * a
        if bias:
            g[p] = d1.sum()
        return float(val.sum() + lam * a @ a), g

    x0 = np.zeros(p + (1 if bias else 0))
    sol = minimize(fun, x0, jac=True, method="L-BFGS-B",
                   options={"maxiter": 20000, "maxcor": 30, "gtol": 1e-10, "ftol": 1e-15})
    grad = float(np.max(np.abs(fun(sol.x)[1])) / max(1.0, abs(sol.fun) / n))
    a = sol.x[:p]
    return a, (float(sol.x[p]) if bias else 0.0), {"gradient": grad, "iterations": sol.nit,
                                                   "message": str(sol.message)}


def _hinge_dual(Phi, y, lam):
    n, p = Phi.shape
    K = (Phi @ Phi.T) / p
    YKY = K * np.outer(y, y)
    C = 1.0 / (2 * lam)

    def fun(al):
        g = YKY @ al
        return 0.5 * al @ g - al.sum(), g - 1.0

    sol = minimize(fun, np.zeros(n), jac=True, method="L-BFGS-B", bounds=[(0.0, C)] * n,
                   options={"maxiter": 50000, "maxcor": 30, "gtol": 1e-12, "ftol": 1e-16})
    a = Phi.T @ (sol.x * y) / math.sqrt(p)
    primal = np.maximum(0.0, 1 - y * (Phi @ a) / math.sqrt(p)).sum() + lam * a @ a
    dual = -2 * lam * sol.fun          # the dual of (sum hinge + lam ||a||^2) / (2 lam)
    return a, 0.0, {"duality_gap_per_sample": float((primal - dual) / n),
                    "iterations": sol.nit, "message": str(sol.message)}


def _labels(teacher, u, noise, rng):
    if str(teacher.expr) == "sign(x)":
        return np.where(u + math.sqrt(noise) * rng.standard_normal(u.shape) >= 0, 1.0, -1.0)
    return teacher.numpy(u) + math.sqrt(noise) * rng.standard_normal(u.shape)


def simulate_convex(student, teacher, r, c, gamma, lam, alpha, d, beta=1.0, *,
                    loss="logistic", noise=0.0, bias=False, seeds=3, n_test=20000, seed=0):
    """Fit the readout on the sRF model at ``seeds`` independent draws; return the means
    and standard errors of the test classification error (labels +-1), test MSE, training
    loss (penalty excluded), ``q2 = ||a||^2/p``, ``m = <1, a>/sqrt(p)`` and the bias."""
    st, te = activation(student), activation(teacher)
    if noise < 0:
        raise ValueError(f"the label noise must be >= 0, got {noise}")
    rows = []
    ss = np.random.SeedSequence(seed)
    for child in ss.spawn(int(seeds)):
        s_w, s_x, s_t = child.spawn(3)
        _, W, _ = srf_first_layer(r, c, gamma, d, beta, seed=s_w)
        p = W.shape[0]
        n = int(alpha * d)
        rng = np.random.default_rng(s_x)
        X = rng.standard_normal((n, d))
        Phi = st.numpy(X @ W.T)
        y = _labels(te, X[:, 0], noise, rng)
        a, b, info = fit_convex_readout(Phi, y, loss, lam, bias)
        z = Phi @ a / math.sqrt(p) + b
        lo = make_loss(loss)
        rt = np.random.default_rng(s_t)
        Xt = rt.standard_normal((n_test, d))
        zt = st.numpy(Xt @ W.T) @ a / math.sqrt(p) + b
        yt = _labels(te, Xt[:, 0], noise, rt)
        rows.append({"classification_error": float(np.mean(np.sign(zt) != np.sign(yt))),
                     "test_mse": float(np.mean((yt - zt) ** 2)),
                     "train_loss": float(np.mean(lo.value(y, z))),
                     "q2": float(a @ a / p), "m": float(a.sum() / math.sqrt(p)), "bias": b,
                     **{k: v for k, v in info.items() if k != "message"}})
    out = {"d": d, "p": int(W.shape[0]), "seeds": int(seeds), "loss": make_loss(loss).name}
    for k in ("classification_error", "test_mse", "train_loss", "q2", "m", "bias"):
        v = np.array([r_[k] for r_ in rows])
        out[k] = float(v.mean())
        out[k + "_sem"] = float(v.std(ddof=1) / math.sqrt(len(v))) if len(v) > 1 else float("nan")
    out["rows"] = rows
    return out
