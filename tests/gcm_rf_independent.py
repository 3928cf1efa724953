"""An independent solver of the Gaussian covariate model for plain random features with a
logistic readout and sign labels.  It shares no code with srfsym: its own Marchenko-Pastur
quadrature, its own Gaussian expectations, its own proximal step (bisection), its own
damped iteration, and the convention of the GCM papers (sum of the logistic loss
+ (lam_h / 2) ||a||^2, so lam_h = 2 lambda of srfsym).

Model: x ~ N(0, I_d), features phi = sigma(W x) with rows of W of norm sqrt(c), p = beta d,
n = alpha d samples, labels y = sign(<theta*, x>).  Gaussian equivalence for an odd sigma:
phi ~ mu1 W x + mu_s xi, so the prediction yhat = a.phi / sqrt(p) is Gaussian with
variance Q = a' Omega a / p, Omega = mu1^2 W W' + mu_s^2 I, and teacher overlap
M = E[yhat <theta*, x>].  The replica fixed point in (V, Q, M) (single Gaussian cluster):

    Vh = (alpha/beta) E g,   qh = (alpha/beta) E f^2,   Mh = (alpha/sqrt(beta)) (E[f nu] + M E g)
    S(x) = lam_h + Vh (mu1^2 x + mu_s^2),  x ~ c MP_beta (eigenvalues of W W')
    V = E (mu1^2 x + mu_s^2)/S,   M = sqrt(beta) Mh mu1^2 E x/S,
    Q = Mh^2 mu1^2 E x (mu1^2 x + mu_s^2)/S^2 + qh E (mu1^2 x + mu_s^2)^2/S^2

with f = -l'(y, P), g = l''/(1 + V l'') at P = prox_{V l(y, .)}(omega), (nu, omega)
bivariate normal (1, Q, M), y = sign(nu).  Test classification error arccos(M/sqrt Q)/pi.
"""
import math

import numpy as np


def _mp_rule(beta, c, n=600):
    """Nodes and weights of c * MP_beta by Gauss-Legendre after x = a + (b - a) sin^2 t
    (smooth integrand), plus the atom (1 - 1/beta)_+ at 0."""
    a, b = (1 - math.sqrt(beta)) ** 2, (1 + math.sqrt(beta)) ** 2
    t, w = np.polynomial.legendre.leggauss(n)
    th = (t + 1) * math.pi / 4                       # [0, pi/2]
    x = a + (b - a) * np.sin(th) ** 2
    dens = np.sqrt(np.maximum((b - x) * (x - a), 0.0)) / (2 * math.pi * beta * x)
    wx = w * math.pi / 4 * dens * 2 * (b - a) * np.sin(th) * np.cos(th)
    if beta > 1:
        x, wx = np.append(x, 0.0), np.append(wx, 1 - 1 / beta)
    return c * x, wx


def _sig(t):
    return 0.5 * (1 + np.tanh(0.5 * t))


def _prox_logistic(y, omega, V):
    """Bisection on x - omega - V y sigmoid(-y x) = 0 (|l'| <= 1: root in omega +- V)."""
    lo, hi = omega - V - 1e-300, omega + V + 1e-300
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        G = mid - omega - V * y * _sig(-y * mid)
        lo, hi = np.where(G < 0, mid, lo), np.where(G < 0, hi, mid)
    return 0.5 * (lo + hi)


def _student_constants(student, c):
    """mu1 = E sigma'(sqrt(c) xi), mu_s^2 = E sigma^2 - c mu1^2 (mu0 = 0: odd student), by
    200-point Gauss-Hermite."""
    xi, w = np.polynomial.hermite_e.hermegauss(200)
    w = w / w.sum()
    s = math.sqrt(c) * xi
    if student == "tanh":
        f, df = np.tanh(s), 1 - np.tanh(s) ** 2
    elif student == "erf":
        from scipy.special import erf
        f, df = erf(s), 2 / math.sqrt(math.pi) * np.exp(-s * s)
    else:
        raise ValueError(student)
    mu1 = float(w @ df)
    return mu1, float(w @ f ** 2) - c * mu1 ** 2


def solve_gcm(student, c, lam_h, alpha, beta, tol=1e-14, max_iter=20000):
    """Returns dict(V, Q, M, class_error, train_loss)."""
    mu1, mus2 = _student_constants(student, c)
    x, wx = _mp_rule(beta, c)
    lin = mu1 ** 2 * x + mus2
    u, wu = np.polynomial.hermite_e.hermegauss(120)
    wu = wu / wu.sum()
    V, Q, M = 1.0, 1.0, 0.3

    def channel(V, Q, M):
        r = M / math.sqrt(Q)                          # corr(nu, omega)
        s = math.sqrt(max(1 - r * r, 0.0))
        omega = math.sqrt(Q) * u
        out = dict(Ef2=0.0, Eg=0.0, Efnu=0.0, loss=0.0)
        for y in (1.0, -1.0):
            tau = y * r * u / s                           # P(y | u) = Phi(tau)
            from scipy.special import ndtr
            Py = ndtr(tau)
            Enu = r * u * Py + y * s * np.exp(-tau ** 2 / 2) / math.sqrt(2 * math.pi)
            P = _prox_logistic(y, omega, V)
            f = y * _sig(-y * P)
            l2 = _sig(P) * _sig(-P)
            g = l2 / (1 + V * l2)
            out["Ef2"] += wu @ (Py * f * f)
            out["Eg"] += wu @ (Py * g)
            out["Efnu"] += wu @ (Enu * f)
            out["loss"] += wu @ (Py * np.log1p(np.exp(-y * P)))
        return out

    for it in range(max_iter):
        ch = channel(V, Q, M)
        Vh = alpha / beta * ch["Eg"]
        qh = alpha / beta * ch["Ef2"]
        Mh = alpha / math.sqrt(beta) * (ch["Efnu"] + M * ch["Eg"])
        S = lam_h + Vh * lin
        Vn = wx @ (lin / S)
        Mn = math.sqrt(beta) * Mh * mu1 ** 2 * (wx @ (x / S))
        Qn = Mh ** 2 * mu1 ** 2 * (wx @ (x * lin / S ** 2)) + qh * (wx @ (lin ** 2 / S ** 2))
        move = max(abs(Vn - V), abs(Qn - Q), abs(Mn - M))
        V, Q, M = 0.5 * (V + Vn), 0.5 * (Q + Qn), 0.5 * (M + Mn)
        if move < tol:
            break
    else:
        raise RuntimeError("GCM iteration did not converge")
    ch = channel(V, Q, M)
    return dict(V=V, Q=Q, M=M, class_error=math.acos(M / math.sqrt(Q)) / math.pi,
                train_loss=ch["loss"])
