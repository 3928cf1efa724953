r"""Convex readouts (logistic, hinge, any smooth convex loss) of the simulations
(docs/theory.md (m), (m.7)): :func:`srfsym.simulation.simulate.simulate` with ``loss=`` fits
them on the network or the sRF model (:func:`convex_readout_seed`; labels drawn by
:func:`_draw_labels`, the one place they are drawn: ``sign`` with a probit flip of variance
``noise``, Bernoulli labels, or real labels with additive Gaussian noise), and
:func:`srfsym.simulation.simulate.simulate_convex` is its sRF-model case at one ``alpha`` as a dict.  The readout
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
"""
from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
from scipy.special import expit

from ..symbolic.activations import activation  # noqa: F401 (check_readout's doctest)
from ..theory.channels.losses import loss as make_loss
from .first_layer import seed_children
from .readout import _features_and_labels, ridge_readout

__all__ = ["fit_convex_readout", "check_readout", "convex_readout_seed",
           "convex_result_fields"]


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
    from scipy.optimize import minimize    # (its import is ~0.2 s: paid by the fits only)
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

    from scipy.optimize import minimize
    sol = minimize(fun, np.zeros(n), jac=True, method="L-BFGS-B", bounds=[(0.0, C)] * n,
                   options={"maxiter": 50000, "maxcor": 30, "gtol": 1e-12, "ftol": 1e-16})
    a = Phi.T @ (sol.x * y) / math.sqrt(p)
    primal = np.maximum(0.0, 1 - y * (Phi @ a) / math.sqrt(p)).sum() + lam * a @ a
    dual = -2 * lam * sol.fun          # the dual of (sum hinge + lam ||a||^2) / (2 lam)
    return a, 0.0, {"duality_gap_per_sample": float((primal - dual) / n),
                    "iterations": sol.nit, "message": str(sol.message)}


# --------------------------------------------------------------------------------------
# the convex readout of :func:`srfsym.simulation.simulate.simulate` (network or sRF model)

#: Quantities of the convex readout, one value per alpha and seed.
CONVEX_KEYS = ("classification_error", "train_loss", "train_classification_error",
               "output_bias", "q2", "m")
#: With a readout vocabulary, per seed, per alpha, per letter (in the vocabulary's order):
#: ``m_j = sum_{k in G_j} a_k / sqrt(p)`` and ``q2_j = sum_{k in G_j} a_k^2 / p``.
GROUP_KEYS = ("m_groups", "q2_groups")


def check_readout(loss, noise, bias, label_rule, teacher, lam):
    """The readout arguments of ``simulate``, checked: ``None`` for the ridge (the square loss
    without noise, bias or Bernoulli labels: the ridge path itself), else a dict.

    >>> check_readout("square", 0.0, False, "teacher", activation("tanh"), 0.1) is None
    True
    >>> check_readout("logistic", 0.1, True, "teacher", activation("sign"), 0.1)["loss"]
    'logistic'
    """
    from ..theory.channels.convex import check_label_rule
    lo = make_loss(loss)
    if isinstance(noise, bool) or not isinstance(noise, (int, float, np.floating)) \
            or not math.isfinite(noise) or noise < 0:
        raise ValueError(f"the label noise is a variance: a finite number >= 0, got {noise!r}")
    if not isinstance(bias, (bool, np.bool_)):
        raise ValueError(f"bias must be True or False, got {bias!r}")
    if lo.name == "square" and noise == 0 and not bias and label_rule == "teacher":
        return None
    if getattr(teacher, "k", None) is not None:    # multi-index hook (issue 28): y = g(x)
        from ..theory.channels.convex_multi import check_labels
        if label_rule != "teacher":
            raise ValueError(f"the multi-index target {teacher.name!r} gives the labels y = g(x) "
                             "(label_rule 'teacher'); for labels +-1 write a target with values "
                             "+-1, e.g. sign(z1 + z1*z2) (Bernoulli labels are not implemented "
                             "for a multi-index target; docs/theory.md (n.8))")
        pm1 = check_labels(teacher, lo, noise)
    else:
        check_label_rule(label_rule, teacher)
        pm1 = str(teacher.expr) == "sign(x)" or label_rule == "bernoulli"
        if lo.margin and not pm1:
            raise ValueError(f"the {lo.name} loss needs labels +-1: use the teacher 'sign' or "
                             "label_rule='bernoulli' (--label-rule bernoulli; docs/theory.md "
                             f"(m)), got {teacher.name!r}")
    if bias and not lo.allows_bias:
        raise ValueError(f"a trained bias needs a loss that grows at both ends in yhat; "
                         f"{lo.name!r} does not")
    if bias and lo.name == "hinge":
        raise ValueError("the simulated hinge readout is fitted through its box-constrained "
                         "dual, which cannot hold a trained bias: drop the bias (bias=False; "
                         "no --bias, no bias = true in a sweep) or use the logistic loss")
    if lo.margin and lam == 0:
        raise ValueError(f"the {lo.name} readout at lam = 0 has no finite or no unique "
                         "minimiser when the training data are separable: use lam > 0")
    return {"loss": lo.name if lo.name in ("square", "logistic", "hinge") else str(loss),
            "noise": float(noise), "bias": bool(bias), "label_rule": label_rule, "pm1": pm1}


def _label_stream(ss):
    """A generator for the label noise of a sample set drawn from ``ss`` (a child index the
    feature blocks never reach)."""
    return np.random.default_rng(np.random.SeedSequence(
        ss.entropy, spawn_key=tuple(ss.spawn_key) + (1 << 30,), pool_size=ss.pool_size))


#: real labels already drawn as the clean target (a multi-index target's ``g(x)``): the
#: "teacher" of :func:`_draw_labels` is then the identity
_CLEAN_LABELS = SimpleNamespace(expr="x", numpy=lambda u: u)


def _draw_labels(teacher, u, ro, ss, clean_real):
    """Labels of the samples with teacher fields ``u`` under the readout ``ro``: +-1 (sign
    teacher with a probit flip, or Bernoulli ``P(y = 1) = (1 + teacher(u + sqrt(noise) xi))/2``)
    or real ``teacher(u) + sqrt(noise) xi`` (``clean_real``: the clean target, the test labels
    of docs/theory.md (m.4))."""
    rng = _label_stream(ss)
    noisy = u + math.sqrt(ro["noise"]) * rng.standard_normal(u.shape) if ro["noise"] else u
    if str(teacher.expr) == "sign(x)":
        return np.where(noisy >= 0, 1.0, -1.0)
    if ro["label_rule"] == "bernoulli":
        p1 = (1 + np.asarray(teacher.numpy(noisy), float)) / 2
        return np.where(rng.random(u.shape) < p1, 1.0, -1.0)
    y = np.asarray(teacher.numpy(u), float) * np.ones_like(u)
    if ro["noise"] and not clean_real:
        y = y + math.sqrt(ro["noise"]) * rng.standard_normal(u.shape)
    return y


def convex_readout_seed(task, W1, student, teacher, ss_read, ss_test):
    """The convex readouts of one seed on the first layer ``W1``: for each alpha of the task,
    a fresh training set (the same draws as the ridge's), the readout of
    :func:`fit_convex_readout`, and its test MSE, training MSE, test and training
    classification errors, training loss (penalty excluded), bias, ``q2``, ``m``.

    Returns ``(test, train, extra)``: test / training MSE per alpha and a dict of lists
    (:data:`CONVEX_KEYS`, plus the solver's diagnostics)."""
    ro, lam, threads = task["readout"], task["lam"], task["threads"]
    ident = lambda x: x   # noqa: E731 -- the features' draw with the teacher's field as "label"
    if getattr(teacher, "k", None) is not None:   # multi-index hook (issue 28): u = g(x) itself
        field, teacher = teacher.numpy, _CLEAN_LABELS
    else:
        field = ident
    sqp = math.sqrt(task["p"])
    phi_t, u_t = _features_and_labels(student.numpy, field, W1, ss_test, task["n_test"], threads)
    y_t = _draw_labels(teacher, u_t, ro, ss_test, clean_real=True)
    lo = make_loss(ro["loss"])
    test, train = [], []
    extra = {k: [] for k in CONVEX_KEYS + ("diagnostics",)}
    for n, ss_a in zip(task["ns"], seed_children(ss_read, len(task["ns"]))):
        phi, u = _features_and_labels(student.numpy, field, W1, ss_a, n, threads)
        y = _draw_labels(teacher, u, ro, ss_a, clean_real=False)
        if not (np.all(np.isfinite(phi)) and np.all(np.isfinite(y))
                and np.all(np.isfinite(phi_t)) and np.all(np.isfinite(y_t))):
            raise FloatingPointError("features or labels are not finite (sigma(W1 x) or the "
                                     "teacher overflows float64): no readout can be fitted")
        if lo.name == "square" and not ro["bias"] and lam > 0:    # noise or drawn labels only
            a, b, info = ridge_readout(phi, y, lam), 0.0, {}
        else:
            a, b, info = fit_convex_readout(phi, y, lo, lam, ro["bias"])
        z, zt = phi @ a / sqp + b, phi_t @ a / sqp + b
        test.append(float(np.mean((y_t - zt) ** 2)))
        train.append(float(np.mean((y - z) ** 2)))
        pm1 = ro["pm1"]
        vals = (float(np.mean(np.sign(zt) != y_t)) if pm1 else float("nan"),
                float(np.mean(lo.value(y, z))),
                float(np.mean(np.sign(z) != y)) if pm1 else float("nan"),
                float(b), float(a @ a / task["p"]), float(a.sum() / sqp))
        for k, v in zip(CONVEX_KEYS, vals):
            extra[k].append(v)
        if task.get("omega") is not None:      # per letter: m_j and q2_j (docs/theory.md (m.8))
            om = np.asarray(task["omega"], float)
            first = np.unique(om, return_index=True)[1]
            groups = [om == w for w in om[np.sort(first)]]     # the vocabulary's order
            extra.setdefault("m_groups", []).append([float(a[g].sum() / sqp) for g in groups])
            extra.setdefault("q2_groups", []).append([float(a[g] @ a[g] / task["p"])
                                                      for g in groups])
        extra["diagnostics"].append({k: v for k, v in info.items() if k != "message"})
        del phi, u
        if task.get("tick") is not None:
            task["tick"]()
    return test, train, extra


def convex_result_fields(ro, out):
    """The :class:`~srfsym.simulation.result.SimulationResult` fields of the convex readout:
    means and standard errors over seeds (per alpha) of :data:`CONVEX_KEYS`, the settings."""
    if ro is None:
        return {}
    fields = {"loss": ro["loss"], "noise": ro["noise"], "bias": ro["bias"],
              "label_rule": ro["label_rule"]}
    for k in CONVEX_KEYS:
        v = np.array([o["convex"][k] for o in out], dtype=float)
        fields[k] = v.mean(axis=0)
        fields[k + "_sem"] = (v.std(axis=0, ddof=1) / math.sqrt(v.shape[0]) if v.shape[0] > 1
                              else np.full(v.shape[1:], np.nan))
    fields["readout_diagnostics"] = [o["convex"]["diagnostics"] for o in out]
    fields["convex_per_seed"] = {k: [o["convex"][k] for o in out] for k in CONVEX_KEYS
                                 + GROUP_KEYS if k in out[0]["convex"]}
    return fields
