"""``srfsym spectrum``: the spectrum of the learned features (docs/theory.md (j))."""
from __future__ import annotations


import mpmath
import numpy as np

from .common import (CLIError, add_bulk, add_output, add_vocabulary, emit_output, out, status,
                     table_row, vocabulary_arg, warn_if_isotropic_is_off)


def _parse_z(text):
    """A complex number written like ``0.6+0.1j`` (parsed by ``complex``, never eval)."""
    try:
        z = complex(text.replace(" ", "").replace("i", "j"))
    except ValueError:
        raise CLIError(f"cannot read z = {text!r} as a complex number (write e.g. 0.6+0.1j)") \
            from None
    if abs(z) > MAX_ABS_Z:                  # nan and inf are named by the theory's own check
        raise CLIError(f"|z| = {abs(z):.3g} is beyond {MAX_ABS_Z:g}: |z|^2 overflows double "
                       "precision in the iteration (and s(z) ~ -1/z there)")
    return z


#: largest |z| of ``spectrum --z`` (|z|^2 stays below the double range)
MAX_ABS_Z = 1e150


def _spectra(args):
    from ..theory.feature.spectrum import feature_spectrum
    kw = dict(beta=args.beta, p_over_n=args.p_over_n, vocabulary=vocabulary_arg(args))
    if args.r is not None or args.c is not None:
        if args.r is None or args.c is None or args.alpha0 is not None or args.eta is not None:
            raise CLIError("give either --r and --c, or --teacher, --alpha0 and --eta")
        if args.bulk != "isotropic":
            raise CLIError(f"--bulk {args.bulk} needs the step (--teacher --alpha0 --eta), "
                           "not --r --c")
        return feature_spectrum(args.student, r=args.r, c=args.c, **kw), None
    if args.teacher is None or args.alpha0 is None or args.eta is None:
        raise CLIError("give --teacher, --alpha0 and --eta (or --r and --c)")
    if args.bulk == "step":
        from ..theory.spectral.step_bulk import step_bulk_spectrum
        if kw["vocabulary"] is not None:
            raise CLIError("--bulk step is available for the uniform readout only (with a "
                           "vocabulary each value would need a p x p complex resolvent); "
                           "use --bulk exact, the law split by letter")
        with status(f"the step bulk: first layer realised at d = {args.d}, seed {args.seed} "
                    "(docs/theory.md (g.4))"):
            data = step_bulk_spectrum(args.student, args.teacher, args.alpha0, args.eta,
                                      args.d, args.beta, args.seed).data
        trained = feature_spectrum(args.student, r=data.r, c=data.c, spectrum=data.eigenvalues,
                                   **kw)
    elif args.bulk == "exact":
        from ..theory.spectral.exact_bulk import exact_bulk_spectrum
        if not args.alpha0 > 0:
            raise CLIError("--bulk exact needs a step with --alpha0 > 0")
        if kw["vocabulary"] is not None:    # the exact law split by letter (g.5.2)
            from ..theory.spectral.exact_bulk_groups import exact_group_bulk
            bulk = exact_group_bulk(args.student, args.teacher, args.alpha0, args.eta,
                                    kw["vocabulary"])
        else:
            bulk = exact_bulk_spectrum(args.student, args.teacher, args.alpha0, args.eta,
                                       args.beta)
        trained = feature_spectrum(args.student, args.teacher, alpha0=args.alpha0, eta=args.eta,
                                   spectrum=bulk, **kw)
    else:
        warn_if_isotropic_is_off(args)
        trained = feature_spectrum(args.student, args.teacher, alpha0=args.alpha0, eta=args.eta,
                                   **kw)
    untrained = feature_spectrum(args.student, args.teacher, alpha0=args.alpha0, eta=0.0, **kw)
    return trained, untrained


def cmd_spectrum(args):
    zs = [_parse_z(z) for z in args.z] if args.z else None
    if args.density is not None:
        if not (args.json or args.csv):
            raise CLIError("--density exports the density grid: give it with --json or --csv "
                           "(the figure, --plot, draws the same grid)")
        if not 2 <= args.density <= MAX_DENSITY_POINTS:
            raise CLIError(f"--density {args.density}: give between 2 and "
                           f"{MAX_DENSITY_POINTS} points")
    if args.simulate and args.r is not None:
        raise CLIError("--simulate needs the step (--teacher --alpha0 --eta), not --r --c")
    with status("deterministic equivalent of the feature spectrum (docs/theory.md (j.3))"):
        fs, fs0 = _spectra(args)
    from ..simulation.spectrum_simulation import DEFAULT_Z, simulate_feature_spectrum
    zs = zs or list(DEFAULT_Z)
    values = [fs.stieltjes_value(z) for z in zs]
    summary = fs.summary()
    sim = sim0 = None
    if args.simulate:
        n = 2 if args.plot else 1
        with status(f"simulation 1/{n}: the trained network's features, d = {args.d}, "
                    f"{args.seeds} seeds, eigenvalues of Phi^T Phi / n"):
            sim = simulate_feature_spectrum(args.student, args.teacher, args.alpha0, args.eta,
                                            args.d, args.beta, args.p_over_n, args.seeds, zs,
                                            vocabulary=fs.voc, theory=fs)   # the one shown
        if args.plot:
            with status(f"simulation 2/2: the untrained network (eta = 0, one seed) for the "
                        f"figure, d = {args.d}"):
                sim0 = simulate_feature_spectrum(args.student, args.teacher, args.alpha0, 0.0,
                                                 args.d, args.beta, args.p_over_n, 1, zs,
                                                 vocabulary=fs.voc)
    mp_vals = None
    if args.dps is not None:
        with status(f"s(z) in mpmath at {args.dps} digits"):
            mp_vals = [fs.stieltjes_mpmath(z, args.dps) for z in zs]
    rows = spectrum_rows(args, fs, zs, values, mp_vals, sim)
    if args.density is not None:
        with status(f"the bulk density on {args.density} points and its support"):
            rows += density_rows(args, fs)
        summary = {**summary, "support_pieces": [list(ab) for ab in fs.support_pieces]}
    if emit_output(args, rows, notes=list(getattr(sim, "notes", []) or []),
                   details={"spectrum": {**summary, **support_details(fs)}, **({} if sim is None else {"simulation": {
                       **{k: v for k, v in sim.to_dict().items() if k != "points"},
                       **_pieces_details(fs, sim)}})}):
        _plot_after(args, fs, fs0, sim, sim0)
        return
    out(f"feature spectrum of {fs.student.name} at r = {fs.r:.6g}, c = {fs.c:.6g}, "
        f"beta = p/d = {fs.beta:g}, p/n = {fs.nu:g}")
    if fs.K > 1:
        out(f"  readout {fs.voc}")
        out("  giant outliers (leading order): p * ["
            + ", ".join(f"{v:.8g}" for v in fs.outliers_per_p) + "] (O(1) correction not derived "
            "for K > 1)")
        out(f"  bulk mean = {fs.bulk_mean:.8g}, right edge = {fs.right_edge:.6g}")
        out(support_line(fs))
    else:
        if fs.has_outlier:
            out(f"  giant outlier: lambda_1 = p * {fs.outlier_per_p:.8g} + "
                f"{fs.outlier_correction:.8g} (+ O(1) random)")
        else:
            out("  no giant outlier (E mu0^2 = 0)")
        out(f"  bulk mean = {fs.bulk_mean:.8g}, m2/m1^2 - 1 = {fs.bulk_normalised_variance:.8g}, "
            f"right edge = {fs.right_edge:.6g}")
        out(support_line(fs))
        if (warn := support_resolution_line(fs)) is not None:
            out(warn)
    head = f"{'z':>14s} {'s(z)':>30s} {'rel. error est.':>16s}"
    if sim is not None:
        head += f" {'network (mean +- s.e.)':>44s}"
    out(head)
    for i, v in enumerate(values):
        line = f"{v.z.real:7.3g}{v.z.imag:+7.3g}j {v.s.real:14.8f} {v.s.imag:+14.8f}j " \
               f"{v.node_error:16.1e}"
        if sim is not None:
            m, e = sim.stieltjes_mean[i], sim.stieltjes_sem[i]
            line += f" {m.real:10.5f}{m.imag:+10.5f}j +- {e.real:.1e}{e.imag:+.1e}j"
        out(line)
        if mp_vals is not None:
            out(f"{'':15s}[{args.dps} digits] {mpmath.nstr(mp_vals[i], args.dps)}")
    if sim is not None:
        _print_simulation(fs, sim)
    if _plot_after(args, fs, fs0, sim, sim0):
        out(f"plot written to {args.plot}")


def _print_simulation(fs, sim):
    """The network beside the theory: sizes, the outliers, each piece's share, the rows'
    correlation and the notes (text output of ``spectrum --simulate``)."""
    out(f"network: d = {sim.d}, p = {sim.p}, n = {sim.n}, {len(sim.eigenvalues)} seeds; "
        f"max relative error of s(z) {100 * sim.max_relative_error():.2f} %")
    if sim.outliers is not None:
        for j in range(sim.outliers.shape[1]):
            out(f"  outlier {j + 1}: " + ", ".join(f"{a:.2f}" for a in sim.outliers[:, j])
                + "; predicted (leading order, realised kappa): "
                + ", ".join(f"{b:.2f}" for b in sim.outliers_predicted[:, j]))
    elif sim.top_predicted.size:
        out("  top eigenvalue: " + ", ".join(f"{a:.2f}" for a in sim.top)
            + "; predicted p M2hat + Delta: "
            + ", ".join(f"{b:.2f}" for b in sim.top_predicted))
    if len(fs.support_pieces) > 1:
        out(network_pieces_line(fs, sim))
    if sim.row_correlation is not None:
        from ..simulation.result import row_correlation_line
        out(row_correlation_line(sim.row_correlation, sim.p))
    for note in sim.notes:
        out(f"  note: {note}")


def support_line(fs):
    """The support of the bulk piece by piece, with each piece's mass (docs/theory.md (j.8))."""
    masses = support_details(fs)["piece_masses"]
    pieces = ", ".join(f"[{a:.6g}, {b:.6g}] (mass {m:.4g})"
                       for (a, b), m in zip(fs.support_pieces, masses))
    if len(fs.support_pieces) == 1:
        return f"  support of the bulk: {pieces}"
    return f"  support of the bulk: {len(fs.support_pieces)} pieces with gaps between: {pieces}"


def network_pieces(fs, sim):
    """Fractions of the network's bulk eigenvalues (its K largest, the giant outliers, left
    out) in each piece of the theory's support and in the gaps: ``(mean, s.e.)`` arrays over
    seeds, the gaps last (docs/theory.md (j.8))."""
    from ..simulation.spectrum_simulation import piece_fractions
    k = fs.K if fs.K > 1 else int(bool(fs.has_outlier))
    fr = np.array([piece_fractions(lam, fs.support_pieces, k) for lam in sim.eigenvalues])
    sem = fr.std(axis=0, ddof=1) / np.sqrt(len(fr)) if len(fr) > 1 else np.full(fr.shape[1], np.nan)
    return fr.mean(axis=0), sem


def _pieces_details(fs, sim):
    """The network's share of each piece and of the gaps, for --json (several pieces only)."""
    if len(fs.support_pieces) < 2:
        return {}
    mean, sem = network_pieces(fs, sim)
    clean = (lambda a: [None if not np.isfinite(x) else float(x) for x in np.atleast_1d(a)])
    return {"piece_fractions": clean(mean[:-1]), "piece_fractions_sem": clean(sem[:-1]),
            "gap_fraction": float(mean[-1]), "gap_fraction_sem": clean(sem[-1])[0]}


def network_pieces_line(fs, sim):
    """The network's share of each piece beside the theory's masses."""
    mean, sem = network_pieces(fs, sim)
    pm = (lambda m, e: f"{m:.4f}" + ("" if not np.isfinite(e) else f" +- {e:.1g}"))
    masses = support_details(fs)["piece_masses"]
    return ("  network's bulk in each piece (theory's mass): "
            + ", ".join(f"{pm(m, e)} ({t:.4f})" for m, e, t in zip(mean[:-1], sem[:-1], masses))
            + f"; in the gaps {pm(mean[-1], sem[-1])} (0)")


def support_details(fs):
    """``support_pieces``, ``piece_masses`` and their error estimate (computed once); on the
    exact law with several pieces, also whether they survive twice the residual law's nodes
    (``support_resolved``, ``support_pieces_finer``, ``residual_nodes_finer``)."""
    if getattr(fs, "_support_details", None) is None:
        (mass,), err = fs.piece_moments(order=0)
        fs._support_details = {"support_pieces": [list(p) for p in fs.support_pieces],
                               "piece_masses": [float(m) for m in mass],
                               "piece_masses_error": err}
        check = fs.support_resolution() if fs.K == 1 else None
        if check is not None:
            agree, nodes, finer = check
            fs._support_details.update(support_resolved=bool(agree), residual_nodes_finer=nodes,
                                       support_pieces_finer=[list(p) for p in finer])
    return fs._support_details


def support_resolution_line(fs):
    """The warning when the exact law's pieces move with the residual law's nodes, or ``None``."""
    det = support_details(fs)
    if det.get("support_resolved", True):
        return None
    finer = ", ".join(f"[{a:.4g}, {b:.4g}]" for a, b in det["support_pieces_finer"])
    return ("  warning: these pieces are not resolved: with the residual law at "
            f"{det['residual_nodes_finer']} nodes they are {finer}; the gaps between them come "
            "from discretising the law of the residuals (its far part is one cluster per node), "
            "the right edge and the moments do not (docs/theory.md (j.8))")


def spectrum_rows(args, fs, zs, values, mp_vals, sim):
    """Rows of the shared schema (cli/common.py): one per z for the theory, and with
    ``--simulate`` one per z for the network (mean and standard error over seeds, the theory
    beside it)."""
    head = dict(alpha0=args.alpha0, eta=args.eta, beta=fs.beta, r=fs.r, c=fs.c)
    teacher = args.teacher if args.teacher is not None else ""
    rows = []
    for i, (z, v) in enumerate(zip(zs, values)):
        d = v.to_dict()
        row = table_row("theory", fs.student.name, teacher, **head, p_over_n=fs.nu,
                        z_real=z.real, z_imag=z.imag, s_real=v.s.real, s_imag=v.s.imag,
                        g1_real=d["g1"][0], g1_imag=d["g1"][1], kappa_nodes=d["kappa_nodes"],
                        relative_error_estimate=d["relative_error_estimate"])
        if mp_vals is not None:
            row["decimal"] = {"s_real": mpmath.nstr(mp_vals[i].real, args.dps),
                              "s_imag": mpmath.nstr(mp_vals[i].imag, args.dps)}
        rows.append(row)
    if sim is not None:
        for i, (z, v) in enumerate(zip(zs, values)):
            m, e = sim.stieltjes_mean[i], sim.stieltjes_sem[i]
            rows.append(table_row(
                "simulation", fs.student.name, teacher, **head, p_over_n=fs.nu, z_real=z.real,
                z_imag=z.imag, s_real=m.real, s_imag=m.imag, s_real_sem=e.real,
                s_imag_sem=e.imag, theory_s_real=v.s.real, theory_s_imag=v.s.imag,
                model=sim.model, d=sim.d, p=sim.p, n=sim.n, seeds=len(sim.eigenvalues)))
    return rows


#: smoothing half-width of the drawn and exported density (that of ``FeatureSpectrum.density``)
DENSITY_EPS = 1e-4
#: most points of ``--density``
MAX_DENSITY_POINTS = 100_000


def density_grid(fs, points, log_x=False, pieces=False):
    """The points ``x`` and the bulk density ``Im s(x + i eps) / pi`` of the figure and of
    ``--density``: ``points`` values from ``1e-3`` to ``1.15`` times the right edge, evenly
    spaced (geometric with ``log_x``, from ``1e-3`` times the first piece's right end), with
    ``pieces`` also 58 points inside every piece of the support (the figure resolves them all),
    ``eps`` = :data:`DENSITY_EPS`.  Returns ``(x, density, eps)``."""
    edge = fs.right_edge
    low = 1e-3 * (fs.support_pieces[0][1] if log_x and pieces else edge)
    x = (np.geomspace if log_x else np.linspace)(low, 1.15 * edge, points)
    if pieces:
        for a, b in fs.support_pieces:
            x = np.union1d(x, np.linspace(a, b, 60)[1:-1])
    return x, fs.density(x, eps=DENSITY_EPS), DENSITY_EPS


def density_rows(args, fs):
    """Rows of ``--density``: one per point of :func:`density_grid` (source ``density``: x,
    density, the smoothing, the support piece holding x or null), then one per piece of the
    support (source ``support``: its ends)."""
    head = dict(alpha0=args.alpha0, eta=args.eta, beta=fs.beta, r=fs.r, c=fs.c,
                p_over_n=fs.nu)
    teacher = args.teacher if args.teacher is not None else ""
    x, rho, eps = density_grid(fs, args.density, log_x=args.log in ("eigenvalue", "both"))
    pieces = fs.support_pieces

    def piece(v):
        return next((k for k, (a, b) in enumerate(pieces) if a <= v <= b), None)
    rows = [table_row("density", fs.student.name, teacher, **head, x=float(v),
                      density=float(d), density_eps=eps, support_piece=piece(v))
            for v, d in zip(x, rho)]
    rows += [table_row("support", fs.student.name, teacher, **head, support_piece=k,
                       support_left=float(a), support_right=float(b))
             for k, (a, b) in enumerate(pieces)]
    return rows


def _plot_after(args, fs, fs0, sim, sim0):
    """The figure, drawn after the results were printed (a failure costs only the figure)."""
    if not args.plot:
        return False
    from .figures import draw
    return draw(lambda: _plot(args, fs, fs0, sim, sim0), args.plot)


def _outlier_title(spec, s):
    """The giant-outlier line of a panel title (with a vocabulary: the leading order per
    letter, the O(1) correction is derived for the uniform readout only)."""
    if spec.K > 1:
        return ("\ngiant outliers (off the plot): $p\\times$["
                + ", ".join(f"{v:.3g}" for v in spec.outliers_per_p) + "]")
    t = (f"\ngiant outlier (off the plot): $p\\times${spec.outlier_per_p:.3g} + "
         f"{spec.outlier_correction:.3g}")
    if s is not None:
        t += (f" = {s.p * spec.outlier_per_p + spec.outlier_correction:.1f} at p = {s.p}"
              f"; network {np.mean(s.top):.1f}")
    return t


def _shade_pieces(ax, pieces, masses):
    """The support's pieces as shaded intervals (labelled once, with their masses)."""
    for i, ((a, b), m) in enumerate(zip(pieces, masses)):
        ax.axvspan(a, b, color="C2", alpha=0.12, lw=0, label=(
            "support of the bulk" + ("" if len(pieces) == 1 else ", masses of its pieces "
                                     + ", ".join(f"{v:.3g}" for v in masses))
            if i == 0 else None))


def _outlier_marker(ax, spec, s):
    """The giant outlier as a marker: at its place when the network fixes p and it falls on
    the axes, else an arrow at the right border with its value (p x M2hat + Delta)."""
    lo, hi = ax.get_xlim()
    y = 0.5 * ax.get_ylim()[1]
    if spec.K > 1:
        text = "giant outliers p$\\times$[" + ", ".join(
            f"{v:.3g}" for v in spec.outliers_per_p) + "]"
        where = None
    else:
        text = f"giant outlier p$\\times${spec.outlier_per_p:.3g} + {spec.outlier_correction:.3g}"
        where = None if s is None else s.p * spec.outlier_per_p + spec.outlier_correction
        if where is not None:
            text = f"giant outlier at {where:.4g} (p = {s.p})"
    if where is not None and lo <= where <= hi:
        ax.plot([where], [y], marker="v", color="C3", ls="none", label=text)
        return
    ax.plot([hi], [y], marker=">", color="C3", ls="none", clip_on=False,
            label=text + " (off the axes, to the right)")
    ax.set_xlim(lo, hi)


def _plot(args, fs, fs0, sim, sim0):
    from .figures import legend_below, pyplot
    plt = pyplot()
    panels = [("trained", fs, sim)] + ([("untrained ($\\tilde\\eta$ = 0)", fs0, sim0)]
                                       if fs0 else [])
    fig, axes = plt.subplots(1, len(panels), figsize=(5.2 * len(panels), 3.8), squeeze=False)
    log = getattr(args, "log", None)
    for ax, (title, spec, s) in zip(axes[0], panels):
        edge = spec.right_edge
        pieces = spec.support_pieces
        wide = len(pieces) > 1 and edge > 10 * pieces[0][1]     # a far piece: log x axis
        log_x = wide or log in ("eigenvalue", "both")
        x, rho, _ = density_grid(spec, 300, log_x=log_x, pieces=True)
        if s is not None:
            bulk = np.concatenate([lam[:-1] if spec.has_outlier else lam for lam in s.eigenvalues])
            bins = (np.geomspace(x[0], 1.15 * edge, 81) if log_x else 80)
            ax.hist(bulk, bins=bins, range=(0, 1.15 * edge), density=True, color="0.8",
                    label=f"network eigenvalues (d = {s.d}, {len(s.eigenvalues)} "
                          + ("seed)" if len(s.eigenvalues) == 1 else "seeds, pooled)"))
        _shade_pieces(ax, pieces, support_details(spec)["piece_masses"])
        law = getattr(args, "bulk", "isotropic")
        ax.plot(x, rho, color="C0", label="deterministic equivalent" + (
            f" ({law} bulk of the step, docs/theory.md (g))"
            if spec is fs and law != "isotropic" else ""))
        ax.set_xlabel("eigenvalue of $\\Phi^\\top\\Phi/n$")
        ax.set_ylabel("density (bulk)")
        t = f"{title}: r = {spec.r:.3g}, c = {spec.c:.3g}"
        if spec.has_outlier:
            t += _outlier_title(spec, s)
        ax.set_title(t, fontsize=9)
        top = min(ax.get_ylim()[1],
                  4 * float(np.max(rho[x > (0.1 * pieces[0][1] if wide else 0.1 * edge)])))
        _set_scales(ax, "eigenvalue" if wide and log in (None, "eigenvalue") else
                    "both" if wide else log, top, rho)
        if spec.has_outlier:
            _outlier_marker(ax, spec, s)
        legend_below(ax)
    fig.suptitle(spectrum_title(args, fs), fontsize=10)
    fig.tight_layout()
    return fig


def _set_scales(ax, log, top, rho):
    """Axis scales of a density panel: ``--log density`` (or ``both``) a logarithmic density
    axis down to ``1e-6`` of the panel's top (the edges' power laws become lines),
    ``--log eigenvalue`` (or ``both``) a logarithmic eigenvalue axis (bulks spread over
    decades); linear from 0 otherwise."""
    if log in ("eigenvalue", "both"):
        ax.set_xscale("log")
    if log in ("density", "both"):
        ax.set_yscale("log")
        ax.set_ylim(max(top, float(np.max(rho))) * 1e-6, 2 * max(top, float(np.max(rho))))
        ax.set_ylabel("density (bulk, log scale)")
    else:
        ax.set_ylim(0, top)


def spectrum_title(args, fs):
    """The figure's title: the pair and the step (or r, c), beta, p/n and the readout."""
    if args.teacher is not None and args.alpha0 is not None:
        head = (f"{fs.student.name} student, {args.teacher} teacher, $\\alpha_0$ = "
                f"{args.alpha0:g}, $\\tilde\\eta$ = {args.eta:g}")
    else:
        head = f"{fs.student.name} student at r = {fs.r:.4g}, c = {fs.c:.4g}"
    head += f", $\\beta$ = p/d = {fs.beta:g}, p/n = {fs.nu:g}"
    if fs.K > 1:
        head += ("; readout letters $\\omega$ = {" + ", ".join(f"{w:g}" for w in fs.voc.letters)
                 + "}, $\\pi$ = {" + ", ".join(f"{p:.3g}" for p in fs.voc.weights) + "}")
    return head


def register(sub):
    p = sub.add_parser(
        "spectrum", help="spectrum of the learned features Phi^T Phi / n (deterministic "
                         "equivalent, giant outlier; optionally against the network)",
        description="Stieltjes transform s(z) = tr(X - z)^-1 / p of X = Phi^T Phi / n after one "
                    "step, its giant outlier, bulk mean / variance / right edge "
                    "(docs/theory.md (j)).  Im z < 0 is answered by conjugate symmetry; z on "
                    "the non-negative real axis is refused.")
    p.add_argument("--student", required=True, help="student activation (name or expression in x)")
    p.add_argument("--teacher", help="teacher activation (with --alpha0 --eta)")
    p.add_argument("--alpha0", type=float, help="step samples per dimension n0/d")
    p.add_argument("--eta", type=float, help="learning rate eta-tilde of the step")
    p.add_argument("--r", type=float, help="spike strength r (instead of the step)")
    p.add_argument("--c", type=float, help="bulk variance c (instead of the step)")
    p.add_argument("--beta", type=float, default=1.0, help="p/d (default 1)")
    p.add_argument("--p-over-n", type=float, default=1.0, help="p/n (default 1)")
    p.add_argument("--z", nargs="+", action="extend",
                   help="points z, written like 0.6+0.1j; repeatable, and a negative real part "
                   "needs the = form: --z=-0.5+0.01j (default: seven points from -0.5+0.01j "
                   "to 2.5+0.3j)")
    p.add_argument("--dps", type=int, help="also evaluate s(z) with mpmath at this many digits")
    add_output(p)
    p.add_argument("--plot", help="figure (.png, .pdf or .svg): theory density over the "
                                  "network's histogram, untrained beside trained")
    p.add_argument("--log", nargs="?", const="density", choices=("density", "eigenvalue", "both"),
                   help="logarithmic axes of the figure: the density (--log alone), the "
                   "eigenvalue axis (a geometric grid, also for --density), or both "
                   "(default: linear)")
    p.add_argument("--density", type=int, nargs="?", const=300, metavar="POINTS",
                   help="with --json or --csv: also the bulk density on POINTS points from 1e-3 "
                   "to 1.15 times the right edge (default 300; the figure's grid), as rows of "
                   "source 'density' (x, density), and the support's pieces as rows of source "
                   "'support' (default: not exported)")
    p.add_argument("--simulate", action="store_true",
                   help="eigenvalues of finite networks beside the theory")
    p.add_argument("--d", type=int, default=1000, help="input dimension of the simulation (and "
                   "of the realised first layer with --bulk step)")
    p.add_argument("--seeds", type=int, default=4, help="seeds of the simulation (default 4)")
    add_vocabulary(p)
    add_bulk(p)
    p.add_argument("--seed", type=int, default=0, help="seed of the realised first layer with "
                   "--bulk step")
    p.set_defaults(func=cmd_spectrum)
